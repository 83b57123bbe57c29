/**
 * Accepts the service's connections itself and serves each with Deno's HTTP
 * server (server/deno_http_connection.ts), so that it can count, cap, time
 * out and drain them, at one file descriptor per connection.
 *
 * A connection is *waiting* while no request of it is being handled: from
 * its opening until its first request head has been read (`head`), and
 * from each delivered answer until the next request head has been read
 * (`idle`). Only waiting connections are timed and only they are ever
 * closed to make room:
 *
 * - `head` longer than `header_timeout_ms`, or `idle` longer than
 *   `keep_alive_timeout_ms`, closes the connection (checked a tenth of the
 *   shorter timeout apart, at most a second). The HTTP server reads a
 *   request head whole before the service sees it, so a head that begins
 *   after an idle spell counts against the keep-alive timeout.
 * - At `max_connections` open, each new connection closes the one that has
 *   been waiting longest (once it has waited `SETTLE_MS`, so that its last
 *   answer is out), and is served once that one is gone; when none is
 *   waiting, accepting pauses (new clients wait in the kernel's queue)
 *   until one closes or becomes idle.
 * - A failed accept (e.g. out of descriptors) never stops the service: it
 *   is logged at most once a second, the longest-waiting connection is
 *   closed when descriptors ran out, and accepting resumes after a back-off
 *   of 10 ms doubling to 1 s.
 *
 * While a request is being handled nothing here times it: slow bodies have
 * their own 408 (`BODY_TIMEOUT_MS`) and renders `RENDER_TIMEOUT_MS`.
 *
 * @module
 */
import {
  check_connection_serving,
  type ConnectionRequestInfo,
  serve_connection,
  type ServedConnection,
} from "./deno_http_connection.ts";

/** Settings of {@link start_connection_guard}. */
export interface ConnectionGuardOptions {
  /** Public address to listen on. */
  hostname: string;
  /** Public port (0 picks a free one). */
  port: number;
  /** Longest a connection may wait for its first request head, in ms; 0: no limit. */
  header_timeout_ms: number;
  /** Longest a connection may sit idle between requests, in ms; 0: no limit. */
  keep_alive_timeout_ms: number;
  /** Most connections open at once. */
  max_connections: number;
  /**
   * Accepts from this listener instead of listening on `hostname:port`
   * (tests of failing accepts).
   */
  listener?: Deno.Listener<Deno.TcpConn>;
  /** Where accept failures are reported (default `console.error`). */
  log_error?: (message: string) => void;
}

/** The handler the guard serves each request with. */
export type GuardedHandler = (
  request: Request,
  info: ConnectionRequestInfo,
) => Response | Promise<Response>;

/** A running guard. */
export interface ConnectionGuard {
  /** The public address. */
  address: Deno.NetAddr;
  /** Connections open now. */
  readonly open_connections: number;
  /**
   * Stops accepting, answers every request already received with
   * `Connection: close`, closes idle connections, and resolves when every
   * connection is closed.
   */
  shutdown(): Promise<void>;
}

/**
 * How long a connection that was waiting when shutdown began may still
 * send a request: a keep-alive client under load sends its next request
 * within milliseconds of its last answer, and that request is answered
 * rather than cut.
 */
export const DRAIN_WAIT_MS = 1_000;

/**
 * How long a connection must have waited before it is cut to make room:
 * an answer handed to the HTTP server is written out within moments, and
 * cutting the connection sooner could lose it.
 */
const SETTLE_MS = 100;

const ACCEPT_BACKOFF_MIN_MS = 10;
const ACCEPT_BACKOFF_MAX_MS = 1_000;
const ACCEPT_LOG_INTERVAL_MS = 1_000;

type Queue = "head" | "idle";

/**
 * Where a connection is: waiting for its first request head, idle between
 * requests, busy with requests, or cut (closed at once, not yet gone).
 */
type State = Queue | "busy" | "cut";

/** One accepted connection. */
class GuardedConnection {
  state: State = "head";
  /** When it entered its state (ms since the epoch). */
  since = Date.now();
  /** Requests being handled. */
  active = 0;
  /** Its next answer ends it: `Connection: close`, then closed. */
  closing = false;
  /** An answer with `Connection: close` was handed over. */
  told_to_close = false;

  constructor(readonly served: ServedConnection) {}
}

/** Reports accept failures at most once per interval, with a count of the rest. */
class ThrottledLog {
  #last = -Infinity;
  #suppressed = 0;

  constructor(readonly write: (message: string) => void) {}

