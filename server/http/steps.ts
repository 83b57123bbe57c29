/**
 * The HTTP layer as a chain of small steps around the route table, each
 * with one job: the client address, metrics and the request log, the
 * request id, security headers, CORS, errors, the memory lease. A step gets
 * the request's {@link Exchange} and the rest of the chain.
 *
 * @module
 */
import {
  CONTRACT_VERSION,
  CONTRACT_VERSION_HEADER,
  type ServiceContext,
  to_api_error,
} from "../../contract/mod.ts";
import type { BodyLimits } from "../body.ts";
import {
  address_group,
  type AddressRange,
  resolve_client_address,
} from "../client_address.ts";
import type { MemoryBudget } from "../memory_budget.ts";
import { type Metrics, REJECTION_CODES } from "../metrics.ts";
import { error_code_of, error_response, log_fault } from "./responses.ts";

/** One request as it goes through the chain. */
export interface Exchange {
  request: Request;
  /** Parsed once: routing, CORS, metrics and the log all need the path. */
  url: URL;
  /** The TCP peer's address, if the server told it. */
  peer?: string;
  /**
   * The TCP peer, or behind a trusted proxy the right-most untrusted
   * `X-Forwarded-For` hop (clients forge the rest).
   */
  client_address?: string;
  /** The body limits, with the request's memory lease once it has one. */
  limits: BodyLimits;
  /** The services' view of the request, once a handler made it. */
  service_context?: ServiceContext;
}

/** One step: does its part and calls the rest of the chain (or answers). */
export type Step = (
  exchange: Exchange,
  next: () => Promise<Response>,
) => Promise<Response>;

/** The steps in order, around `last`, as one handler of an exchange. */
export function chain(
  steps: Step[],
  last: (exchange: Exchange) => Promise<Response>,
): (exchange: Exchange) => Promise<Response> {
  return (exchange) => {
    const run = (index: number): Promise<Response> =>
      index === steps.length
        ? last(exchange)
        : steps[index](exchange, () => run(index + 1));
    return run(0);
  };
}

/** Resolves the client address (see {@link Exchange.client_address}). */
export function client_address_step(
  trusted_proxies: AddressRange[],
): Step {
  return (exchange, next) => {
    if (exchange.peer !== undefined) {
      exchange.client_address = resolve_client_address(
        exchange.peer,
        exchange.request.headers.get("x-forwarded-for"),
        { trusted_proxies },
      );
    }
    return next();
  };
}

/** A low-cardinality route label for metrics: never a raw path with ids. */
export function route_template(path: string): string {
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

/** Request and rejection metrics, and one log record per request. */
export function observe_step(options: {
  metrics?: Metrics;
  log?: (record: Record<string, unknown>) => void;
}): Step {
  return async (exchange, next) => {
    const started = performance.now();
    const response = await next();
    const { request, url } = exchange;
    const seconds = (performance.now() - started) / 1000;
    options.metrics?.observe_request(
      route_template(url.pathname),
      response.status,
      seconds,
    );
    const error_code = error_code_of(response);
    if (
      error_code !== undefined &&
      (REJECTION_CODES as readonly string[]).includes(error_code)
    ) {
      options.metrics?.count_rejection(error_code);
    }
    options.log?.({
      time: new Date().toISOString(),
      request_id: response.headers.get("x-request-id"),
      method: request.method,
      path: url.pathname,
      status: response.status,
      account_id: exchange.service_context?.response.account_id ?? null,
      ...(error_code ? { error: error_code } : {}),
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    });
    return response;
  };
}

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/** `X-Request-Id`: the client's, when it is a sane token, or a new one. */
export const request_id_step: Step = async (exchange, next) => {
  const incoming = exchange.request.headers.get("x-request-id");
  const request_id = incoming && REQUEST_ID_PATTERN.test(incoming)
    ? incoming
    : crypto.randomUUID();
  const response = await next();
  response.headers.set("X-Request-Id", request_id);
  return response;
};

const SECURITY_HEADERS: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Content-Security-Policy":
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
};

/** Security headers on every answer that does not set its own. */
export const security_headers_step: Step = async (_exchange, next) => {
  const response = await next();
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    if (!response.headers.has(name)) response.headers.set(name, value);
  }
  return response;
};

/**
 * The contract version on every answer, and on a 401 the Bearer challenge
 * (RFC 6750), saying whether a token was sent and refused.
 */
export const contract_headers_step: Step = async (exchange, next) => {
  const response = await next();
  response.headers.set(CONTRACT_VERSION_HEADER, CONTRACT_VERSION);
  if (
    response.status === 401 && !response.headers.has("WWW-Authenticate")
  ) {
    response.headers.set(
      "WWW-Authenticate",
      exchange.request.headers.has("authorization")
        ? 'Bearer error="invalid_token"'
        : "Bearer",
    );
  }
  return response;
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

const PREFLIGHT_HEADERS = {
  "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, Content-Type, X-Request-Id",
  "Access-Control-Max-Age": "600",
};

/**
 * CORS for the API (`/generate`, `/trpc`) from the allowed origins (`*`
 * for any): preflights answered here, answers marked for the browser.
 */
export function cors_step(origins: string[]): Step {
  function allowed_origin(exchange: Exchange): string | undefined {
    const origin = exchange.request.headers.get("origin");
    const path = exchange.url.pathname;
    if (!origin || origins.length === 0) return undefined;
    if (path !== "/generate" && !path.startsWith("/trpc/")) return undefined;
    if (origins.includes("*")) return "*";
    return origins.includes(origin) ? origin : undefined;
  }
  return async (exchange, next) => {
    const origin = allowed_origin(exchange);
    if (!origin) return await next();
    const response = exchange.request.method === "OPTIONS"
      ? new Response(null, { status: 204, headers: PREFLIGHT_HEADERS })
      : await next();
    response.headers.set("Access-Control-Allow-Origin", origin);
    response.headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    response.headers.append("Vary", "Origin");
    return response;
  };
}

/** Any error the rest of the chain throws, answered in the one error shape. */
export const errors_step: Step = async (_exchange, next) => {
  try {
    return await next();
  } catch (error) {
    log_fault(error);
    return error_response(to_api_error(error));
  }
};

/**
 * The request's memory lease: anonymous until its credentials check out,
 * released when the answer is handed to the HTTP server (a body still
 * arriving for an answered request is cancelled at its next chunk).
 */
export function memory_lease_step(budget: MemoryBudget | undefined): Step {
  return async (exchange, next) => {
    const lease = budget?.anonymous_lease(
      address_group(exchange.client_address ?? ""),
    );
    if (lease) exchange.limits = { ...exchange.limits, lease };
    try {
      return await next();
    } finally {
      lease?.release();
    }
  };
}
