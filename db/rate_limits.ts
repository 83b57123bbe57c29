/**
 * Rate-limit counters shared by all app instances: one kind of window, a
 * sliding window over two fixed ones ({@linkcode take_sliding_window}), and
 * its arithmetic, which the API keys' per-minute limit shares (counted in the
 * key statement of `authenticate_api_key`).
 *
 * @module
 */
import { sql } from "drizzle-orm";
import type { Database } from "./database.ts";
import { count_deleted, query_rows, to_number } from "./_util.ts";

/** Input for {@linkcode take_sliding_window}. */
export interface TakeSlidingWindowInput {
  /** Counter key, e.g. `signin:<email>` or `preview-day:<uuid>`. */
  bucket: string;
  /** Events allowed per `window_seconds`. */
  limit: number;
  /** Window length; the fixed windows under it are aligned to multiples of it since the epoch. */
  window_seconds: number;
  /** Time of the event. */
  now: Date;
}

/** The answer of {@linkcode take_sliding_window}. */
export interface SlidingWindowTake {
  /** Whether the event fit (and was counted). */
  allowed: boolean;
  /** The window as it stands after the event (counted only if allowed). */
  window: SlidingWindow;
}

/**
 * Counts one event in the bucket's sliding window if it fits, in one
 * statement: the condition sits in the upsert's conflict clause, so it is
 * checked against the current window's latest count, atomically across
 * instances. A refused event is not counted, so a client that keeps trying
 * recovers as the window slides.
 */
export async function take_sliding_window(
  database: Database,
  input: TakeSlidingWindowInput,
): Promise<SlidingWindowTake> {
  if (!(input.window_seconds > 0)) {
    throw new RangeError("window_seconds must be positive");
  }
  const window_start = window_start_of(input.now, input.window_seconds);
  const previous_start = new Date(
    window_start.getTime() - Math.round(input.window_seconds * 1000),
  );
  const weight = previous_window_weight(input.now, input.window_seconds);
  const rows = await query_rows<{
    hit_count: number | string | null;
    previous_count: number | string | null;
    current_count: number | string | null;
  }>(
    database,
    sql`
      with windows as (
        select
          (select count from rate_limit_windows
            where bucket = ${input.bucket}
              and window_start = ${previous_start.toISOString()}::timestamptz
          ) as previous_count,
          (select count from rate_limit_windows
            where bucket = ${input.bucket}
              and window_start = ${window_start.toISOString()}::timestamptz
          ) as current_count
      ),
      hit as (
        insert into rate_limit_windows as w (bucket, window_start, count)
        select ${input.bucket}, ${window_start.toISOString()}::timestamptz, 1
        from windows
        where coalesce(previous_count, 0) * ${weight}::float8 + 1
          <= ${input.limit}::float8 + 1e-9
        on conflict (bucket, window_start) do update set count = w.count + 1
        where (select coalesce(previous_count, 0) * ${weight}::float8
                 from windows) + w.count + 1 <= ${input.limit}::float8 + 1e-9
        returning w.count
      )
      select (select count from hit) as hit_count,
             previous_count, current_count
      from windows
    `,
  );
  const row = rows[0]!;
  const allowed = row.hit_count !== null;
  return {
    allowed,
    window: {
      limit: input.limit,
      previous: to_number(row.previous_count ?? 0),
      current: to_number(allowed ? row.hit_count : row.current_count ?? 0),
      window_start,
      window_seconds: input.window_seconds,
    },
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
