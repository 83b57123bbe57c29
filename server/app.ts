/**
 * The HTTP layer: a chain of small steps (`http/steps.ts`: client address,
 * metrics and log, request id, security and contract headers, CORS, errors,
 * memory lease) around a route table: `/generate` (the document itself), `/trpc`,
 * the OpenAPI document, health checks, metrics, the Stripe webhook, the
 * docs, the dashboard and the REST face (`http/rest_face.ts`), with one
 * error shape for every failure.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import {
  ApiError,
  app_router,
  call_generate,
  type Principal,
  type ResponseSink,
  type ServiceContext,
  type Services,
  type SessionControl,
  to_api_error,
} from "../contract/mod.ts";
import {
  ANONYMOUS_BODY_MAX_BYTES,
  type BodyLimits,
  parse_checked_json,
  read_body_bytes,
  read_checked_json,
  read_json_body,
} from "./body.ts";
import type { AddressRange } from "./client_address.ts";
import { create_rest_face } from "./http/rest_face.ts";
import {
  content_disposition,
  error_code_of,
  error_response,
  json_response,
  log_fault,
  with_error_headers,
} from "./http/responses.ts";
import { type Route, route } from "./http/routes.ts";
import {
  chain,
  client_address_step,
  contract_headers_step,
  cors_step,
  errors_step,
  type Exchange,
  memory_lease_step,
  observe_step,
  request_id_step,
  security_headers_step,
} from "./http/steps.ts";
import { type MemoryBudget, RAW_BODY_EXPANSION } from "./memory_budget.ts";
import type { Metrics } from "./metrics.ts";
import { delivered_bytes } from "./generate/delivery.ts";
import { owned_bytes } from "./owned_bytes.ts";
import { build_openapi_document } from "./openapi.ts";
import { create_docs } from "./docs/mod.ts";

/** What the HTTP layer needs. */
export interface AppOptions {
  services: Services;
  /** Largest accepted request body in bytes (default 1 MiB). */
  max_body_bytes?: number;
  /** Longest a request body may take to arrive, in ms (default 30 s). */
  body_timeout_ms?: number;
  /** Slowest a request body may arrive, in bytes a second (0: no minimum). */
  body_min_bytes_per_second?: number;
  /**
   * Bytes requests in flight may hold (bodies, what parsing them costs,
   * documents not yet handed over); past it, 503. Requests whose
   * credentials have not checked out draw on its anonymous part only.
   * Unset: unbounded.
   */
  memory_budget?: MemoryBudget;
  /**
   * Checks the database for `/readyz`, within its own bound; a rejection
   * that is an `ApiError` is the answer as it is.
   */
  check_ready?: () => Promise<void>;
  /** Resolves the dashboard session from a request (cookie), if any. */
  resolve_session?: (request: Request) => Promise<Principal | null>;
  /** Starts and ends dashboard sessions for a request (`auth.*` procedures). */
  session_control?: (
    request: Request,
    response: ResponseSink,
  ) => SessionControl;
  /** The HTML 404 page for browsers; undefined for API clients. */
  not_found_page?: (request: Request) => Response | undefined;
  /** Serves the dashboard's pages and files; undefined for other paths. */
  serve_dashboard?: (
    request: Request,
    url: URL,
  ) => Promise<Response | undefined>;
  /** Receives one structured record per request. */
  log?: (record: Record<string, unknown>) => void;
  /** Request, latency and rejection metrics, served at `/metrics`. */
  metrics?: Metrics;
  /** Proxies whose `X-Forwarded-For` is believed for the client address. */
  trusted_proxies?: AddressRange[];
  /** Bearer token `/metrics` asks for; unset: open. */
  metrics_token?: string;
  /** Origins allowed to call the API from browsers; `*` for any. Default: none. */
  cors_origins?: string[];
  /** Handles a Stripe webhook delivery (raw body, `Stripe-Signature`); unset: billing is off (404). */
  stripe_webhook?: (
    raw_body: Uint8Array,
    signature: string | null,
  ) => Promise<unknown>;
  /** The public origin for links back to the dashboard; default: each request's own. */
  public_url?: string;
}