  report(message: string): void {
    const now = Date.now();
    if (now - this.#last < ACCEPT_LOG_INTERVAL_MS) {
      this.#suppressed += 1;
      return;
    }
    const more = this.#suppressed > 0
      ? ` (${this.#suppressed} more since the last report)`
      : "";
    this.#last = now;
    this.#suppressed = 0;
    this.write(`${message}${more}`);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function descriptors_ran_out(error: unknown): boolean {
  const text = String((error as Error)?.message ?? error);
  return /EMFILE|ENFILE|too many open files|os error 2[34]\b/i.test(text);
}

function first<T>(set: Set<T>): T | undefined {
  for (const item of set) return item;
  return undefined;
}

/** `response` with `Connection: close` (a copy when its headers are immutable). */
function with_connection_close(response: Response): Response {
  try {
    response.headers.set("Connection", "close");
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set("Connection", "close");
    return copy;
  }
}

/** The open connections, what each is doing, and which may be closed. */
class ConnectionTable {
  readonly open = new Set<GuardedConnection>();
  // Waiting connections of each kind in the order they began waiting: the
  // front is the first to time out and the first to make room.
  readonly queues: Record<Queue, Set<GuardedConnection>> = {
    head: new Set(),
    idle: new Set(),
  };
  /** Connections cut and not yet gone. */
  #cut = 0;
  #settle_timer: ReturnType<typeof setTimeout> | undefined;
  #changed: (() => void) | undefined;
  #emptied: (() => void) | undefined;

  constructor(readonly max: number) {}

  get waiting(): number {
    return this.queues.head.size + this.queues.idle.size;
  }

  add(served: ServedConnection): GuardedConnection {
    const connection = new GuardedConnection(served);
    this.open.add(connection);
    this.queues.head.add(connection);
    return connection;
  }

  move(connection: GuardedConnection, state: State): void {
    const from = connection.state;
    if (from === "head" || from === "idle") {
      this.queues[from].delete(connection);
    }
    if (from === "cut") this.#cut -= 1;
    if (state === "cut") this.#cut += 1;
    connection.state = state;
    connection.since = Date.now();
    if (state === "head" || state === "idle") {
      this.queues[state].add(connection);
      this.wake();
    }
  }

  removed(connection: GuardedConnection): void {
    const from = connection.state;
    if (from === "head" || from === "idle") {
      this.queues[from].delete(connection);
    }
    if (from === "cut") this.#cut -= 1;
    this.open.delete(connection);
    this.wake();
    if (this.open.size === 0) this.#emptied?.();
  }

  /** Closes a waiting connection at once. */
  cut(connection: GuardedConnection): void {
    if (connection.closing) return;
    this.move(connection, "cut");
    connection.served.close();
  }

  /**
   * The connection that has waited longest, if it has waited at least
   * `settled_ms` (its last answer has been written out by then).
   */
  longest_waiting(settled_ms: number): GuardedConnection | undefined {
    const head = first(this.queues.head);
    const idle = first(this.queues.idle);
    const oldest = head && idle
      ? (head.since <= idle.since ? head : idle)
      : head ?? idle;
    if (!oldest || Date.now() - oldest.since < settled_ms) return undefined;
    return oldest;
  }

  /**
   * True if one more connection fits; otherwise cuts the connection that
   * has waited longest, if any, and returns false (room comes when it is
   * gone).
   */
  make_room(): boolean {
    if (this.open.size < this.max) return true;
    // One cut at a time: the last one is still going.
    if (this.#cut > 0) return false;
    const oldest = this.longest_waiting(SETTLE_MS);
    if (oldest) this.cut(oldest);
    else if (this.waiting > 0 && this.#settle_timer === undefined) {
      // Look again once the longest-waiting one has settled.
      this.#settle_timer = setTimeout(() => {
        this.#settle_timer = undefined;
        this.wake();
      }, SETTLE_MS);
    }
    return false;
  }

  /** Resolves when a connection closes or starts waiting. */
  changed(): Promise<void> {
    return new Promise<void>((resolve) => this.#changed = resolve);
  }

  /** Resolves when no connection is open. */
  emptied(): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.#emptied = resolve);
  }

  wake(): void {
    this.#changed?.();
    this.#changed = undefined;
  }

  stop(): void {
    clearTimeout(this.#settle_timer);
  }
}

/**
 * Listens on the public address and serves every connection with
 * `handler`; the handler sees each request's client address.
 */
export function start_connection_guard(
  handler: GuardedHandler,
  options: ConnectionGuardOptions,
): ConnectionGuard {
  check_connection_serving();
  const listener = options.listener ?? Deno.listen({
    hostname: options.hostname,
    port: options.port,
  });
  const guard = new Guard(listener, handler, options);
  return {
    address: listener.addr as Deno.NetAddr,
    get open_connections() {
      return guard.table.open.size;
    },
    shutdown() {
      return guard.shutdown();
    },
  };
}

/** One listener's connections: accepted, served, timed out and drained. */
class Guard {
  readonly table: ConnectionTable;
  readonly #log: ThrottledLog;
  readonly #sweep: ReturnType<typeof setInterval>;
  readonly #accepting: Promise<void>;
  #stopping = false;
  #draining = false;
  #drained: Promise<void> | undefined;

  constructor(
    readonly listener: Deno.Listener<Deno.TcpConn>,
    readonly handler: GuardedHandler,
    options: ConnectionGuardOptions,
  ) {
    this.table = new ConnectionTable(options.max_connections);
    this.#log = new ThrottledLog(options.log_error ?? console.error);
    this.#sweep = start_sweep(this.table, options);
    this.#accepting = this.#accept_loop();
  }

  shutdown(): Promise<void> {
    this.#drained ??= this.#drain();
    return this.#drained;
  }

  #request_started(connection: GuardedConnection): void {
    connection.active += 1;
    if (connection.state === "head" || connection.state === "idle") {
      this.table.move(connection, "busy");
    }
    if (this.#draining) end_after_answer(connection);
  }

  #request_finished(connection: GuardedConnection): void {
    connection.active -= 1;
    if (connection.active > 0 || connection.state !== "busy") return;
    if (connection.closing && connection.told_to_close) {
      connection.served.close_after_response();
      return;
    }
    this.table.move(connection, "idle");
    // Its last answer went out before the drain began, without
    // `Connection: close`: its client may send one more request, which is
    // answered (with it); a connection silent that long is closed.
    if (connection.closing) {
      setTimeout(() => {
        if (connection.state === "idle") {
          connection.served.close_after_response();
        }
      }, DRAIN_WAIT_MS);
    }
  }

  #serve(conn: Deno.TcpConn): void {
    conn.setNoDelay(true);
    const connection = this.table.add(
      serve_connection(conn, async (request, info) => {
        this.#request_started(connection);
        info.completed.then(finished, finished);
        const response = await this.handler(request, info);
        if (!connection.closing) return response;
        connection.told_to_close = true;
        return with_connection_close(response);
      }),
    );
    const finished = () => this.#request_finished(connection);
    connection.served.finished.then(() => this.table.removed(connection));
  }

