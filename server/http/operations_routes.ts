/**
 * The operator's routes: `/metrics`, `/readyz` and the Stripe webhook.
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError } from "../../contract/mod.ts";
import { read_body_bytes } from "../body.ts";
import { RAW_BODY_EXPANSION } from "../memory_budget.ts";
import type { Metrics } from "../metrics.ts";
import { json_response } from "./responses.ts";
import type { Exchange } from "./steps.ts";

/** Handles a Stripe webhook delivery (raw body, `Stripe-Signature`). */
export type StripeWebhook = (
  raw_body: Uint8Array,
  signature: string | null,
) => Promise<unknown>;

/** True when the request's bearer token is `token` (compared in constant time). */
function bearer_matches(request: Request, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(
    request.headers.get("authorization") ?? "",
  );
  if (!match) return false;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}

/** `POST /billing/stripe/webhook`. */
export async function stripe_webhook_route(
  exchange: Exchange,
  handle: StripeWebhook,
): Promise<Response> {
  const { request, limits } = exchange;
  if (request.method !== "POST") {
    throw new ApiError("method_not_allowed", "Stripe sends webhooks by POST", {
      headers: { Allow: "POST" },
    });
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

/** `GET /metrics`, behind `token` when one is set. */
export function metrics_route(
  exchange: Exchange,
  metrics: Metrics,
  token: string | undefined,
): Response {
  if (token && !bearer_matches(exchange.request, token)) {
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

/** `GET /readyz`: ready when `check_ready` (the database check) resolves. */
export async function readyz_route(
  check_ready: (() => Promise<void>) | undefined,
): Promise<Response> {
  try {
    await check_ready?.();
    return json_response({ status: "ready" });
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError("unavailable", "The database is not reachable", {
      headers: { "Retry-After": "5" },
    });
  }
}
