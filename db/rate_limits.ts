/**
 * Fixed-window rate-limit counters shared by all app instances.
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