  async #accept_loop(): Promise<void> {
    const table = this.table;
    let backoff = ACCEPT_BACKOFF_MIN_MS;
    while (!this.#stopping) {
      // Every connection busy: leave new clients in the kernel's queue.
      if (table.open.size >= table.max && table.waiting === 0) {
        await table.changed();
        continue;
      }
      let conn: Deno.TcpConn;
      try {
        conn = await this.listener.accept();
      } catch (error) {
        if (this.#stopping) break;
        await this.#accept_failed(error, backoff);
        backoff = Math.min(backoff * 2, ACCEPT_BACKOFF_MAX_MS);
        continue;
      }
      backoff = ACCEPT_BACKOFF_MIN_MS;
      // Every connection became busy meanwhile: this one waits its turn.
      while (!this.#stopping && !table.make_room()) await table.changed();
      if (this.#stopping) {
        conn.close();
        break;
      }
      this.#serve_accepted(conn);
    }
  }

  /** Logs the failure, frees a descriptor if they ran out, and backs off. */
  async #accept_failed(error: unknown, backoff: number): Promise<void> {
    this.#log.report(
      `Accepting a connection failed (${this.table.open.size} open): ${
        (error as Error)?.message ?? error
      }; retrying in ${backoff} ms`,
    );
    if (descriptors_ran_out(error)) {
      const oldest = this.table.longest_waiting(0);
      if (oldest) this.table.cut(oldest);
    }
    await sleep(backoff);
  }

  #serve_accepted(conn: Deno.TcpConn): void {
    try {
      this.#serve(conn);
    } catch (error) {
      // The connection broke before it could be served.
      this.#log.report(`Serving a new connection failed: ${error}`);
      try {
        conn.close();
      } catch {
        // Already closed.
      }
    }
  }

  async #drain(): Promise<void> {
    this.#stopping = true;
    this.#draining = true;
    try {
      this.listener.close();
    } catch {
      // Already closed.
    }
    this.table.wake();
    await this.#accepting;
    for (const connection of this.table.open) {
      if (connection.state === "busy") end_after_answer(connection);
    }
    // A waiting connection that sends nothing more soon is closed.
    const drain_timer = setTimeout(() => {
      for (const queue of ["head", "idle"] as const) {
        for (const connection of this.table.queues[queue]) {
          this.table.cut(connection);
        }
      }
    }, DRAIN_WAIT_MS);
    await this.table.emptied();
    clearTimeout(drain_timer);
    clearInterval(this.#sweep);
    this.table.stop();
  }
}

// A connection with a request in flight is closed once its answer is
// out, not before: closing the HTTP server of the connection makes a body
// not read yet unreadable, and the request it belongs to would fail.
function end_after_answer(connection: GuardedConnection): void {
  if (connection.closing) return;
  connection.closing = true;
  if (connection.active === 0) connection.served.close_after_response();
}

/** Cuts connections that waited past their timeout, until stopped. */
function start_sweep(
  table: ConnectionTable,
  options: ConnectionGuardOptions,
): ReturnType<typeof setInterval> {
  const timeout_of: Record<Queue, number> = {
    head: options.header_timeout_ms || Infinity,
    idle: options.keep_alive_timeout_ms || Infinity,
  };
  // Deadlines are checked a tenth of the shorter timeout apart (at most a
  // second), so a connection is cut at most that much after its deadline.
  const shorter = Math.min(timeout_of.head, timeout_of.idle, 10_000);
  return setInterval(() => {
    const now = Date.now();
    for (const queue of ["head", "idle"] as const) {
      for (const connection of table.queues[queue]) {
        if (now - connection.since < timeout_of[queue]) break;
        table.cut(connection);
      }
    }
  }, Math.max(10, Math.floor(shorter / 10)));
}
