/**
 * Calendar months and days (UTC), as quotas and usage count them.
 *
 * @module
 */

/** Calendar month (UTC) of an instant, as `YYYY-MM`. */
export function month_of(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** Calendar day (UTC) of an instant, as `YYYY-MM-DD`. */
export function day_of(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** First instant of the month after `now` (UTC): when quotas reset. */
export function next_month_start(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}
