/**
 * Periodic clean-up of rows that only matter for a while: rate-limit windows
 * (a row per bucket and window), idempotency receipts of past months,
 * expired reservations of generations never delivered,
 * `Idempotency-Key`s older than 24 hours, expired dashboard sessions and
 * mailed tokens; then, on the embedded database, the vacuum and analyze
 * that PostgreSQL's autovacuum does by itself. Safe to run on every
 * instance at once.
 */
import {
  type Database,
  prune_account_tokens,
  prune_idempotency_keys,
  prune_rate_limit_windows,
  prune_receipts,
  prune_sessions,
  prune_stripe_events,
  sweep_reservations,
  vacuum_embedded,
} from "../db/mod.ts";
import { IDEMPOTENCY_KEY_TTL_MS } from "./generate/idempotency_claim.ts";
import { month_of } from "./services/calendar.ts";

/** Stripe retries a webhook for up to 3 days; event ids are kept well past that. */
const STRIPE_EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Rate-limit windows are kept this long: the longest window is a day, and a
 * sliding window reads the fixed window before the current one too.
 */
const RATE_WINDOW_RETENTION_MS = 49 * 60 * 60 * 1000;

/** What one clean-up removed. */
export interface HousekeepingResult {
  rate_limit_windows: number;
  receipts: number;
  /** Reservations that expired undelivered (the limit ignores them already). */
  reservations: number;
  idempotency_keys: number;
  sessions: number;
  stripe_events: number;
  /** Expired password-reset and verification tokens. */
  account_tokens: number;
  /** Tables of the embedded database vacuumed or analyzed (PGlite only). */
  vacuumed_tables: number;
}

/** Deletes what is no longer needed at `now`. */
export async function run_housekeeping(
  database: Database,
  now: Date,
): Promise<HousekeepingResult> {
  return {
    rate_limit_windows: await prune_rate_limit_windows(
      database,
      new Date(now.getTime() - RATE_WINDOW_RETENTION_MS),
    ),
    // Replays are free only within their month, so older receipts are dead.
    receipts: await prune_receipts(database, {
      before_month: month_of(now),
    }),
    reservations: await sweep_reservations(database, now),
    idempotency_keys: await prune_idempotency_keys(
      database,
      new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS),
    ),
    sessions: await prune_sessions(database, now),
    stripe_events: await prune_stripe_events(
      database,
      new Date(now.getTime() - STRIPE_EVENT_RETENTION_MS),
    ),
    account_tokens: await prune_account_tokens(database, now),
    // After the deletions, so their rows are reclaimed in the same run.
    vacuumed_tables: await vacuum_embedded(database),
  };
}

/** Runs {@link run_housekeeping} every `interval_ms`; returns a stop function. */
export function start_housekeeping(
  database: Database,
  options: { interval_ms: number; now: () => Date },
): () => void {
  const timer = setInterval(() => {
    // A failure (say, the database is down) is retried at the next tick.
    run_housekeeping(database, options.now()).catch(() => {});
  }, options.interval_ms);
  // Never the reason the process stays alive.
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}
