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
 * What any request with a body holds besides its bytes (request and
 * context objects, a validated invoice's fixed part: about 60 KB measured
 * for a 1.5 KB invoice).
 */
export const REQUEST_OVERHEAD_BYTES = 64 * 1024;

/** Seconds a refused request is told to wait. */
const RETRY_AFTER_SECONDS = 1;

/** One process-wide budget of bytes held by requests in flight. */
export class MemoryBudget {
  readonly #limit: number;
  #in_use = 0;
  #peak = 0;
  #refused = 0;

  /** A budget of `limit_bytes`. */
  constructor(limit_bytes: number) {
    this.#limit = limit_bytes;
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

  /** A lease for one request; release it when the answer is handed over. */
  lease(): MemoryLease {
    return new MemoryLease(this);
  }

  /** Takes `bytes`, or throws a 503 `ApiError` when they do not fit. */
  take(bytes: number): void {
    if (this.#in_use + bytes > this.#limit) {
      this.#refused += 1;
      throw new ApiError(
        "unavailable",
        `The service is holding as many request bytes as it may (${
          mebibytes(this.#limit)
        } MiB); retry in ${RETRY_AFTER_SECONDS} s`,
        { headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } },
      );
    }
    this.add(bytes);
  }

  /** Takes `bytes` even past the limit (memory that already exists). */
  add(bytes: number): void {
    this.#in_use += bytes;
    if (this.#in_use > this.#peak) this.#peak = this.#in_use;
  }

  /** Gives `bytes` back. */
  give_back(bytes: number): void {
    this.#in_use -= bytes;
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
  #held = 0;
  #released = false;

  /** A lease on `budget`, holding nothing yet. */
  constructor(budget: MemoryBudget) {
    this.#budget = budget;
  }

  /** Bytes this request holds. */
  get held(): number {
    return this.#held;
  }

  /**
   * Raises the hold to what a body of `body_bytes` costs once parsed
   * (called with the declared length before reading, then as bytes
   * arrive); throws 503 when the budget has no room for it.
   */
  hold_body(body_bytes: number): void {
    if (this.#released) throw new LeaseReleasedError();
    const wanted = REQUEST_OVERHEAD_BYTES + BODY_EXPANSION * body_bytes;
    if (wanted <= this.#held) return;
    this.#budget.take(wanted - this.#held);
    this.#held = wanted;
  }

  /** Adds bytes that exist already (a rendered document), past the limit if need be. */
  hold_existing(bytes: number): void {
    if (this.#released) return;
    this.#budget.add(bytes);
    this.#held += bytes;
  }

  /** Gives everything back; later holds are refused. Safe to call twice. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#budget.give_back(this.#held);
    this.#held = 0;
  }
}

function mebibytes(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(0);
}
