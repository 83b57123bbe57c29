/**
 * A pool of Deno workers that render PDFs off the request thread, with a
 * bounded queue (full → fast 503) and a render deadline (→ the worker is
 * replaced and the request answered 503).
 *
 * Scheduling: a free worker takes the oldest render of the account with the
 * fewest renders running (round robin among equals). Renders the estimate
 * calls expensive run on at most all workers but one, so an ordinary
 * invoice never waits behind long renders for more than an ordinary render
 * (there is no preemption: a fair queue alone cannot help once every worker
 * is busy for seconds). One account alone still uses every worker for
 * ordinary invoices.
 *
 * Deadlines count a render's own time: a worker's start-up (loading the
 * renderer and its fonts) is not counted, and a worker's first render gets
 * {@link COLD_RENDER_ALLOWANCE_MS} more (first use of code and fonts), so
 * the service's own slowness is not taken for a slow document.
 *
 * Workers beyond {@link RenderPoolOptions.min_workers} start on demand, when
 * a render has to wait, one at a time, and stop after
 * {@link RenderPoolOptions.idle_stop_ms} without work: an idle service holds
 * one worker's memory (about 26 MB each), a busy one uses every core. A
 * render never waits for a worker to start while another is running: it
 * goes to whichever is free first.
 *
 * A worker that cannot start (its modules fail to load, e.g. for want of
 * file descriptors) never takes the process down: its slot tries again
 * after 100 ms, doubling up to 5 s, and a render it had been given goes back
 * to the queue. While no worker is running at all, renders are answered 503
 * at once. A worker is not started with fewer than
 * {@link WORKER_START_DESCRIPTORS} descriptors free: Deno (2.9) aborts the
 * whole process when a worker thread cannot get the few it needs.
 */
import { ApiError, type Invoice } from "../contract/mod.ts";
import { free_descriptors } from "./connection_limit.ts";
import type { DocumentRequest, RenderOptions } from "./render_options.ts";
import { invoice_json } from "./invoice_json.ts";
import type { RenderRequest, WorkerMessage } from "./render_worker.ts";

/** Options of a {@link RenderPool}. */
export interface RenderPoolOptions {
  /** Most workers. */
  size: number;
  /** Workers kept running while idle (default: all of them). */
  min_workers?: number;
  /** How long a worker beyond the minimum stays without work before it stops (default {@link IDLE_WORKER_STOP_MS}). */
  idle_stop_ms?: number;
  /** Renders that may wait for a worker; more are refused with 503. */
  max_queue: number;
  /** Longest a render may take before it is cancelled. */
  timeout_ms: number;
  /** Extra time for a worker's first render (default {@link COLD_RENDER_ALLOWANCE_MS}). */
  cold_allowance_ms?: number;
  /** The worker module (default `render_worker.ts`; tests give a failing one). */
  worker_url?: string | URL;
}

/** Extra deadline of a worker's first render: code and fonts are cold. */
export const COLD_RENDER_ALLOWANCE_MS = 5_000;

/** How long a worker beyond the minimum idles before it stops. */
export const IDLE_WORKER_STOP_MS = 60_000;

interface Job extends DocumentRequest {
  id: number;
  /** Whose render this is: the pool shares workers fairly between accounts. */
  account?: string;
  invoice: Invoice;
  timeout_ms: number;
  /** Estimated expensive: may not take the last worker left for others. */
  expensive: boolean;
  /** Told the render's own time (s; 0 if it never ran), however it ended. */
  on_render_time?: (seconds: number) => void;
  resolve: (bytes: Uint8Array) => void;
  reject: (error: unknown) => void;
}

