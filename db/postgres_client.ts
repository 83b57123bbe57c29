/**
 * The postgres.js pool behind a {@link CircuitBreaker}: a connect timeout,
 * a statement timeout on the server and a deadline on the client for every
 * statement, refusal at once while the database is unreachable, and no
 * connection left hanging on a silent network.
 *
 * postgres.js alone waits: a query queues for a connection whose reconnect
 * attempts back off (up to 20 s), and a query sent on a connection that
 * stopped answering waits for as long as the socket stays open. Here its
 * own back-off is off (the breaker paces the probes), and the pool opens
 * its sockets through {@link track_sockets}: when a statement passes its
 * deadline, the connections silent for that long are closed, and when a
 * probe fails, all of them, so no connection that hangs on a silent network
 * is used again; postgres.js connects afresh.
 *
 * @module
 */
import net from "node:net";
import postgres from "postgres";
import { CircuitBreaker } from "./circuit_breaker.ts";
import { DatabaseUnavailableError, is_connection_failure } from "./errors.ts";
import { open_postgres_client } from "./postgres_url.ts";

/** Timeouts of the pool. */
export interface PostgresTimeouts {
  /** Longest a new connection may take to be ready (TCP, TLS, start-up). */
  connect_timeout_ms: number;
  /** Longest one statement may run (the server's `statement_timeout`). */
  statement_timeout_ms: number;
}

/** A statement as postgres.js's `unsafe` takes it. */
type Params = postgres.ParameterOrJSON<never>[];

/** The guarded pool; see the module docs. */
export interface GuardedPostgres {
  /**
   * The client for drizzle: the part of postgres.js's `Sql` drizzle uses
   * (`unsafe`, `begin`, `savepoint`, `options`), each statement guarded.
   */
  sql: postgres.Sql;
  /** The breaker every statement runs through. */
  breaker: CircuitBreaker;
  /** Runs one statement (prepared once per connection) and returns its rows. */
  run<T>(
    text: string,
    params: readonly (string | number | null)[],
  ): Promise<T[]>;
  /** One round trip, answered or refused within `timeout_ms`. */
  ping(timeout_ms: number): Promise<void>;
  /** Ends the pool (at once while the database is unreachable). */
  close(): Promise<void>;
}

// The client-side deadline is a little longer than the server's
// statement_timeout, so a live server's own cancel (an ordinary error that
// leaves the connection usable) comes first.
const DEADLINE_GRACE_MS = 250;
// A probe is one connection and `select 1`.
const PROBE_EXTRA_MS = 1_000;

/** Opens the guarded pool for `url` (lazily: no connection is made yet). */
export function open_guarded_postgres(
  url: string,
  timeouts: PostgresTimeouts,
  log: (message: string) => void = (message) => console.error(message),
): GuardedPostgres {
  const sockets = track_sockets();
  let closing = false;
  // `socket` is documented (postgres.js README, "Custom socket") but not in
  // its type definitions.
  const options: postgres.Options<Record<string, never>> & {
    socket: typeof sockets.open;
  } = {
    max: 10,
    connect_timeout: timeouts.connect_timeout_ms / 1000,
    // Idle connections are dropped so a restarted server does not leave the
    // pool full of dead sockets.
    idle_timeout: 30,
    max_lifetime: 60 * 30,
    backoff: () => 0,
    // No array types are used. postgres.js 3.4.9 fetches them on every new
    // connection in a promise nobody awaits, so a connection that fails
    // during that query rejected it unhandled, which ends the process.
    fetch_types: false,
    socket: sockets.open,
    onnotice: () => {},
    connection: {
      application_name: "ink",
      statement_timeout: timeouts.statement_timeout_ms,
      idle_in_transaction_session_timeout: 60_000,
    },
  };
  const client = open_postgres_client(url, options);
  const breaker = new CircuitBreaker({
    deadline_ms: timeouts.statement_timeout_ms + DEADLINE_GRACE_MS,
    // One connection slow to open while the others are answered is load
    // (a starved machine forks backends slowly), not an outage.
    is_outage: (error) =>
      !closing && is_connection_failure(error) &&
      !(is_connect_timeout(error) &&
        sockets.heard_within(timeouts.connect_timeout_ms)),
    answered_within: (ms) => sockets.heard_within(ms),
    // A statement past its deadline waits on a connection that has said
    // nothing for that long; so has any such connection, or it is idle.
    on_deadline: () => sockets.close_silent(timeouts.statement_timeout_ms),
    probe: async () => {
      try {
        await within(
          timeouts.connect_timeout_ms + PROBE_EXTRA_MS,
          client`select 1`,
        );
      } catch (error) {
        sockets.close_all();
        throw error;
      }
    },
    log,
  });
  return {
    sql: guard_sql(client, breaker),
    breaker,
    async run<T>(
      text: string,
      params: readonly (string | number | null)[],
    ): Promise<T[]> {
      // postgres.js prepares a statement once per connection, keyed by its
      // text, and re-prepares by itself after a reconnect.
      const query = client.unsafe(text, params as Params, { prepare: true });
      const rows = await breaker.run(() => query, () => withdraw(query));
      // A plain array, as from PGlite, not postgres.js's Result subclass.
      return Array.from(rows) as T[];
    },
    async ping(timeout_ms: number) {
      const query = client`select 1`;
      await within(
        timeout_ms,
        breaker.run(() => query, () => withdraw(query)),
      );
    },
    async close() {
      if (closing) return;
      closing = true;
      const unreachable = breaker.is_open;
      breaker.dispose();
      await client.end({ timeout: unreachable ? 0 : 5 });
      sockets.close_all();
    },
  };
}

