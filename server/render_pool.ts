/**
 * A pool of Deno workers that render PDFs off the request thread, with a
 * bounded queue (full → fast 503) and a render deadline (→ the worker is
 * replaced and the request answered 503).
 */
import { ApiError, type Invoice, type InvoiceFormat } from "../contract/mod.ts";
import type { RenderReply, RenderRequest } from "./render_worker.ts";

/** Options of a {@link RenderPool}. */
export interface RenderPoolOptions {
  /** Number of workers. */
  size: number;
  /** Renders that may wait for a worker; more are refused with 503. */
  max_queue: number;
  /** Longest a render may take before it is cancelled. */
  timeout_ms: number;
}

interface Job {
  id: number;
  /** Whose render this is: the pool shares workers fairly between accounts. */
  account?: string;
  invoice: Invoice;
  format?: InvoiceFormat;
  test?: boolean;
  preview?: boolean;
  timeout_ms: number;
  resolve: (bytes: Uint8Array) => void;
  reject: (error: unknown) => void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  timer?: ReturnType<typeof setTimeout>;
}

const WORKER_URL = new URL("./render_worker.ts", import.meta.url).href;

/** A render cancelled at its deadline (503; the request is not charged). */
export class RenderTimeoutError extends ApiError {
  /** Builds the error for a deadline of `timeout_ms`. */
  constructor(timeout_ms: number) {
    super(
      "unavailable",
      `Rendering took longer than ${timeout_ms} ms and was cancelled; retry`,
      { headers: { "Retry-After": "1" } },
    );
  }
}

/** Renders invoices on a fixed set of workers. */
export class RenderPool {
  readonly #options: RenderPoolOptions;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  #next_id = 1;
  #closed = false;
  #last_account: string | undefined;

  /** Starts `size` workers; each prepares its fonts once. */
  constructor(options: RenderPoolOptions) {
    this.#options = options;
    for (let index = 0; index < options.size; index++) {
      this.#slots.push(this.#spawn());
    }
  }

  /** Renders of one account that may wait while the queue is half full; past it, 429. */
  get #per_account_queue(): number {
    return Math.max(4, Math.floor(this.#options.max_queue / 4));
  }

  /** Renders waiting for a worker. */
  get queue_depth(): number {
    return this.#queue.length;
  }

  /** Workers with nothing to render: a render started now would not wait. */
  get idle_workers(): number {
    if (this.#queue.length > 0) return 0;
    return this.#slots.filter((slot) => !slot.job).length;
  }

  /**
   * Renders one invoice (in `options.format`, default the PDF); rejects
   * with a 503 `ApiError` when full or too slow.
   */
  render(
    invoice: Invoice,
    options: {
      timeout_ms?: number;
      format?: InvoiceFormat;
      test?: boolean;
      preview?: boolean;
      /** The account rendering; its renders share the workers fairly with others'. */
      account_id?: string;
    } = {},
  ): Promise<Uint8Array> {
    if (this.#closed) {
      return Promise.reject(
        new ApiError("unavailable", "The service is shutting down; retry", {
          headers: { "Retry-After": "1" },
        }),
      );
    }
    if (this.#queue.length >= this.#options.max_queue) {
      return Promise.reject(
        new ApiError(
          "unavailable",
          "The service is at capacity; retry in a second",
          { headers: { "Retry-After": "1" } },
        ),
      );
    }
    const account = options.account_id;
    // Under pressure (the queue half full), one account may not hold more
    // than its share of the waiting renders: the rest stays for others.
    if (
      account !== undefined &&
      this.#queue.length >= this.#options.max_queue / 2 &&
      this.#queue.filter((job) => job.account === account).length >=
        this.#per_account_queue
    ) {
      return Promise.reject(
        new ApiError(
          "rate_limited",
          "Too many of this account's renders are waiting; retry in a second",
          { headers: { "Retry-After": "1" } },
        ),
      );
    }
    const { promise, resolve, reject } = Promise.withResolvers<Uint8Array>();
    this.#queue.push({
      id: this.#next_id++,
      account,
      invoice,
      format: options.format,
      test: options.test,
      preview: options.preview,
      timeout_ms: options.timeout_ms ?? this.#options.timeout_ms,
      resolve,
      reject,
    });
    this.#dispatch();
    return promise;
  }

  /** Stops every worker; queued renders are refused. */
  close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) {
      job.reject(new ApiError("unavailable", "The service is shutting down"));
    }
    for (const slot of this.#slots) {
      clearTimeout(slot.timer);
      slot.job?.reject(
        new ApiError("unavailable", "The service is shutting down"),
      );
      slot.worker.terminate();
    }
    return Promise.resolve();
  }

  #spawn(): Slot {
    const slot: Slot = { worker: new Worker(WORKER_URL, { type: "module" }) };
    slot.worker.onmessage = (event: MessageEvent<RenderReply>) => {
      const reply = event.data;
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      clearTimeout(slot.timer);
      slot.job = undefined;
      if (reply.ok) job.resolve(reply.bytes);
      else if (reply.code === "page_limit") {
        job.reject(
          new ApiError("invalid_request", reply.message, {
            details: [{ path: "items", message: reply.message }],
          }),
        );
      } else job.reject(new Error(`render failed: ${reply.message}`));
      this.#dispatch();
    };
    slot.worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.#replace(slot, new Error(`render worker crashed: ${event.message}`));
    };
    return slot;
  }

  #replace(slot: Slot, error: unknown): void {
    clearTimeout(slot.timer);
    slot.job?.reject(error);
    slot.job = undefined;
    slot.worker.terminate();
    if (this.#closed) return;
    const index = this.#slots.indexOf(slot);
    if (index >= 0) this.#slots[index] = this.#spawn();
    this.#dispatch();
  }

  /**
   * The next job for a free worker: the oldest one of the account with the
   * fewest renders running, so one account flooding the pool delays
   * another's invoice by at most the render already in progress.
   */
  #next_job(): Job {
    const running = new Map<string | undefined, number>();
    for (const slot of this.#slots) {
      const account = slot.job?.account;
      if (slot.job) running.set(account, (running.get(account) ?? 0) + 1);
    }
    // Fewest running first; among equals, not the account served last
    // (round robin), else the oldest.
    let best = -1;
    let best_rank = Infinity;
    for (let index = 0; index < this.#queue.length; index++) {
      const account = this.#queue[index].account;
      const count = account === undefined ? 0 : running.get(account) ?? 0;
      const rank = count * 2 +
        (account !== undefined && account === this.#last_account ? 1 : 0);
      if (rank < best_rank) {
        best = index;
        best_rank = rank;
        if (rank === 0) break;
      }
    }
    const job = this.#queue.splice(best, 1)[0];
    this.#last_account = job.account;
    return job;
  }

  #dispatch(): void {
    for (const slot of this.#slots) {
      if (this.#queue.length === 0) return;
      if (slot.job) continue;
      const job = this.#next_job();
      slot.job = job;
      slot.timer = setTimeout(() => {
        this.#replace(slot, new RenderTimeoutError(job.timeout_ms));
      }, job.timeout_ms);
      slot.worker.postMessage(
        {
          id: job.id,
          invoice: job.invoice,
          format: job.format,
          test: job.test,
          preview: job.preview,
        } satisfies RenderRequest,
      );
    }
  }
}
