/**
 * The HTTP pipeline: request id, security headers, body limit, routing to
 * `/generate` (binary PDF), the REST face (trpc-to-openapi), `/trpc`, the
 * OpenAPI document and health checks, with one error shape for every failure.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import {
  ApiError,
  app_router,
  CONTRACT_VERSION,
  CONTRACT_VERSION_HEADER,
  create_caller,
  type InvoiceRequest,
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
import {
  address_group,
  type AddressRange,
  resolve_client_address,
} from "./client_address.ts";
import { type MemoryBudget, RAW_BODY_EXPANSION } from "./memory_budget.ts";
import { type Metrics, REJECTION_CODES } from "./metrics.ts";
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

const SECURITY_HEADERS: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Content-Security-Policy":
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
};

const EXPOSED_HEADERS = [
  "Content-Disposition",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "Retry-After",
  "X-Quota-Limit",
  "X-Quota-Remaining",
  "X-Quota-Reset",
  "X-Request-Id",
  "Idempotent-Replayed",
  CONTRACT_VERSION_HEADER,
].join(", ");

// What `/generate` answers to; HEAD (a GET without body) is not among them.
const GENERATE_ALLOW = "POST, OPTIONS";

const PREFLIGHT_HEADERS = {
  "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, Content-Type, X-Request-Id",
  "Access-Control-Max-Age": "600",
};

// trpc-to-openapi reads `request.signal`; ours never aborts mid-procedure.
const never_aborted = new AbortController().signal;

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

// The client address of each request: the TCP peer, or behind a trusted
// proxy the right-most untrusted X-Forwarded-For hop (clients forge the rest).
const client_addresses = new WeakMap<Request, string>();

// The context of each request, so the request log can name the account.
const request_contexts = new WeakMap<Request, ServiceContext>();

// The error code of each error answer, for logs and metrics.
const error_codes = new WeakMap<Response, string>();

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

/**
 * A value produced only once something awaits it. Procedures ask for their
 * input after their credentials middleware, so a body handed over this way
 * is not read at all for a request refused before, and is read with its
 * credentials known otherwise.
 */
function when_awaited<T>(produce: () => Promise<T>): PromiseLike<T> {
  let started: Promise<T> | undefined;
  return {
    then(on_value, on_error) {
      started ??= produce();
      return started.then(on_value, on_error);
    },
  };
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

function error_response(error: ApiError, headers?: Headers): Response {
  const merged = new Headers(headers);
  for (const [name, value] of Object.entries(error.headers)) {
    merged.set(name, value);
  }
  merged.set("Content-Type", "application/json; charset=utf-8");
  merged.delete("Content-Disposition");
  const response = new Response(JSON.stringify(error.to_body()), {
    status: error.status,
    headers: merged,
  });
  error_codes.set(response, error.code);
  return response;
}

/**
 * The response headers with those the thrown errors ask for (`Retry-After`
 * on every 429 and 503, `Allow`), as the REST face's answers carry them.
 */
function with_error_headers(headers: Headers, errors: unknown[]): Headers {
  if (errors.length === 0) return headers;
  const merged = new Headers(headers);
  for (const error of errors) {
    for (const [name, value] of Object.entries(to_api_error(error).headers)) {
      merged.set(name, value);
    }
  }
  return merged;
}

function json_response(
  body: unknown,
  init: { status?: number; headers?: Headers } = {},
): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers,
  });
}

function content_disposition(file_name: string): string {
  return `attachment; filename="${file_name}"; filename*=UTF-8''${
    encodeURIComponent(file_name)
  }`;
}

/** A low-cardinality route label for metrics: never a raw path with ids. */
function route_template(path: string): string {
  if (path.startsWith("/trpc/")) return "/trpc";
  for (
    const fixed of [
      "/generate",
      "/openapi.json",
      "/docs",
      "/healthz",
      "/readyz",
      "/metrics",
      "/billing/stripe/webhook",
    ]
  ) {
    if (path === fixed) return fixed;
  }
  if (path.startsWith("/docs/")) return "/docs";
  if (path.startsWith("/admin/")) return "/admin";
  if (path.startsWith("/account/")) return "/account";
  if (path.startsWith("/dashboard") || path.startsWith("/assets/")) {
    return "/dashboard";
  }
  return "other";
}

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "patch"]);

