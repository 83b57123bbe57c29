/**
 * Rate-limit counters shared by all app instances: fixed windows
 * ({@linkcode hit_rate_limit}), and the arithmetic of the sliding window the
 * API keys' per-minute limit uses (counted in `authenticate_api_key`).
 *
 * @module
 */
import { sql } from "drizzle-orm";
import type { Database } from "./database.ts";
import { count_deleted, query_rows, to_number } from "./_util.ts";

/** Input for {@linkcode hit_rate_limit}. */
export interface HitRateLimitInput {
  /** Counter key, e.g. `signin:<email>` or `account:<uuid>`. */
  bucket: string;
  /** Time of the request. */
  now: Date;
  /** Window length; windows are aligned to multiples of it since the epoch. */
  window_seconds: number;
}

/** Counter state after a hit. */
export interface RateLimitHit {
  /** Hits in the current window, this one included. */
  count: number;
  /** When the current window ends. */
  reset_at: Date;
}

/**
 * Counts one hit in the bucket's current window (one upsert statement) and
 * returns the new count. Deciding whether `count` is over the limit is the
 * caller's job.
 */
export async function hit_rate_limit(
  database: Database,
  input: HitRateLimitInput,
): Promise<RateLimitHit> {
  if (!(input.window_seconds > 0)) {
    throw new RangeError("window_seconds must be positive");
  }
  // The window is computed here rather than with date_trunc so that any
  // window length works and the session time zone cannot shift it.
  const window_ms = Math.round(input.window_seconds * 1000);
  const start = Math.floor(input.now.getTime() / window_ms) * window_ms;
  const rows = await query_rows<{ count: number | string }>(
    database,
    sql`
      insert into rate_limit_windows as w (bucket, window_start, count)
      values (${input.bucket}, ${new Date(start).toISOString()}::timestamptz, 1)
      on conflict (bucket, window_start) do update set count = w.count + 1
      returning w.count
    `,
  );
  return {
    count: to_number(rows[0]!.count),
    reset_at: new Date(start + window_ms),
  };
}

/** Deletes windows that started before `before`; returns how many. */
export async function prune_rate_limit_windows(
  database: Database,
  before: Date,
): Promise<number> {
  return await count_deleted(
    database,
    sql`delete from rate_limit_windows
      where window_start < ${before.toISOString()}::timestamptz returning 1`,
  );
}

/**
 * A sliding window over two fixed windows: the requests counted in the
 * previous window weigh by the share of it still inside the sliding window,
 * so the limit cannot double at a window boundary.
 */
export interface SlidingWindow {
  /** Requests allowed per `window_seconds`. */
  limit: number;
  /** Requests counted in the previous fixed window. */
  previous: number;
  /** Requests counted in the current fixed window (this one, if allowed). */
  current: number;
  /** Start of the current fixed window. */
  window_start: Date;
  /** Window length. */
  window_seconds: number;
}

/** Fixed window containing `now`, aligned to multiples of its length since the epoch. */
export function window_start_of(now: Date, window_seconds: number): Date {
  const window_ms = Math.round(window_seconds * 1000);
  return new Date(Math.floor(now.getTime() / window_ms) * window_ms);
}

/**
 * Weight of the previous window's count at `now`: the share of the previous
 * window still inside the sliding window ending at `now` (1 at the start of
 * the current window, falling to 0 at its end).
 */
export function previous_window_weight(
  now: Date,
  window_seconds: number,
): number {
  const window_ms = Math.round(window_seconds * 1000);
  const start = window_start_of(now, window_seconds).getTime();
  return 1 - (now.getTime() - start) / window_ms;
}

/** Requests the sliding window ending at `now` counts. */
export function sliding_window_used(window: SlidingWindow, now: Date): number {
  return window.previous *
      previous_window_weight(now, window.window_seconds) + window.current;
}

/** Requests that can still be made at `now` (whole ones, at least 0). */
export function sliding_window_remaining(
  window: SlidingWindow,
  now: Date,
): number {
  // The small tolerance keeps float rounding from losing a whole request.
  const left = Math.floor(
    window.limit - sliding_window_used(window, now) + 1e-9,
  );
  return Math.max(0, Math.min(window.limit, left));
}

/**
 * Milliseconds from `now` until the window has room for `needed` more
 * requests, if no other request is counted meanwhile (whole milliseconds,
 * rounded up); Infinity when `needed` exceeds the limit.
 */
export function sliding_window_wait_ms(
  window: SlidingWindow,
  options: { now: Date; needed: number },
): number {
  const room = window.limit - options.needed;
  if (room < 0) return Infinity;
  const window_ms = Math.round(window.window_seconds * 1000);
  const elapsed = (options.now.getTime() - window.window_start.getTime()) /
    window_ms;
  if (sliding_window_used(window, options.now) <= room + 1e-9) return 0;
  if (window.current <= room) {
    // Within the current window, as the previous one's weight falls.
    const at = 1 - (room - window.current) / window.previous;
    return whole_ms(Math.max(0, (at - elapsed) * window_ms));
  }
  // Only once the current window has become the previous one.
  const at = 1 - room / window.current;
  return whole_ms((1 - elapsed + at) * window_ms);
}

// Rounds up, ignoring float noise such as 3000.0000000000005.
function whole_ms(ms: number): number {
  return Math.ceil(ms - 1e-6);
}
