/**
 * The render stage: a document rendered within its account's limits. Every
 * render's own time counts against the account's render-seconds a minute,
 * however it ended; a document whose render timed out on a warm worker is
 * refused for an hour, and an account whose distinct documents timed out
 * {@linkcode TIMEOUTS_PER_HOUR} times renders nothing for the rest of that
 * hour (timed-out renders are not charged, so they must not be free to
 * repeat). A timeout on a cold worker (its first render) pauses nothing:
 * that is the service's slowness, not the document's. Both memories are
 * per instance: a timeout costs the instance that ran it.
 *
 * @module
 */
import {
  ApiError,
  type Invoice,
  INVOICE_FORMAT_TABLE,
  type InvoiceFormat,
  type RenderedDocument,
} from "../../contract/mod.ts";
import { sha256_hex } from "./request_hash.ts";
import {
  check_page_budget,
  estimate_document,
  EXPENSIVE_RENDER_MS,
  PageLimitError,
} from "../pdf/page_budget.ts";
import { RenderBudget } from "../render_budget.ts";
import type { RenderOptions } from "../render_options.ts";
import { RenderTimeoutError } from "../render_pool.ts";
import type { RenderDocument } from "../services/context.ts";

/** Renders a document within its account's limits (see the module). */
export type GuardedRender = (
  invoice: Invoice,
  options?: RenderOptions,
) => Promise<RenderedDocument>;

/** Default render-seconds an account may use a minute. */
export const RENDER_SECONDS_PER_MINUTE = 30;
/**
 * Distinct documents of one account that may time out (on warm workers) in
 * an hour before its renders pause.
 */
export const TIMEOUTS_PER_HOUR = 3;
/** How long a timed-out render is remembered. */
const TIMEOUT_MEMORY_MS = 60 * 60 * 1000;
// Bound on the timed-out documents remembered; past it, they and the
// accounts' timeout counts are forgotten.
const TIMED_OUT_DOCUMENTS_LIMIT = 10_000;

function page_limit_error(error: PageLimitError): ApiError {
  return new ApiError("invalid_request", error.message, {
    details: [{ path: "items", message: error.message }],
  });
}

/** Refuses (400) an invoice whose pages surely exceed the limit, before any work. */
export function check_document_cost(invoice: Invoice): void {
  try {
    check_page_budget(invoice);
  } catch (error) {
    if (error instanceof PageLimitError) throw page_limit_error(error);
    throw error;
  }
}

/**
 * A file name safe in any header or file system, from the invoice number,
 * with the format's extension (`.pdf` for the PDF and Factur-X, `.xml` for
 * the XML formats).
 */
export function document_file_name(
  invoice_number: string,
  format: InvoiceFormat = "pdf",
): string {
  const safe = invoice_number.normalize("NFKD").replace(
    /[^A-Za-z0-9._-]+/g,
    "_",
  )
    .replace(/^[._]+|[._]+$/g, "").slice(0, 80);
  return `invoice-${safe || "document"}.${
    INVOICE_FORMAT_TABLE[format].extension
  }`;
}

/** Per account: which documents timed out lately, and when. */
class TimeoutMemory {
  // `account:document hash` → until when it is refused.
  #documents = new Map<string, number>();
  // Per account: when each distinct document last timed out.
  #accounts = new Map<string, Map<string, number>>();

  constructor(private readonly now: () => number) {}

  /** True when the account had a timeout lately (its documents are then hashed). */
  has(account_id: string): boolean {
    return this.#accounts.has(account_id);
  }

  remember(account_id: string, key: string): void {
    const at = this.now();
    if (this.#documents.size >= TIMED_OUT_DOCUMENTS_LIMIT) {
      this.#documents.clear();
      this.#accounts.clear();
    }
    this.#documents.set(key, at + TIMEOUT_MEMORY_MS);
    const documents = this.#recent(account_id, at);
    documents.set(key, at);
    this.#accounts.set(account_id, documents);
  }

  /** Throws the 400 or 429 that a recent timeout calls for. */
  refuse(account_id: string, key: string): void {
    const at = this.now();
    const until = this.#documents.get(key);
    if (until !== undefined && until > at) {
      throw new ApiError(
        "invalid_request",
        "This invoice took longer than the render limit less than an hour ago and is refused until " +
          `${new Date(until).toISOString()}; make it shorter or split it`,
      );
    }
    const documents = this.#recent(account_id, at);
    if (documents.size === 0) this.#accounts.delete(account_id);
    if (documents.size >= TIMEOUTS_PER_HOUR) {
      const first = Math.min(...documents.values());
      const wait = Math.ceil((first + TIMEOUT_MEMORY_MS - at) / 1000);
      throw new ApiError(
        "rate_limited",
        `${documents.size} of this account's invoices timed out in the last hour; rendering resumes in ${wait} seconds`,
        { headers: { "Retry-After": String(wait) } },
      );
    }
  }

  #recent(account_id: string, at: number): Map<string, number> {
    const documents = this.#accounts.get(account_id) ?? new Map();
    for (const [key, when] of documents) {
      if (when <= at - TIMEOUT_MEMORY_MS) documents.delete(key);
    }
    return documents;
  }
}

/** What the render stage needs. */
export interface GuardedRenderOptions {
  render_document: RenderDocument;
  now: () => Date;
  /** Render-seconds an account may use a minute (default {@linkcode RENDER_SECONDS_PER_MINUTE}). */
  render_seconds_per_minute?: number;
  /** Told how long each render took, in seconds (metrics). */
  on_render?: (seconds: number) => void;
}

/** The render stage (see the module). */
export function create_guarded_render(
  options: GuardedRenderOptions,
): GuardedRender {
  const clock = () => options.now().getTime();
  const budget = new RenderBudget(
    options.render_seconds_per_minute ?? RENDER_SECONDS_PER_MINUTE,
    clock,
  );
  const timeouts = new TimeoutMemory(clock);

  return async function render(invoice, render_options = {}) {
    const format = render_options.format ?? "pdf";
    const started = performance.now();
    const account_id = render_options.account_id;
    // Hashing the document only for accounts that had a timeout lately.
    const document_key = () =>
      `${account_id}:${sha256_hex(JSON.stringify(invoice))}`;
    if (account_id) {
      budget.check(account_id);
      if (timeouts.has(account_id)) {
        timeouts.refuse(account_id, document_key());
      }
    }
    let render_seconds: number | undefined;
    let bytes: Uint8Array;
    try {
      bytes = await options.render_document(invoice, {
        ...render_options,
        expensive: estimate_document(invoice).cost_ms >= EXPENSIVE_RENDER_MS,
        on_render_time: (seconds) => {
          render_seconds = seconds;
        },
      });
    } catch (error) {
      // Rendered on this thread: the renderer's own page-limit stop.
      if (error instanceof PageLimitError) throw page_limit_error(error);
      if (error instanceof RenderTimeoutError && error.warm && account_id) {
        timeouts.remember(account_id, document_key());
      }
      throw error;
    } finally {
      if (account_id) {
        budget.charge(
          account_id,
          render_seconds ?? (performance.now() - started) / 1000,
        );
      }
    }
    options.on_render?.((performance.now() - started) / 1000);
    return {
      file_name: document_file_name(invoice.invoice_number, format),
      bytes,
      content_type: INVOICE_FORMAT_TABLE[format].content_type,
    };
  };
}