/** A request handler for `Deno.serve`. */
export type Handler = (
  request: Request,
  info?: { remoteAddr: Deno.Addr },
) => Promise<Response>;

// What `/generate` answers to; HEAD (a GET without body) is not among them.
const GENERATE_ALLOW = "POST, OPTIONS";

/**
 * A tRPC batch may not carry `auth.*` calls: each sign-up or sign-in costs a
 * password hash, and the per-request limits must see every one.
 */
function refuse_auth_batches(url: URL): void {
  if (!url.searchParams.has("batch")) return;
  let names = url.pathname.slice("/trpc/".length);
  try {
    names = decodeURIComponent(names);
  } catch {
    // Left encoded: a malformed name is no procedure, auth or otherwise.
  }
  const procedures = names.split(",");
  if (procedures.some((name) => name.trim().startsWith("auth."))) {
    throw new ApiError(
      "invalid_request",
      "auth.* procedures cannot be batched; send each as its own request",
    );
  }
}

/**
 * tRPC reads a query's input from `?input=`: it gets the same JSON checks
 * (depth, syntax, duplicate keys) and answers as a body.
 */
function check_query_input(request: Request, url: URL): void {
  if (request.method !== "GET") return;
  const input = url.searchParams.get("input");
  if (input) parse_checked_json(input, "The input query parameter");
}

const text_encoder = new TextEncoder();

/** True when the request's bearer token is `token` (compared in constant time). */
function bearer_matches(request: Request, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(
    request.headers.get("authorization") ?? "",
  );
  if (!match) return false;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}