/**
 * The sockets of a pool, with when each last received anything, so that
 * they can be closed at once: all, or those silent for a while.
 */
function track_sockets() {
  // When each socket opened or last received something (its silence).
  const open_sockets = new Map<net.Socket, number>();
  // When the database last said something on any socket: a socket still
  // connecting, or reconnecting in a loop, is not the database answering.
  let last_heard = -Infinity;
  let next_host = 0;
  return {
    /** postgres.js's `socket` option: connects as postgres.js would. */
    open(options: {
      host: string[];
      port: number[];
      path?: string | false;
    }): net.Socket {
      let socket: net.Socket;
      if (options.path) socket = net.connect(options.path);
      else {
        const index = next_host++ % options.host.length;
        const [host, port] = [options.host[index], options.port[index]];
        socket = net.connect(port, host);
        // postgres.js names these in its connection errors.
        Object.assign(socket, { host, port });
      }
      open_sockets.set(socket, performance.now());
      socket.on("data", () => {
        last_heard = performance.now();
        open_sockets.set(socket, last_heard);
      });
      socket.once("close", () => open_sockets.delete(socket));
      return socket;
    },
    /** Closes every socket: postgres.js fails what waits on them and reconnects. */
    close_all(): void {
      for (const socket of open_sockets.keys()) socket.destroy();
      open_sockets.clear();
    },
    /** Whether any socket received something within the last `ms`. */
    heard_within(ms: number): boolean {
      return performance.now() - last_heard < ms;
    },
    /**
     * Closes the sockets that received nothing for `ms`: each hangs or is
     * idle (a statement would have been answered or cancelled by then).
     */
    close_silent(ms: number): void {
      const now = performance.now();
      for (const [socket, silent_since] of open_sockets) {
        if (now - silent_since >= ms) {
          socket.destroy();
          open_sockets.delete(socket);
        }
      }
    },
  };
}

function is_connect_timeout(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "CONNECT_TIMEOUT";
}

/**
 * Withdraws a statement (postgres.js's `cancel()`): one not sent yet is
 * dropped and rejects at once, one sent is cancelled on the server if it
 * still runs. Either way it settles by itself: the caller waits for that.
 */
function withdraw(query: { cancel(): unknown }): boolean {
  // postgres.js 3.4.9's `cancel()` drops the promise of its cancel request
  // (`return this.canceller && (this.canceller(this), this.canceller =
  // null)`), which rejects when the database refuses the cancel's
  // connection: unhandled, that ends the process. The canceller is called
  // here instead, so that promise is kept and its failure ignored.
  const cancellable = query as {
    cancel(): unknown;
    canceller?: ((query: unknown) => unknown) | null;
  };
  const canceller = cancellable.canceller;
  if (typeof canceller === "function") {
    cancellable.canceller = null;
    Promise.resolve(canceller(query)).catch(() => {});
  } else {
    Promise.resolve(query.cancel()).catch(() => {});
  }
  return false;
}

interface PendingLike<T> extends PromiseLike<T> {
  values(): PromiseLike<T>;
}

/**
 * A client for drizzle whose statements and transactions run through
 * `breaker`. A transaction given up while it waited for a connection is
 * rolled back when it starts (its caller has already been answered).
 */
function guard_sql(
  client: postgres.Sql | postgres.TransactionSql,
  breaker: CircuitBreaker,
): postgres.Sql {
  const unsafe = (text: string, params?: Params, options?: object) => {
    const query = client.unsafe(text, params, options);
    let result: Promise<unknown> | undefined;
    const start = () =>
      result ??= breaker.run(() => query, () => withdraw(query));
    const pending: PendingLike<unknown> = {
      values() {
        query.values();
        return start();
      },
      then(resolve, reject) {
        return start().then(resolve, reject);
      },
    };
    return pending;
  };
  // A transaction whose body has not begun when its caller is refused
  // rolls back when it begins; one that has begun is waited for.
  const guarded_scope = <T>(
    open_scope: (
      body: (tx: postgres.TransactionSql) => Promise<T>,
    ) => Promise<T>,
    body: (sql: postgres.Sql) => Promise<T>,
  ): Promise<T> => {
    let state: "waiting" | "begun" | "withdrawn" = "waiting";
    return breaker.run(
      () =>
        open_scope((tx) => {
          if (state === "withdrawn") {
            return Promise.reject(
              new DatabaseUnavailableError("transaction withdrawn"),
            );
          }
          state = "begun";
          return body(guard_sql(tx, breaker));
        }),
      () => {
        if (state === "begun") return false;
        state = "withdrawn";
        return true;
      },
    );
  };
  const facade = {
    // drizzle sets its type parsers on the pool's options once.
    options: "options" in client ? client.options : undefined,
    unsafe,
    begin: <T>(body: (sql: postgres.Sql) => Promise<T>) =>
      guarded_scope<T>(
        (scope) => (client as postgres.Sql).begin(scope) as Promise<T>,
        body,
      ),
    savepoint: <T>(body: (sql: postgres.Sql) => Promise<T>) =>
      guarded_scope<T>(
        (scope) =>
          (client as postgres.TransactionSql).savepoint(scope) as Promise<T>,
        body,
      ),
  };
  // drizzle's postgres-js session uses exactly these members.
  return facade as unknown as postgres.Sql;
}

/** `promise`, or a `DatabaseUnavailableError` after `ms`. */
export async function within<T>(
  ms: number,
  promise: PromiseLike<T>,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DatabaseUnavailableError(
            `the database did not answer within ${ms} ms`,
          ),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
