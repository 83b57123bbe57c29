/**
 * Failing fast while the database is unreachable.
 *
 * Every database operation runs through a {@link CircuitBreaker}: it gets a
 * deadline, and the first sign of an outage (a connection refused, reset or
 * timed out, or an operation past its deadline while the database says
 * nothing on any connection) opens the circuit. An operation past its
 * deadline while other connections are answered waits its turn: that is
 * load, and refusing everyone would turn a busy minute into an outage. While it
 * is open, new operations, and those still waiting that have not reached
 * the database, are refused at once with `DatabaseUnavailableError`,
 * instead of queueing behind the driver's reconnect attempts; one probe at a
 * time checks whether the database is back (after 250 ms, then doubling to
 * every 2 s). The first probe that succeeds closes the circuit: no restart
 * is needed.
 *
 * @module
 */
import { DatabaseUnavailableError } from "./errors.ts";

/** Options of a {@link CircuitBreaker}. */
export interface CircuitBreakerOptions {
  /** Longest an operation may take before it counts as an outage; 0: none. */
  deadline_ms: number;
  /** Whether an operation's error is a sign that the database is unreachable. */
  is_outage: (error: unknown) => boolean;
  /** One bounded check that the database answers; rejects when it does not. */
  probe: () => Promise<void>;
  /**
   * Whether the database said something on any connection within the
   * deadline: then an operation past its deadline is queued behind busy
   * connections (overload), not stalled, and waits on; unset: never.
   */
  answered_within?: (ms: number) => boolean;
  /** Called when an operation passes its deadline (its connection may hang). */
  on_deadline?: () => void;
  /** Told when the circuit opens and closes (one line each). */
  log?: (message: string) => void;
}

const FIRST_PROBE_DELAY_MS = 250;
const LONGEST_PROBE_DELAY_MS = 2_000;

/** An operation in progress. */
interface Waiting {
  /** See {@link CircuitBreaker.run}. */
  withdraw(): boolean;
  /** Asked to withdraw: its failure is answered as a refusal. */
  withdrawn: boolean;
  /** Answers the caller (once; later calls do nothing). */
  settle(error: unknown, value?: unknown): void;
}

/** Deadlines, refusal while open, and probing; see the module docs. */
export class CircuitBreaker {
  readonly #options: CircuitBreakerOptions;
  readonly #waiting = new Set<Waiting>();
  #open_since: number | undefined;
  #cause: unknown;
  #probe_timer: ReturnType<typeof setTimeout> | undefined;
  #disposed = false;

  /** A closed circuit. */
  constructor(options: CircuitBreakerOptions) {
    this.#options = options;
  }

  /** True while the database counts as unreachable. */
  get is_open(): boolean {
    return this.#open_since !== undefined;
  }

  /**
   * Runs `operation` within the deadline; refuses at once while the circuit
   * is open. An error that means an outage opens the circuit.
   *
   * When the circuit opens, each operation in progress is asked to
   * `withdraw`: it takes itself back if it has not reached the database
   * yet, and answers true to be refused at once, or false to be waited for
   * (within its deadline) because it settles by itself soon or because the
   * database may have done it. Without `withdraw`, it is refused at once.
   */
  run<T>(
    operation: () => PromiseLike<T>,
    withdraw?: () => boolean,
  ): Promise<T> {
    if (this.#open_since !== undefined) {
      return Promise.reject(this.#refusal());
    }
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waiting: Waiting = {
        withdraw: withdraw ?? (() => true),
        withdrawn: false,
        settle: (error: unknown, value?: unknown) => {
          if (!this.#waiting.delete(waiting)) return;
          clearTimeout(timer);
          if (error === undefined) resolve(value as T);
          else reject(error);
        },
      };
      this.#waiting.add(waiting);
      const { deadline_ms } = this.#options;
      const deadline_passed = () => {
        if (this.#options.answered_within?.(deadline_ms)) {
          timer = setTimeout(deadline_passed, deadline_ms);
          return;
        }
        const error = new DatabaseUnavailableError(
          `the database did not answer within ${deadline_ms} ms`,
        );
        waiting.settle(error);
        waiting.withdraw();
        this.#options.on_deadline?.();
        this.open(error);
      };
      if (deadline_ms > 0) timer = setTimeout(deadline_passed, deadline_ms);
      let started: PromiseLike<T>;
      try {
        started = operation();
      } catch (error) {
        waiting.settle(error ?? new Error("database operation failed"));
        return;
      }
      Promise.resolve(started).then(
        (value) => waiting.settle(undefined, value),
        (error: unknown) => {
          if (this.#options.is_outage(error)) this.open(error);
          waiting.settle(
            waiting.withdrawn
              ? this.#refusal(error)
              : error ?? new Error("database operation failed"),
          );
        },
      );
    });
  }

  /**
   * Opens the circuit (no-op when open): withdraws the operations in
   * progress (see {@link run}) and starts probing.
   */
  open(cause: unknown): void {
    if (this.#open_since !== undefined || this.#disposed) return;
    this.#open_since = performance.now();
    this.#cause = cause;
    this.#options.log?.(
      `Database unreachable (${
        describe(cause)
      }): refusing database work at once while probing`,
    );
    for (const waiting of [...this.#waiting]) {
      waiting.withdrawn = true;
      if (waiting.withdraw()) waiting.settle(this.#refusal());
    }
    this.#schedule_probe(FIRST_PROBE_DELAY_MS);
  }

  /** Stops probing; later operations are refused if the circuit is open. */
  dispose(): void {
    this.#disposed = true;
    clearTimeout(this.#probe_timer);
  }

  #refusal(cause: unknown = this.#cause): DatabaseUnavailableError {
    return new DatabaseUnavailableError("the database is unreachable", {
      cause,
    });
  }

  #schedule_probe(delay_ms: number): void {
    if (this.#disposed) return;
    this.#probe_timer = setTimeout(async () => {
      try {
        await this.#options.probe();
      } catch {
        this.#schedule_probe(Math.min(delay_ms * 2, LONGEST_PROBE_DELAY_MS));
        return;
      }
      if (this.#disposed || this.#open_since === undefined) return;
      const seconds = (performance.now() - this.#open_since) / 1000;
      this.#open_since = undefined;
      this.#cause = undefined;
      this.#options.log?.(
        `Database reachable again after ${seconds.toFixed(1)} s`,
      );
    }, delay_ms);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" && !error.message.includes(code)
      ? `${code}: ${error.message}`
      : error.message;
  }
  return String(error);
}