interface Slot {
  /** Unset while the slot waits to try a failed start again. */
  worker?: Worker;
  job?: Job;
  timer?: ReturnType<typeof setTimeout>;
  /** The worker has loaded the renderer and takes renders at once. */
  ready: boolean;
  /** The worker has finished a render: its code and fonts are warm. */
  warm: boolean;
  /** When the current job's render started (performance.now()). */
  started?: number;
  /** Starts that failed in a row; a worker that gets ready resets it. */
  failed_starts: number;
  /** The next start after a failed one. */
  retry?: ReturnType<typeof setTimeout>;
  /** Stops an idle worker beyond the minimum. */
  idle_stop?: ReturnType<typeof setTimeout>;
}

const WORKER_URL = new URL("./render_worker.ts", import.meta.url).href;

/**
 * Descriptors that must be free to start a worker: it needs about 8 to
 * start, and with fewer than 6 Deno aborts the process instead of failing.
 */
export const WORKER_START_DESCRIPTORS = 32;
const FIRST_RETRY_MS = 100;
const LONGEST_RETRY_MS = 5_000;
// Failed starts are logged at most this often (every slot may fail at once).
const START_FAILURE_LOG_MS = 1_000;

/** A render refused because this instance stops: another instance (or this one restarted) can take the retry. */
function shutting_down(): ApiError {
  return new ApiError("unavailable", "The service is shutting down; retry", {
    headers: { "Retry-After": "1" },
  });
}

/** A render cancelled at its deadline (503; the request is not charged). */
export class RenderTimeoutError extends ApiError {
  /**
   * Whether the worker had finished a render before: a timeout on a cold
   * worker says more about the service than about the document.
   */
  readonly warm: boolean;

  /** Builds the error for a deadline of `timeout_ms`. */
  constructor(timeout_ms: number, warm = true) {
    super(
      "unavailable",
      `Rendering took longer than ${timeout_ms} ms and was cancelled; retry`,
      { headers: { "Retry-After": "1" } },
    );
    this.warm = warm;
  }
}

/** Renders invoices on a fixed set of workers. */
export class RenderPool {
  readonly #options: RenderPoolOptions;
  /** Workers kept running while idle: the option, at most `size`. */
  readonly #min_workers: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  #next_id = 1;
  #closed = false;
  #last_account: string | undefined;
  #last_failure_log = -Infinity;

  /** Starts the minimum of workers; each prepares its fonts once. */
  constructor(options: RenderPoolOptions) {
    this.#options = options;
    this.#min_workers = Math.min(
      options.size,
      options.min_workers ?? options.size,
    );
    for (let index = 0; index < options.size; index++) {
      const slot: Slot = { ready: false, warm: false, failed_starts: 0 };
      this.#slots.push(slot);
      if (index < this.#min_workers) this.#start(slot);
    }
  }

  /** Workers running or starting (not those stopped for want of work). */
  get running_workers(): number {
    return this.#slots.filter((slot) => slot.worker || slot.retry).length;
  }

