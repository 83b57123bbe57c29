/**
 * The HTTP layer: a chain of small steps (`http/steps.ts`: client address,
 * metrics and log, request id, security and contract headers, CORS, errors,
 * memory lease) around a route table: `/generate` (the document itself), `/trpc`,
 * the OpenAPI document, health checks, metrics, the Stripe webhook, the
 * docs, the dashboard and the REST face (`http/rest_face.ts`), with one
 * error shape for every failure.
 */
import { ANONYMOUS_BODY_MAX_BYTES, type BodyLimits } from "./body.ts";
import type { AddressRange } from "./client_address.ts";
import { create_docs } from "./docs/mod.ts";
import { generate_route } from "./http/generate_route.ts";
import {
  metrics_route,
  readyz_route,
  stripe_webhook_route,
  type StripeWebhook,
} from "./http/operations_routes.ts";
import { create_rest_face } from "./http/rest_face.ts";
import { error_code_of, json_response } from "./http/responses.ts";
import { type Route, route } from "./http/routes.ts";
import {
  type ContextFor,
  type ContextOptions,
  create_context_for,
} from "./http/service_context.ts";
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
import { trpc_route } from "./http/trpc_route.ts";
import type { MemoryBudget } from "./memory_budget.ts";
import type { Metrics } from "./metrics.ts";
import { build_openapi_document } from "./openapi.ts";

/** What the HTTP layer needs. */
export interface AppOptions extends ContextOptions {
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
  stripe_webhook?: StripeWebhook;
}

/** A request handler for `Deno.serve`. */
export type Handler = (
  request: Request,
  info?: { remoteAddr: Deno.Addr },
) => Promise<Response>;

/** The REST face; a person who followed a bad link gets a page, not JSON. */
function rest_or_page(
  options: AppOptions,
  context_for: ContextFor,
  openapi_document: ReturnType<typeof build_openapi_document>,
): (exchange: Exchange) => Promise<Response> {
  const rest = create_rest_face({
    openapi_document,
    context_for: (exchange, admin_path) =>
      context_for(exchange, false, admin_path),
  });
  return async (exchange) => {
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
  };
}

/**
 * The route table, in order: the first route whose path matches and whose
 * handler answers (docs and dashboard may pass) serves the request.
 */
function route_table(options: AppOptions, context_for: ContextFor): Route[] {
  const serve_docs = create_docs();
  const openapi_document = build_openapi_document();
  const openapi_body = JSON.stringify(openapi_document);
  return [
    {
      path: (path) => path === "/generate" || path === "/generate/",
      handle: generate_route(context_for),
    },
    {
      path: (path) => path.startsWith("/trpc/"),
      handle: trpc_route(context_for),
    },
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
      handle: (exchange) =>
        stripe_webhook_route(exchange, options.stripe_webhook!),
    },
    {
      path: (path) => path === "/healthz",
      handle: () => json_response({ status: "ok" }),
    },
    {
      path: (path) => path === "/metrics" && !!options.metrics,
      handle: (exchange) =>
        metrics_route(exchange, options.metrics!, options.metrics_token),
    },
    {
      path: (path) => path === "/readyz",
      handle: () => readyz_route(options.check_ready),
    },
    {
      path: (path) => path === "/docs" || path.startsWith("/docs/"),
      handle: ({ request, url }) => serve_docs(request, url),
    },
    {
      path: () => options.serve_dashboard !== undefined,
      handle: ({ request, url }) => options.serve_dashboard!(request, url),
    },
    {
      path: () => true,
      handle: rest_or_page(options, context_for, openapi_document),
    },
  ];
}

/** Creates the request handler. */
export function create_app(options: AppOptions): Handler {
  const body_limits: BodyLimits = {
    max_bytes: options.max_body_bytes ?? 1024 * 1024,
    anonymous_max_bytes: ANONYMOUS_BODY_MAX_BYTES,
    timeout_ms: options.body_timeout_ms ?? 30_000,
    min_bytes_per_second: options.body_min_bytes_per_second ?? 0,
  };
  const routes = route_table(options, create_context_for(options));

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
