/**
 * `@ink/client`: typed calls to the Ink invoice service from any TypeScript
 * or JavaScript app (Node 18 or later, Deno). `deno task client`
 * builds it into an npm package whose only dependency is `@trpc/client`.
 *
 * @example
 * ```ts
 * const ink = createInkClient({ url: "https://invoices.example.com", apiKey });
 * const { bytes, contentType } = await ink.generate(invoice, { format: "factur-x" });
 * const typed = await ink.trpc.invoice.generate.mutate(invoice);
 * ```
 *
 * @module
 */
import { createTRPCClient, httpLink, type TRPCClient } from "@trpc/client";
import type {
  AppRouter,
  ErrorBody,
  ErrorCode,
  ErrorDetail,
  InvoiceFormat,
  InvoiceRequest,
} from "./router_types.ts";

export type * from "./router_types.ts";
export { TRPCClientError } from "@trpc/client";

/** Where the service is and how to call it. */
export interface InkClientOptions {
  /** The service's address, e.g. `https://invoices.example.com`. */
  url: string;
  /**
   * Sent as `Authorization: Bearer …`: an API key (`ink_live_…`,
   * `ink_test_…`), or the operator's admin token for the `admin` procedures.
   */
  apiKey: string;
  /** The `fetch` to call the service with; the global one by default. */
  fetch?: typeof fetch;
}

/** Options of {@linkcode InkClient.generate}. */
export interface GenerateOptions {
  /** The document to make: `pdf` (the default), `factur-x` or an XML e-invoice. */
  format?: InvoiceFormat;
  /** Sent as `Idempotency-Key`: a retry with the same key and invoice is answered once and charged once. */
  idempotencyKey?: string;
  /** Cancels the request. */
  signal?: AbortSignal;
}

/** A generated document as the service sent it. */
export interface GeneratedDocument {
  /** The PDF or XML bytes. */
  bytes: Uint8Array;
  /** `application/pdf` or `application/xml; charset=utf-8`. */
  contentType: string;
}

/** A client of one service, authenticated by one key. */
export interface InkClient {
  /** The typed tRPC client of the service's router (`/trpc`). */
  trpc: TRPCClient<AppRouter>;
  /**
   * Generates a document over REST (`POST /generate`) and resolves to its
   * bytes. Throws an {@linkcode InkError} when the service refuses.
   */
  generate(
    invoice: InvoiceRequest,
    options?: GenerateOptions,
  ): Promise<GeneratedDocument>;
}

/**
 * The service answered `POST /generate` with an error: its error body's
 * `code`, `message` and `details`, and the HTTP `status`.
 */
export class InkError extends Error {
  /**
   * The service's error code, or `unexpected_response` when the answer was
   * not the service's error body (e.g. a proxy's error page).
   */
  readonly code: ErrorCode | "unexpected_response";
  /** The HTTP status. */
  readonly status: number;
  /** Per-field problems, for `invalid_request`. */
  readonly details?: ErrorDetail[];
  /** The error body as the service sent it; absent for `unexpected_response`. */
  readonly body?: ErrorBody;
  /** The seconds to wait before a retry, from `Retry-After` (429, 503, 409). */
  readonly retryAfter?: number;

  constructor(
    status: number,
    body: ErrorBody | undefined,
    fallback_message: string,
    retry_after?: number,
  ) {
    super(body?.error.message ?? fallback_message);
    this.name = "InkError";
    this.status = status;
    this.code = body?.error.code ?? "unexpected_response";
    if (body?.error.details) this.details = body.error.details;
    if (body) this.body = body;
    if (retry_after !== undefined) this.retryAfter = retry_after;
  }
}

/** A client of the service at `url` that authenticates with `apiKey`. */
export function createInkClient(options: InkClientOptions): InkClient {
  const base_url = options.url.replace(/\/+$/, "");
  const authorization = `Bearer ${options.apiKey}`;
  const fetch_function = options.fetch ?? globalThis.fetch;
  const trpc = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${base_url}/trpc`,
        headers: { Authorization: authorization },
        fetch: options.fetch,
      }),
    ],
  });

  async function generate(
    invoice: InvoiceRequest,
    generate_options: GenerateOptions = {},
  ): Promise<GeneratedDocument> {
    const { format, idempotencyKey, signal } = generate_options;
    const headers: Record<string, string> = {
      Authorization: authorization,
      "Content-Type": "application/json",
    };
    if (idempotencyKey !== undefined) {
      headers["Idempotency-Key"] = idempotencyKey;
    }
    const response = await fetch_function(`${base_url}/generate`, {
      method: "POST",
      headers,
      body: JSON.stringify(
        format === undefined ? invoice : { ...invoice, format },
      ),
      signal,
    });
    if (!response.ok) throw await error_of(response);
    return {
      bytes: new Uint8Array(await response.arrayBuffer()),
      contentType: response.headers.get("Content-Type") ?? "",
    };
  }

  return { trpc, generate };
}

async function error_of(response: Response): Promise<InkError> {
  const text = await response.text();
  const retry_after = response.headers.get("Retry-After");
  return new InkError(
    response.status,
    error_body_of(text),
    `Unexpected answer ${response.status} ${response.statusText}`.trim(),
    retry_after && /^\d+$/.test(retry_after) ? Number(retry_after) : undefined,
  );
}

function error_body_of(text: string): ErrorBody | undefined {
  try {
    const body = JSON.parse(text);
    const error = body?.error;
    return typeof error?.code === "string" &&
        typeof error?.message === "string"
      ? body as ErrorBody
      : undefined;
  } catch {
    return undefined;
  }
}
