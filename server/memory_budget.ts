/**
 * Back-pressure by bytes: every request holds a share of one process-wide
 * budget for what it keeps in memory (its body as it arrives, what parsing
 * and validating it will allocate, the document it gets back), from the
 * first byte until its answer is handed to the HTTP server. A request that
 * would take the total past the budget is refused at once with 503 and
 * `Retry-After`, before its body is read, so the memory of requests waiting
 * (for the database, for a render worker, for a slow client's body) stays
 * bounded whatever their number and size. Counting queued renders alone did
 * not: 512 queued 1 MiB invoices are gigabytes of parsed JSON.
 *
 * Requests whose credentials have not checked out (anonymous) draw on a
 * small part of the budget only: all of them together at most
 * `anonymous_limit`, those from one client address at most a quarter of
 * that, and they hold bytes as these arrive, never for a declared length.
 * So clients without a key or session cannot take the memory that keyed
 * requests need, and one address cannot take all of the anonymous part.
 */
import { ApiError } from "../contract/mod.ts";

/**
 * Heap bytes a request body costs per byte of JSON once read, decoded,
 * parsed and validated: measured 4.8–5.0 for item-heavy 90–400 KB invoices
 * (bytes, the decoded text, the parsed value, the validated invoice); 8
 * leaves room for bodies of many tiny values, which parse into more.
 */
export const BODY_EXPANSION = 8;

/**
 * Heap bytes a raw body (kept as bytes, never parsed by us: the Stripe
 * webhook's) costs per byte: its chunks and their concatenation.
 */
export const RAW_BODY_EXPANSION = 2;

/**
 * What any request with a body holds besides its bytes (request and
 * context objects, a validated invoice's fixed part: about 60 KB measured
 * for a 1.5 KB invoice).
 */
export const REQUEST_OVERHEAD_BYTES = 64 * 1024;

/** Seconds a refused request is told to wait. */
const RETRY_AFTER_SECONDS = 1;

/** The part of the anonymous budget one client address may hold. */
export const ANONYMOUS_ADDRESS_SHARE = 1 / 4;

/** Limits of a {@link MemoryBudget}, in bytes. */
export interface MemoryBudgetOptions {
  /** What anonymous requests may hold together (default: an eighth of the budget). */
  anonymous_limit?: number;
}

/** One process-wide budget of bytes held by requests in flight. */
export class MemoryBudget {
  readonly #limit: number;
  readonly #anonymous_limit: number;
  readonly #address_limit: number;
  #in_use = 0;
  #peak = 0;
  #refused = 0;
  #anonymous_in_use = 0;
  #anonymous_refused = 0;
  readonly #by_address = new Map<string, number>();