/** Path patterns of the OpenAPI document with the methods each serves. */
function method_table(
  document: Record<string, unknown>,
): { pattern: RegExp; methods: string[] }[] {
  const paths = (document.paths ?? {}) as Record<string, object>;
  return Object.entries(paths).map(([template, item]) => ({
    pattern: new RegExp(
      `^${
        template.split(/\{[^}]+\}/).map((part) =>
          part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        ).join("[^/]+")
      }/?$`,
    ),
    methods: Object.keys(item).filter((key) => HTTP_METHODS.has(key))
      .map((method) => method.toUpperCase()),
  }));
}

/**
 * A request that carries no body at all (no `Content-Type`, nothing to
 * read): action endpoints such as `POST /admin/keys/{id}/revoke` take their
 * input from the path alone, as `curl -X POST` sends them.
 */
function is_bodyless(request: Request): boolean {
  if (request.headers.has("content-type")) return false;
  const length = request.headers.get("content-length");
  if (length !== null) return length.trim() === "0";
  return request.body === null;
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
  const path_methods = method_table(openapi_document);

  /** The methods the REST face serves on a path (empty: no such path). */
  function allowed_methods(path: string): string[] {
    for (const { pattern, methods } of path_methods) {
      if (pattern.test(path)) return methods;
    }
    return [];
  }
  // The node handler answers errors in its own shape; we keep the thrown
  // error per request and answer in ours.
  const rest_errors = new WeakMap<ServiceContext, unknown>();
  type RequestLike = { service_context: ServiceContext };
  // deno-lint-ignore no-explicit-any
  const rest_handler: any = createOpenApiNodeHttpHandler({
    router: app_router,
    createContext: ({ req }: { req: RequestLike }) => req.service_context,
    responseMeta: ({ ctx }: { ctx?: ServiceContext }) => ({
      status: ctx?.response.status,
      headers: ctx ? Object.fromEntries(ctx.response.headers) : {},
    }),
    onError: ({ error, req }: { error: unknown; req: RequestLike }) => {
      log_fault(error);
      rest_errors.set(req.service_context, error);
    },
    // deno-lint-ignore no-explicit-any
  } as any);

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
    request: Request,
    binary_pdf: boolean,
    limits: BodyLimits,
    admin_path = false,
  ): Promise<ServiceContext> {
    const session = (await options.resolve_session?.(request)) ?? null;
    // A session is known before any body is read, and so is the admin token
    // on the REST face's admin paths (whose bodies are read before the
    // procedure runs); an API key or the admin token over tRPC once the
    // procedure checked it (`credentials_checked`).
    const lease = limits.lease;
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
      binary_pdf,
      origin: options.public_url ?? new URL(request.url).origin,
      accept_language: request.headers.get("accept-language"),
      client_address: client_addresses.get(request),
      credentials_checked: () => lease?.known(),
      response,
      services: options.services,
    };
    request_contexts.set(request, ctx);
    return ctx;
  }

  async function generate(
    request: Request,
    limits: BodyLimits,
  ): Promise<Response> {
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
    const ctx = await context_for(request, true, limits);
    // Read when the procedure parses its input, after the key checked out:
    // a request with a bad key gets its 401 without a byte of body held.
    const body = when_awaited(() => read_json_body(request, limits));
    try {
      const result = await create_caller(ctx).invoice.generate(
        body as unknown as InvoiceRequest,
      );
      // The document is held until the answer is handed over.
      limits.lease?.hold_existing(result.byte_length);
      const headers = ctx.response.headers;
      headers.set("Content-Type", result.content_type);
      headers.set("Content-Disposition", content_disposition(result.file_name));
      headers.set("Cache-Control", "no-store");
      return new Response(owned_bytes(ctx.response.pdf as Uint8Array), {
        status: 200,
        headers,
      });
    } catch (error) {
      log_fault(error);
      return error_response(to_api_error(error), ctx.response.headers);
    }
  }

  async function trpc(
    request: Request,
    url: URL,
    limits: BodyLimits,
  ): Promise<Response> {
    refuse_auth_batches(url);
    check_query_input(request, url);
    const ctx = await context_for(request, false, limits);
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
      throw body_error;
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

  async function rest(
    request: Request,
    url: URL,
    limits: BodyLimits,
  ): Promise<Response> {
    const ctx = await context_for(
      request,
      false,
      limits,
      url.pathname.startsWith("/admin/"),
    );
    let body: unknown = undefined;
    let headers = request.headers;
    if (
      request.method !== "GET" && request.method !== "HEAD" &&
      request.method !== "DELETE"
    ) {
      if (is_bodyless(request)) {
        // No body is an empty input: the path alone, validated as usual.
        body = {};
        headers = new Headers(request.headers);
        headers.set("Content-Type", "application/json");
      } else {
        body = await read_json_body(request, limits);
      }
    }
    // trpc-to-openapi's node handler takes a request-like object; a proxy of
    // the real Request with the already-parsed body keeps the limits ours.
    const request_like = new Proxy(request, {
      get(target, property) {
        if (property === "url") return url.toString();
        if (property === "body") return body;
        if (property === "service_context") return ctx;
        if (property === "signal") return never_aborted;
        if (property === "headers") return headers;
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
      has(target, property) {
        return property === "body" || Reflect.has(target, property);
      },
    });
    let not_found = false;
    const response = await new Promise<Response>((resolve) => {
      let status = 200;
      const headers = new Headers();
      const response_like = {
        setHeader(name: string, value: string | string[]) {
          if (typeof value === "string") headers.set(name, value);
          else for (const item of value) headers.append(name, item);
        },
        get statusCode() {
          return status;
        },
        set statusCode(code: number) {
          status = code;
        },
        end(text?: string) {
          resolve(new Response(text ?? null, { status, headers }));
        },
      };
      const no_route = () => {
        not_found = true;
        resolve(new Response(null, { status: 404 }));
      };
      rest_handler(request_like, response_like, no_route).catch(
        (error: unknown) => {
          rest_errors.set(ctx, error);
          resolve(new Response(null, { status: 500 }));
        },
      );
    });
    if (response.status < 400 && !rest_errors.has(ctx)) return response;
    const allowed = not_found ? allowed_methods(url.pathname) : [];
    const error = allowed.length > 0
      ? new ApiError(
        "method_not_allowed",
        `${request.method} is not allowed on ${url.pathname}; use ${
          allowed.join(" or ")
        }`,
        { headers: { Allow: allowed.join(", ") } },
      )
      : not_found
      ? new ApiError(
        "not_found",
        `No endpoint ${request.method} ${url.pathname}`,
      )
      : rest_errors.get(ctx);
    return error_response(to_api_error(error), ctx.response.headers);
  }

  async function stripe_webhook(
    request: Request,
    handle: NonNullable<AppOptions["stripe_webhook"]>,
    limits: BodyLimits,
  ): Promise<Response> {
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

  function log_fault(error: unknown): void {
    const api_error = to_api_error(error);
    if (api_error.status >= 500 && api_error.code !== "unavailable") {
      console.error(
        "internal error:",
        (api_error.cause as Error)?.stack ?? api_error.cause,
      );
    }
  }

  async function route(
    request: Request,
    url: URL,
    limits: BodyLimits,
  ): Promise<Response> {
    const path = url.pathname;
    if (path === "/generate" || path === "/generate/") {
      return await generate(request, limits);
    }
    if (path.startsWith("/trpc/")) return await trpc(request, url, limits);
    if (path === "/openapi.json" && request.method === "GET") {
      return new Response(openapi_body, {
        headers: { "Content-Type": "application/json; charset=utf-8" },
      });
    }
    if (path === "/billing/stripe/webhook" && options.stripe_webhook) {
      return await stripe_webhook(request, options.stripe_webhook, limits);
    }
    if (path === "/healthz") return json_response({ status: "ok" });
    if (path === "/metrics" && options.metrics) {
      if (
        options.metrics_token &&
        !bearer_matches(request, options.metrics_token)
      ) {
        throw new ApiError(
          "unauthorized",
          "/metrics needs `Authorization: Bearer <METRICS_TOKEN>`",
          { headers: { "WWW-Authenticate": 'Bearer realm="metrics"' } },
        );
      }
      return new Response(options.metrics.render(), {
        headers: { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" },
      });
    }
    if (path === "/readyz") {
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
    if (path === "/docs" || path.startsWith("/docs/")) {
      const docs = await serve_docs(request, url);
      if (docs) return docs;
    }
    const page = await options.serve_dashboard?.(request, url);
    if (page) return page;
    const response = await rest(request, url, limits);
    const api_path = path.startsWith("/admin/") || path.startsWith("/account/");
    if (
      !api_path && response.status === 404 &&
      error_codes.get(response) === "not_found"
    ) {
      // A person who followed a bad link gets a page, not raw JSON.
      return options.not_found_page?.(request) ?? response;
    }
    return response;
  }

  /** The origin to echo in CORS headers, when the API is open to it. */
  function allowed_origin(request: Request, path: string): string | undefined {
    const origin = request.headers.get("origin");
    const origins = options.cors_origins ?? [];
    if (!origin || origins.length === 0) return undefined;
    if (path !== "/generate" && !path.startsWith("/trpc/")) return undefined;
    if (origins.includes("*")) return "*";
    return origins.includes(origin) ? origin : undefined;
  }

  return async function handle(
    request: Request,
    info?: { remoteAddr: Deno.Addr },
  ): Promise<Response> {
    const started = performance.now();
    if (info?.remoteAddr && "hostname" in info.remoteAddr) {
      client_addresses.set(
        request,
        resolve_client_address(
          info.remoteAddr.hostname,
          request.headers.get("x-forwarded-for"),
          { trusted_proxies: options.trusted_proxies ?? [] },
        ),
      );
    }
    const incoming_id = request.headers.get("x-request-id");
    const request_id = incoming_id && REQUEST_ID_PATTERN.test(incoming_id)
      ? incoming_id
      : crypto.randomUUID();
    let response: Response;
    // Parsed once: routing, CORS, metrics and the log all need the path.
    const url = new URL(request.url);
    const cors_origin = allowed_origin(request, url.pathname);
    // Anonymous until the request's credentials check out.
    const lease = options.memory_budget?.anonymous_lease(
      address_group(client_addresses.get(request) ?? ""),
    );
    try {
      response = cors_origin && request.method === "OPTIONS"
        ? new Response(null, { status: 204, headers: PREFLIGHT_HEADERS })
        : await route(
          request,
          url,
          lease ? { ...body_limits, lease } : body_limits,
        );
    } catch (error) {
      log_fault(error);
      response = error_response(to_api_error(error));
    } finally {
      // Handed to the HTTP server: a body still arriving for an answered
      // request is cancelled at its next chunk.
      lease?.release();
    }
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
      if (!response.headers.has(name)) response.headers.set(name, value);
    }
    response.headers.set(CONTRACT_VERSION_HEADER, CONTRACT_VERSION);
    if (
      response.status === 401 && !response.headers.has("WWW-Authenticate")
    ) {
      // RFC 6750: the challenge, and whether a token was sent and refused.
      response.headers.set(
        "WWW-Authenticate",
        request.headers.has("authorization")
          ? 'Bearer error="invalid_token"'
          : "Bearer",
      );
    }
    response.headers.set("X-Request-Id", request_id);
    if (cors_origin) {
      response.headers.set("Access-Control-Allow-Origin", cors_origin);
      response.headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
      response.headers.append("Vary", "Origin");
    }
    const seconds = (performance.now() - started) / 1000;
    const route_label = route_template(url.pathname);
    options.metrics?.observe_request(route_label, response.status, seconds);
    const error_code = error_codes.get(response);
    if (
      error_code !== undefined &&
      (REJECTION_CODES as readonly string[]).includes(error_code)
    ) {
      options.metrics?.count_rejection(error_code);
    }
    options.log?.({
      time: new Date().toISOString(),
      request_id,
      method: request.method,
      path: url.pathname,
      status: response.status,
      account_id: request_contexts.get(request)?.response.account_id ?? null,
      ...(error_code ? { error: error_code } : {}),
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    });
    return response;
  };
}
