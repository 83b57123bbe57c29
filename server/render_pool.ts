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

/** Renders invoices on a fixed set of workers. */
export class RenderPool {
  readonly #options: RenderPoolOptions;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  #next_id = 1;
  #closed = false;

  /** Starts `size` workers; each prepares its fonts once. */
  constructor(options: RenderPoolOptions) {
    this.#options = options;
    for (let index = 0; index < options.size; index++) {
      this.#slots.push(this.#spawn());
    }
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
    const { promise, resolve, reject } = Promise.withResolvers<Uint8Array>();
    this.#queue.push({
      id: this.#next_id++,
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
      else job.reject(new Error(`render failed: ${reply.message}`));
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

  #dispatch(): void {
    for (const slot of this.#slots) {
      if (this.#queue.length === 0) return;
      if (slot.job) continue;
      const job = this.#queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => {
        this.#replace(
          slot,
          new ApiError(
            "unavailable",
            `Rendering took longer than ${job.timeout_ms} ms and was cancelled; retry`,
            { headers: { "Retry-After": "1" } },
          ),
        );
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
