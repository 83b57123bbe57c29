/**
 * Each account's render time over a sliding minute, against a budget of
 * render-seconds (`RENDER_SECONDS_PER_MINUTE`). Every render counts its own
 * time (queue waits excluded), whatever its end: delivered, refused at the
 * page limit, timed out, a test key's or a preview. When the last minute's
 * renders used the budget, the account's next render is refused with 429
 * and the true `Retry-After`: when enough of that time has left the window.
 *
 * The first {@link FREE_RENDER_SECONDS} of each render are not counted: an
 * ordinary invoice renders in a few milliseconds, and one account may keep
 * every worker busy with those (its plan's request rate bounds them; two
 * workers saturated are 120 render-seconds a minute, so counting them
 * would cap an account's throughput below the instance's). What the budget
 * bounds is the expensive work: long documents, large logos, timeouts.
 *
 * Kept per instance, in memory (a render costs the instance that ran it).
 *
 * @module
 */
import { ApiError } from "../contract/mod.ts";

const WINDOW_MS = 60_000;
/** Render time of each render that is not counted, in seconds. */
export const FREE_RENDER_SECONDS = 0.05;
// Accounts remembered at once; past it, the oldest is forgotten (which only
// gives it a fresh budget).
const MAX_ACCOUNTS = 100_000;

interface Spent {
  /** When each render ended (ms) and how long it ran (s), oldest first. */
  entries: { at: number; seconds: number }[];
  total: number;
}

/** Render-seconds spent per account in the last minute. */
export class RenderBudget {
  readonly #accounts = new Map<string, Spent>();

  /** A budget of `seconds_per_minute` render-seconds per account; `now` in ms. */
  constructor(
    readonly seconds_per_minute: number,
    readonly now: () => number,
  ) {}

  #spent(account: string, at: number): Spent | undefined {
    const spent = this.#accounts.get(account);
    if (spent === undefined) return undefined;
    while (spent.entries.length > 0 && spent.entries[0].at <= at - WINDOW_MS) {
      spent.total -= spent.entries.shift()!.seconds;
    }
    if (spent.entries.length === 0) {
      this.#accounts.delete(account);
      return undefined;
    }
    return spent;
  }

  /** Render-seconds `account` spent in the last minute. */
  spent(account: string): number {
    return this.#spent(account, this.now())?.total ?? 0;
  }

  /** Throws 429 `rate_limited` when `account` has used its budget. */
  check(account: string): void {
    const at = this.now();
    const spent = this.#spent(account, at);
    if (spent === undefined || spent.total < this.seconds_per_minute) return;
    // The wait until the renders still in the window add up to less than
    // the budget.
    let left = spent.total;
    let until = at;
    for (const entry of spent.entries) {
      left -= entry.seconds;
      until = entry.at + WINDOW_MS;
      if (left < this.seconds_per_minute) break;
    }
    const wait = Math.max(1, Math.ceil((until - at) / 1000));
    throw new ApiError(
      "rate_limited",
      `This account's renders took ${
        spent.total.toFixed(1)
      } s in the last minute; at most ${this.seconds_per_minute} render-seconds a minute ` +
        `are allowed. Retry in ${wait} seconds`,
      { headers: { "Retry-After": String(wait) } },
    );
  }

  /** Counts a render of `seconds` against `account` (less the free part). */
  charge(account: string, render_seconds: number): void {
    const seconds = render_seconds - FREE_RENDER_SECONDS;
    if (!(seconds > 0)) return;
    const at = this.now();
    let spent = this.#spent(account, at);
    if (spent === undefined) {
      if (this.#accounts.size >= MAX_ACCOUNTS) {
        const oldest = this.#accounts.keys().next().value;
        if (oldest !== undefined) this.#accounts.delete(oldest);
      }
      spent = { entries: [], total: 0 };
      this.#accounts.set(account, spent);
    }
    spent.entries.push({ at, seconds });
    spent.total += seconds;
  }
}
