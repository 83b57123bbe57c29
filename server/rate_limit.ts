/**
 * The service's rate limits outside the API key's per-minute one: sign-up,
 * sign-in, password resets, address changes, sign-up notices and previews.
 * Each is a sliding window over the shared counters in `db/rate_limits.ts`,
 * the same arithmetic as the API key's limit, so no limit doubles at a
 * window boundary. A refusal is a 429 `rate_limited` whose `Retry-After` is
 * the true wait.
 *
 * @module
 */
import { ApiError } from "../contract/mod.ts";
import * as store from "../db/mod.ts";
import { address_group } from "./client_address.ts";

/** At most `limit` events in any `window_seconds`, counted per `bucket`. */
export interface RateLimit {
  bucket: string;
  limit: number;
  window_seconds: number;
}

/**
 * The bucket of a limit counted per client address, `kind:address[:…]`:
 * an IPv4 address by itself, an IPv6 address by its /64 (one subscriber's
 * usual allocation, which it can fill with addresses at will).
 */
export function address_bucket(
  kind: string,
  address: string,
  ...rest: string[]
): string {
  return [kind, address_group(address), ...rest].join(":");
}

/**
 * Counts one event if it fits; otherwise returns the seconds until it would
 * (whole seconds, at least 1) and counts nothing.
 */
export async function take_rate_limit(
  database: store.Database,
  limit: RateLimit,
  now: Date,
): Promise<{ allowed: true } | { allowed: false; retry_after: number }> {
  const { allowed, window } = await store.take_sliding_window(database, {
    ...limit,
    now,
  });
  if (allowed) return { allowed: true };
  const wait_ms = store.sliding_window_wait_ms(window, { now, needed: 1 });
  return {
    allowed: false,
    retry_after: Math.max(1, Math.ceil(wait_ms / 1000)),
  };
}

/**
 * Counts one event, or throws a 429 `rate_limited` with `Retry-After`:
 * "`refusal`; try again in …".
 */
export async function enforce_rate_limit(
  database: store.Database,
  limit: RateLimit & { refusal: string },
  now: Date,
): Promise<void> {
  const taken = await take_rate_limit(database, limit, now);
  if (taken.allowed) return;
  throw new ApiError(
    "rate_limited",
    `${limit.refusal}; try again in ${wait_text(taken.retry_after)}`,
    { headers: { "Retry-After": String(taken.retry_after) } },
  );
}

/** A wait in the unit a person reads best: seconds, minutes or hours (rounded up). */
export function wait_text(seconds: number): string {
  if (seconds < 120) return `${seconds} seconds`;
  if (seconds < 2 * 3600) return `${Math.ceil(seconds / 60)} minutes`;
  return `${Math.ceil(seconds / 3600)} hours`;
}