  /** Renders of one account that may wait while the queue is half full; past it, 429. */
  get #per_account_queue(): number {
    return Math.max(4, Math.floor(this.#options.max_queue / 4));
  }

  /** Renders waiting for a worker. */
  get queue_depth(): number {
    return this.#queue.length;
  }

  /**
   * Workers with nothing to render: an ordinary render started now would not
   * wait. (Renders are dispatched at once, so renders still queued beside a
   * free worker are expensive ones held back for others.)
   */
  get idle_workers(): number {
    return this.#slots.filter((slot) => slot.worker && !slot.job).length;
  }

  /**
   * Renders one invoice (in `options.format`, default the PDF); rejects
   * with a 503 `ApiError` when full or too slow.
   */
  render(
    invoice: Invoice,
    options: RenderOptions & { timeout_ms?: number } = {},
  ): Promise<Uint8Array> {
    if (this.#closed) {
      return Promise.reject(
        new ApiError("unavailable", "The service is shutting down; retry", {
          headers: { "Retry-After": "1" },
        }),
      );
    }
    if (!this.#slots.some((slot) => slot.worker)) {
      return Promise.reject(no_worker_error());
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
      expensive: options.expensive ?? false,
      on_render_time: options.on_render_time,
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
      job.on_render_time?.(0);
      job.reject(shutting_down());
    }
    for (const slot of this.#slots) {
      clearTimeout(slot.timer);
      clearTimeout(slot.retry);
      clearTimeout(slot.idle_stop);
      if (slot.job) {
        this.#report_time(slot);
        slot.job.reject(shutting_down());
      }
      slot.worker?.terminate();
    }
    return Promise.resolve();
  }

  /** Starts a worker in `slot`, or schedules another try if it cannot. */
  #start(slot: Slot): void {
    slot.ready = false;
    slot.warm = false;
    let worker: Worker;
    try {
      const free = free_descriptors();
      if (free !== undefined && free < WORKER_START_DESCRIPTORS) {
        throw new Error(`only ${free} file descriptors free`);
      }
      worker = new Worker(this.#options.worker_url ?? WORKER_URL, {
        type: "module",
      });
    } catch (error) {
      this.#start_failed(slot, error);
      return;
    }
    slot.worker = worker;
    worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
      const message = event.data;
      if ("ready" in message) {
        slot.ready = true;
        slot.failed_starts = 0;
        if (slot.job) this.#start_clock(slot);
        this.#dispatch();
        // Started for renders that others took meanwhile.
        if (!slot.job) this.#stop_when_idle(slot);
        return;
      }
      const reply = message;
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      clearTimeout(slot.timer);
      this.#report_time(slot);
      slot.job = undefined;
      slot.warm = true;
      this.#stop_when_idle(slot);
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
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      if (slot.worker !== worker) return;
      if (!slot.ready) this.#start_failed(slot, event.message);
      else {
        this.#replace(
          slot,
          new Error(`render worker crashed: ${event.message}`),
        );
      }
    };
  }

  /**
   * A start in `slot` failed: the render it was given goes back to the
   * queue (it never began), and the slot tries again after a back-off.
   */
  #start_failed(slot: Slot, reason: unknown): void {
    slot.worker?.terminate();
    slot.worker = undefined;
    slot.ready = false;
    if (slot.job) {
      this.#queue.unshift(slot.job);
      slot.job = undefined;
    }
    slot.failed_starts++;
    const delay = Math.min(
      LONGEST_RETRY_MS,
      FIRST_RETRY_MS * 2 ** (slot.failed_starts - 1),
    );
    const now = performance.now();
    if (now - this.#last_failure_log >= START_FAILURE_LOG_MS) {
      this.#last_failure_log = now;
      console.error(
        `A render worker could not start (${
          reason instanceof Error ? reason.message : String(reason)
        }); trying again in ${delay} ms`,
      );
    }
    if (!this.#closed) {
      slot.retry = setTimeout(() => {
        slot.retry = undefined;
        this.#start(slot);
        this.#dispatch();
      }, delay);
    }
    if (this.#slots.some((other) => other.worker)) {
      this.#dispatch();
      return;
    }
    // No worker is running: nothing waiting would be rendered soon.
    for (const job of this.#queue.splice(0)) {
      job.on_render_time?.(0);
      job.reject(no_worker_error());
    }
  }

  /** Tells the job of `slot` how long its render ran. */
  #report_time(slot: Slot): void {
    const seconds = slot.started === undefined
      ? 0
      : (performance.now() - slot.started) / 1000;
    slot.started = undefined;
    slot.job?.on_render_time?.(seconds);
  }

  /**
   * Starts the deadline of the job of `slot` once its worker is ready (its
   * start-up is not the render's time); a cold worker's first render gets
   * the cold allowance on top.
   */
  #start_clock(slot: Slot): void {
    const job = slot.job!;
    const warm = slot.warm;
    const deadline = job.timeout_ms +
      (warm ? 0 : this.#options.cold_allowance_ms ?? COLD_RENDER_ALLOWANCE_MS);
    slot.started = performance.now();
    slot.timer = setTimeout(() => {
      this.#replace(slot, new RenderTimeoutError(deadline, warm));
    }, deadline);
  }

  #replace(slot: Slot, error: unknown): void {
    clearTimeout(slot.timer);
    if (slot.job) {
      this.#report_time(slot);
      slot.job.reject(error);
    }
    slot.job = undefined;
    slot.worker?.terminate();
    slot.worker = undefined;
    if (this.#closed) return;
    this.#start(slot);
    this.#dispatch();
  }

  /**
   * The next job for a free worker: the oldest one of the account with the
   * fewest renders running, so one account flooding the pool delays
   * another's invoice by at most the render already in progress. Expensive
   * renders are passed over while all workers but one run expensive ones.
   */
  #next_job(): Job | undefined {
    const running = new Map<string | undefined, number>();
    let expensive_running = 0;
    for (const slot of this.#slots) {
      if (!slot.job) continue;
      const account = slot.job.account;
      running.set(account, (running.get(account) ?? 0) + 1);
      if (slot.job.expensive) expensive_running++;
    }
    const expensive_allowed =
      expensive_running < Math.max(1, this.#slots.length - 1);
    // Fewest running first; among equals, not the account served last
    // (round robin), else the oldest.
    let best = -1;
    let best_rank = Infinity;
    for (let index = 0; index < this.#queue.length; index++) {
      const job = this.#queue[index];
      if (job.expensive && !expensive_allowed) continue;
      const account = job.account;
      const count = account === undefined ? 0 : running.get(account) ?? 0;
      const rank = count * 2 +
        (account !== undefined && account === this.#last_account ? 1 : 0);
      if (rank < best_rank) {
        best = index;
        best_rank = rank;
        if (rank === 0) break;
      }
    }
    if (best < 0) return undefined;
    const job = this.#queue.splice(best, 1)[0];
    this.#last_account = job.account;
    return job;
  }

  #dispatch(): void {
    // A worker still starting takes a render only while none is ready:
    // one that is ready, even busy, is likely free sooner.
    const any_ready = this.#slots.some((slot) => slot.worker && slot.ready);
    for (const slot of this.#slots) {
      if (this.#queue.length === 0) return;
      if (slot.job || !slot.worker || (any_ready && !slot.ready)) continue;
      const job = this.#next_job();
      if (job === undefined) break;
      clearTimeout(slot.idle_stop);
      slot.idle_stop = undefined;
      slot.job = job;
      if (slot.ready) this.#start_clock(slot);
      slot.worker.postMessage(
        {
          id: job.id,
          invoice_json: invoice_json(job.invoice),
          format: job.format,
          test: job.test,
          preview: job.preview,
        } satisfies RenderRequest,
      );
    }
    if (this.#queue.length > 0) this.#start_one_more();
  }

  /**
   * Renders wait: starts one stopped worker, unless one is starting
   * already (workers are added one at a time, each a few hundred ms).
   */
  #start_one_more(): void {
    if (this.#closed) return;
    if (
      this.#slots.some((slot) => (slot.worker && !slot.ready) || slot.retry)
    ) {
      return;
    }
    const stopped = this.#slots.find((slot) => !slot.worker);
    if (stopped) this.#start(stopped);
  }

  /**
   * After `slot`'s render: a worker beyond the minimum that stays without
   * work for the idle time stops, giving its memory back.
   */
  #stop_when_idle(slot: Slot): void {
    const min = this.#min_workers;
    if (min >= this.#options.size) return;
    clearTimeout(slot.idle_stop);
    slot.idle_stop = setTimeout(() => {
      slot.idle_stop = undefined;
      if (slot.job || !slot.worker || this.running_workers <= min) return;
      slot.worker.terminate();
      slot.worker = undefined;
      slot.ready = false;
      slot.warm = false;
    }, this.#options.idle_stop_ms ?? IDLE_WORKER_STOP_MS);
  }
}

/** The answer while no render worker could be started. */
function no_worker_error(): ApiError {
  return new ApiError(
    "unavailable",
    "No render worker is running (they could not start); retry shortly",
    { headers: { "Retry-After": "2" } },
  );
}