  /** A budget of `limit_bytes`, of which anonymous requests may hold `anonymous_limit`. */
  constructor(limit_bytes: number, options: MemoryBudgetOptions = {}) {
    this.#limit = limit_bytes;
    this.#anonymous_limit = Math.min(
      limit_bytes,
      options.anonymous_limit ?? Math.floor(limit_bytes / 8),
    );
    this.#address_limit = Math.floor(
      this.#anonymous_limit * ANONYMOUS_ADDRESS_SHARE,
    );
  }

  /** The budget, in bytes. */
  get limit(): number {
    return this.#limit;
  }

  /** Bytes held by requests now. */
  get in_use(): number {
    return this.#in_use;
  }

  /** The most bytes ever held at once. */
  get peak(): number {
    return this.#peak;
  }

  /** Requests refused because the budget was used up. */
  get refused(): number {
    return this.#refused;
  }

  /** What anonymous requests may hold together, in bytes. */
  get anonymous_limit(): number {
    return this.#anonymous_limit;
  }

  /** What anonymous requests from one client address may hold, in bytes. */
  get address_limit(): number {
    return this.#address_limit;
  }

  /** Bytes held by anonymous requests now. */
  get anonymous_in_use(): number {
    return this.#anonymous_in_use;
  }

  /** Anonymous requests refused because their part was used up. */
  get anonymous_refused(): number {
    return this.#anonymous_refused;
  }

  /** Bytes held by anonymous requests from `address` now. */
  held_by_address(address: string): number {
    return this.#by_address.get(address) ?? 0;
  }

  /** A lease for a request whose credentials checked out; release it when the answer is handed over. */
  lease(): MemoryLease {
    return new MemoryLease(this, undefined);
  }

  /**
   * A lease for a request from `address` (a client address or address
   * group) whose credentials are not known yet; {@link MemoryLease.known}
   * moves it to the whole budget once they check out.
   */
  anonymous_lease(address: string): MemoryLease {
    return new MemoryLease(this, address);
  }

  /**
   * Takes `bytes` (for an anonymous request from `address`, within the
   * anonymous limits too), or throws a 503 `ApiError` when they do not fit.
   */
  take(bytes: number, address?: string): void {
    if (address !== undefined) {
      const by_address = this.held_by_address(address);
      if (
        this.#anonymous_in_use + bytes > this.#anonymous_limit ||
        by_address + bytes > this.#address_limit
      ) {
        this.#anonymous_refused += 1;
        throw this.#refusal(
          `requests without credentials may (${
            mebibytes(this.#anonymous_limit)
          } MiB, ${mebibytes(this.#address_limit)} MiB per client address)`,
        );
      }
    }
    if (this.#in_use + bytes > this.#limit) {
      throw this.#refusal(`it may (${mebibytes(this.#limit)} MiB)`);
    }
    this.add(bytes, address);
  }

  /** Takes `bytes` even past the limit (memory that already exists). */
  add(bytes: number, address?: string): void {
    this.#in_use += bytes;
    if (this.#in_use > this.#peak) this.#peak = this.#in_use;
    if (address !== undefined) this.#move_anonymous(address, bytes);
  }

  /** Gives `bytes` back. */
  give_back(bytes: number, address?: string): void {
    this.#in_use -= bytes;
    if (address !== undefined) this.#move_anonymous(address, -bytes);
  }

  /** Counts `bytes` held for `address` as no longer anonymous. */
  forget_anonymous(bytes: number, address: string): void {
    this.#move_anonymous(address, -bytes);
  }

  #move_anonymous(address: string, bytes: number): void {
    this.#anonymous_in_use += bytes;
    const held = this.held_by_address(address) + bytes;
    if (held > 0) this.#by_address.set(address, held);
    else this.#by_address.delete(address);
  }

  #refusal(what: string): ApiError {
    this.#refused += 1;
    return new ApiError(
      "unavailable",
      `The service is holding as many request bytes as ${what}; retry in ${RETRY_AFTER_SECONDS} s`,
      { headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } },
    );
  }
}

/** Thrown to a body still being read after its request was answered. */
export class LeaseReleasedError extends Error {
  /** Builds the error. */
  constructor() {
    super("the request was already answered");
    this.name = "LeaseReleasedError";
  }
}

/** What one request holds of a {@link MemoryBudget}. */
export class MemoryLease {
  readonly #budget: MemoryBudget;
  /** The client address while the request is anonymous. */
  #address: string | undefined;
  #held = 0;
  #released = false;

  /** A lease on `budget`, holding nothing yet; anonymous when `address` is given. */
  constructor(budget: MemoryBudget, address: string | undefined) {
    this.#budget = budget;
    this.#address = address;
  }

  /** Bytes this request holds. */
  get held(): number {
    return this.#held;
  }

  /** True until the request's credentials checked out. */
  get anonymous(): boolean {
    return this.#address !== undefined;
  }

  /**
   * The request's credentials checked out: what it holds counts against
   * the whole budget only, and later holds may use all of it.
   */
  known(): void {
    if (this.#address === undefined) return;
    if (!this.#released) {
      this.#budget.forget_anonymous(this.#held, this.#address);
    }
    this.#address = undefined;
  }

  /**
   * Raises the hold to what a body of `body_bytes` costs once parsed
   * (`expansion` heap bytes per body byte): called with the declared length
   * before reading (known requests), then as bytes arrive; throws 503 when
   * the budget has no room for it.
   */
  hold_body(body_bytes: number, expansion: number = BODY_EXPANSION): void {
    if (this.#released) throw new LeaseReleasedError();
    const wanted = REQUEST_OVERHEAD_BYTES + expansion * body_bytes;
    if (wanted <= this.#held) return;
    this.#budget.take(wanted - this.#held, this.#address);
    this.#held = wanted;
  }

  /** Adds bytes that exist already (a rendered document), past the limit if need be. */
  hold_existing(bytes: number): void {
    if (this.#released) return;
    this.#budget.add(bytes, this.#address);
    this.#held += bytes;
  }

  /** Gives everything back; later holds are refused. Safe to call twice. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#budget.give_back(this.#held, this.#address);
    this.#held = 0;
  }
}

function mebibytes(bytes: number): string {
  const mib = bytes / 2 ** 20;
  return Number.isInteger(mib) ? String(mib) : mib.toFixed(1);
}
