/**
 * What every procedure of the router is built from: the tRPC instance, the
 * procedure kinds (any caller, a dashboard session, the operator) and the
 * error answers the OpenAPI document lists for them.
 *
 * @module
 */
import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { Principal, ServiceContext, SessionControl } from "../context.ts";
import { ApiError } from "../errors.ts";
import { to_api_error, to_trpc_error } from "../trpc_errors.ts";

/** The tRPC instance every router and procedure is made with. */
export const t = initTRPC.context<ServiceContext>().meta<OpenApiMeta>().create({
  // Otherwise tRPC writes each error's stack into the shape the formatter
  // below then drops, and formatting a stack (every frame mapped to its
  // TypeScript source) costs a refused request about 0.1 ms.
  isDev: false,
  errorFormatter({ shape, error }) {
    // tRPC clients need tRPC's envelope (numeric code); our code, details and
    // HTTP status travel in `data`. Stack traces never leave the server.
    const api_error = to_api_error(error);
    return {
      code: shape.code,
      message: api_error.message,
      data: {
        code: api_error.code,
        http_status: api_error.status,
        ...(api_error.details ? { details: api_error.details } : {}),
      },
    };
  },
});

/** Every failure leaves a procedure as a `TRPCError` that carries our `ApiError`. */
export const base = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw to_trpc_error(to_api_error(result.error));
  return result;
});

/** A procedure for a signed-in dashboard session (`ctx.principal`). */
export const session_procedure = base.use(({ ctx, next }) => {
  if (!ctx.session) {
    throw new ApiError("unauthorized", "Sign in to the dashboard first");
  }
  return next({ ctx: { principal: ctx.session as Principal } });
});

/** A procedure for the operator's admin token. */
export const admin_procedure = base.use(({ ctx, next }) => {
  ctx.services.authenticate_admin(ctx.authorization);
  ctx.credentials_checked?.();
  return next();
});

/** The server's dashboard sessions; a 404 on a server without them. */
export function session_control_of(ctx: ServiceContext): SessionControl {
  if (!ctx.session_control) {
    throw new ApiError("not_found", "This server has no dashboard sign-in");
  }
  return ctx.session_control;
}

/** What each error status means, for the OpenAPI document. */
export const ERROR_RESPONSES = {
  400:
    "Invalid JSON or fields (`invalid_request`), with per-field details; JSON nested deeper than 64 levels (`json_too_deep`).",
  401: "Missing, malformed or unknown credentials (`unauthorized`).",
  404: "Not found, or the feature is off on this server (`not_found`).",
  403:
    "Revoked key (`key_revoked`), inactive subscription (`subscription_inactive`), monthly limit used up (`quota_exceeded`) or the test keys' monthly documents used up (`test_limit_reached`).",
  408:
    "The request body did not arrive in time, or arrived too slowly (`request_timeout`).",
  409:
    "The first request with this `Idempotency-Key` is still running (`idempotency_in_progress`); retry after `Retry-After` seconds.",
  422:
    "This `Idempotency-Key` was used with a different body (`idempotency_key_reused`); use a new key.",
  413: "Request body over 1 MiB (`payload_too_large`).",
  429: "Rate limit hit (`rate_limited`); retry after `Retry-After` seconds.",
  500: "Unexpected fault (`internal`); safe to retry.",
  503: "Temporarily unavailable (`unavailable`); retry after `Retry-After`.",
};

/** The 403 of a live key for an account whose address is not confirmed. */
export const UNVERIFIED_ADDRESS =
  "The account's e-mail address is not confirmed yet (`forbidden`); live keys need a confirmed address.";

/** The 404 of an admin procedure for an unknown account. */
export const UNKNOWN_ACCOUNT =
  "No account has this id, or the server has no `ADMIN_TOKEN` (`not_found`).";

/** The 404 for an unknown key. */
export const UNKNOWN_KEY = "No API key with this id (`not_found`).";

/** The descriptions of these error statuses. */
export function pick_errors(codes: (keyof typeof ERROR_RESPONSES)[]) {
  return Object.fromEntries(codes.map((code) => [code, ERROR_RESPONSES[code]]));
}

/** An answer carrying a secret (a new key, the CSRF token): no cache keeps it. */
export function no_store(ctx: ServiceContext): void {
  ctx.response.headers.set("Cache-Control", "no-store");
}

/** The OpenAPI tags of the operator's and the account's operations. */
export const ADMIN_TAGS = ["admin"];
export const ACCOUNT_TAGS = ["account"];