/** Creates the request handler. */
export function create_app(options: AppOptions): Handler {
  const body_limits: BodyLimits = {
    max_bytes: options.max_body_bytes ?? 1024 * 1024,
    anonymous_max_bytes: ANONYMOUS_BODY_MAX_BYTES,
    timeout_ms: options.body_timeout_ms ?? 30_000,
    min_bytes_per_second: options.body_min_bytes_per_second ?? 0,
  };
  const serve_docs = create_docs();
  const openapi_document = build_openapi_document();
  const openapi_body = JSON.stringify(openapi_document);
  const rest = create_rest_face({
    openapi_document,
    context_for: (exchange, admin_path) =>
      context_for(exchange, false, admin_path),
  });

  /** True when the request carries the operator's admin token. */
  function has_admin_token(request: Request): boolean {
    const authorization = request.headers.get("authorization");
    if (!authorization) return false;
    try {
      options.services.authenticate_admin(authorization);
      return true;
    } catch {
      return false;
    }
  }

  async function context_for(
    exchange: Exchange,
    binary_document: boolean,
    admin_path = false,
  ): Promise<ServiceContext> {
    const { request } = exchange;
    const session = (await options.resolve_session?.(request)) ?? null;
    // A session is known before any body is read, and so is the admin token
    // on the REST face's admin paths (whose bodies are read before the
    // procedure runs); an API key or the admin token over tRPC once the
    // procedure checked it (`credentials_checked`).
    const lease = exchange.limits.lease;
    if (session || (admin_path && has_admin_token(request))) lease?.known();
    const response: ResponseSink = {
      headers: new Headers(),
      account_id: session?.account.id,
    };
    const ctx: ServiceContext = {
      authorization: request.headers.get("authorization"),
      idempotency_key: request.headers.get("idempotency-key"),
      session,
      session_control: options.session_control?.(request, response),
      binary_document,
      origin: options.public_url ?? new URL(request.url).origin,
      accept_language: request.headers.get("accept-language"),
      client_address: exchange.client_address,
      credentials_checked: () => lease?.known(),
      response,
      services: options.services,
    };
    exchange.service_context = ctx;
    return ctx;
  }

  async function generate(exchange: Exchange): Promise<Response> {
    const { request, limits } = exchange;
    if (request.method === "OPTIONS") {
      // Not a CORS preflight (those are answered before routing): say what
      // this endpoint accepts.
      return new Response(null, {
        status: 204,
        headers: { Allow: GENERATE_ALLOW },
      });
    }
    if (request.method !== "POST") {
      // HEAD is "GET without the body", and GET is not served here either.
      throw new ApiError("method_not_allowed", "Use POST /generate", {
        headers: { Allow: GENERATE_ALLOW },
      });
    }
    const ctx = await context_for(exchange, true);
    try {
      // The body is read when the procedure parses its input, after the key
      // checked out: a request with a bad key gets its 401 without a byte of
      // body held.
      const result = await call_generate(
        ctx,
        () => read_json_body(request, limits),
      );
      // The document is held until the answer is handed over.
      limits.lease?.hold_existing(result.byte_length);
      const headers = ctx.response.headers;
      headers.set("Content-Type", result.content_type);
      headers.set("Content-Disposition", content_disposition(result.file_name));
      headers.set("Cache-Control", "no-store");
      const bytes = owned_bytes(ctx.response.document as Uint8Array);
      const delivery = ctx.response.delivery;
      if (!delivery) return new Response(bytes, { status: 200, headers });
      // Chunked, without Content-Length: the server then pulls the body to
      // its end, so that pull can say the document was delivered.
      return new Response(delivered_bytes(bytes, delivery), {
        status: 200,
        headers,
      });
    } catch (error) {
      await ctx.response.delivery?.undelivered();
      log_fault(error);
      return error_response(to_api_error(error), ctx.response.headers);
    }
  }

  async function trpc(exchange: Exchange): Promise<Response> {
    const { request, url, limits } = exchange;
    refuse_auth_batches(url);
    check_query_input(request, url);
    const ctx = await context_for(exchange, false);
    // The same body checks as every JSON entry point, made when a procedure
    // asks for its input (after its credentials middleware); it gets the
    // checked text in a fresh Request, whose signal is not the connection's
    // (Deno aborts that one after every response). A body that fails them
    // is answered like any other entry point's.
    let body_error: unknown;
    const body = request.body
      ? new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const checked = await read_checked_json(request, limits, {
              allow_empty: true,
            });
            if (checked) controller.enqueue(text_encoder.encode(checked.text));
            controller.close();
          } catch (error) {
            body_error = error;
            controller.error(error);
          }
        },
      }, { highWaterMark: 0 })
      : undefined;
    const forwarded = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body,
    });
    const response = await fetchRequestHandler({
      endpoint: "/trpc",
      req: forwarded,
      router: app_router,
      createContext: () => ctx,
      responseMeta: ({ errors }) => ({
        headers: with_error_headers(ctx.response.headers, errors),
      }),
      onError: ({ error }) => {
        if (body_error === undefined) log_fault(error);
      },
    });
    if (body_error !== undefined) {
      await response.body?.cancel();
      await ctx.response.delivery?.undelivered();
      throw body_error;
    }
    const delivery = ctx.response.delivery;
    if (delivery && response.status !== 200) {
      // The document was made but the answer is an error: not delivered.
      await delivery.undelivered();
    } else if (delivery) {
      // A generated document: charged once the answer was delivered.
      const bytes = new Uint8Array(await response.arrayBuffer());
      const headers = new Headers(response.headers);
      headers.delete("Content-Length");
      return new Response(delivered_bytes(bytes, delivery), {
        status: response.status,
        headers,
      });
    }
    if (response.status === 405) {
      // Queries are read by GET, mutations sent by POST.
      const name = new URL(request.url).pathname.slice("/trpc/".length);
      // deno-lint-ignore no-explicit-any
      const procedure = (app_router._def.procedures as any)[name];
      response.headers.set(
        "Allow",
        procedure?._def?.type === "query" ? "GET" : "POST",
      );
    }
    return response;
  }

  async function stripe_webhook(
    exchange: Exchange,
    handle: NonNullable<AppOptions["stripe_webhook"]>,
  ): Promise<Response> {
    const { request, limits } = exchange;
    if (request.method !== "POST") {
      throw new ApiError(
        "method_not_allowed",
        "Stripe sends webhooks by POST",
        {
          headers: { Allow: "POST" },
        },
      );
    }
    // The signature covers the exact bytes, so the body is never re-encoded.
    // Anonymous until the signature checks out; Stripe retries a 503.
    const raw = await read_body_bytes(request, {
      ...limits,
      anonymous_max_bytes: undefined,
      expansion: RAW_BODY_EXPANSION,
    });
    const outcome = await handle(raw, request.headers.get("stripe-signature"));
    return json_response(outcome);
  }

  function metrics(exchange: Exchange, metrics: Metrics): Response {
    if (
      options.metrics_token &&
      !bearer_matches(exchange.request, options.metrics_token)
    ) {
      throw new ApiError(
        "unauthorized",
        "/metrics needs `Authorization: Bearer <METRICS_TOKEN>`",
        { headers: { "WWW-Authenticate": 'Bearer realm="metrics"' } },
      );
    }
    return new Response(metrics.render(), {
      headers: { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" },
    });
  }

  async function readyz(): Promise<Response> {
    try {
      await options.check_ready?.();
      return json_response({ status: "ready" });
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError("unavailable", "The database is not reachable", {
        headers: { "Retry-After": "5" },
      });
    }
  }

  /** The REST face; a person who followed a bad link gets a page, not JSON. */
  async function rest_or_page(exchange: Exchange): Promise<Response> {
    const response = await rest(exchange);
    const path = exchange.url.pathname;
    const api_path = path.startsWith("/admin/") || path.startsWith("/account/");
    if (
      !api_path && response.status === 404 &&
      error_code_of(response) === "not_found"
    ) {
      return options.not_found_page?.(exchange.request) ?? response;
    }
    return response;
  }

  // The route table, in order: the first route whose path matches and
  // whose handler answers (docs and dashboard may pass) serves the request.
  const routes: Route[] = [
    {
      path: (path) => path === "/generate" || path === "/generate/",
      handle: generate,
    },
    { path: (path) => path.startsWith("/trpc/"), handle: trpc },
    {
      path: (path) => path === "/openapi.json",
      method: "GET",
      handle: () =>
        new Response(openapi_body, {
          headers: { "Content-Type": "application/json; charset=utf-8" },
        }),
    },
    {
      path: (path) =>
        path === "/billing/stripe/webhook" && !!options.stripe_webhook,
      handle: (exchange) => stripe_webhook(exchange, options.stripe_webhook!),
    },
    {
      path: (path) => path === "/healthz",
      handle: () => json_response({ status: "ok" }),
    },
    {
      path: (path) => path === "/metrics" && !!options.metrics,
      handle: (exchange) => metrics(exchange, options.metrics!),
    },
    { path: (path) => path === "/readyz", handle: readyz },
    {
      path: (path) => path === "/docs" || path.startsWith("/docs/"),
      handle: ({ request, url }) => serve_docs(request, url),
    },
    {
      path: () => options.serve_dashboard !== undefined,
      handle: ({ request, url }) => options.serve_dashboard!(request, url),
    },
    { path: () => true, handle: rest_or_page },
  ];

  const handle_exchange = chain([
    client_address_step(options.trusted_proxies ?? []),
    observe_step({ metrics: options.metrics, log: options.log }),
    request_id_step,
    security_headers_step,
    contract_headers_step,
    cors_step(options.cors_origins ?? []),
    errors_step,
    memory_lease_step(options.memory_budget),
  ], (exchange) => route(routes, exchange));

  return function handle(
    request: Request,
    info?: { remoteAddr: Deno.Addr },
  ): Promise<Response> {
    return handle_exchange({
      request,
      url: new URL(request.url),
      peer: info?.remoteAddr && "hostname" in info.remoteAddr
        ? info.remoteAddr.hostname
        : undefined,
      limits: body_limits,
    });
  };
}
