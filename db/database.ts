/**
 * Opening the database: PostgreSQL through postgres.js when a URL is given,
 * otherwise an embedded PGlite. Migrations are applied on open.
 *
 * @module
 */
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzle_postgres } from "drizzle-orm/postgres-js";
import { migrate as migrate_postgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { MIGRATIONS_FOLDER } from "./migrations_folder.ts";
import * as schema from "./schema.ts";

/** Drizzle handle usable with either driver. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/**
 * A statement on a per-request path, prepared once per connection and from
 * then on only executed: PostgreSQL skips parsing and planning, and the
 * client skips building SQL through drizzle. Measured on the API key and
 * quota statements: about 60% less database CPU and half the round-trip time.
 */
export interface PreparedStatement {
  /** A name unique in the process (PGlite's `PREPARE` needs one). */
  name: string;
  /** The SQL type of each `$n` parameter, in order. */
  types: readonly string[];
  /** The statement, with `$1`… placeholders. */
  text: string;
}

/** A parameter value of a {@linkcode PreparedStatement}. */
export type StatementParam = string | number | null;

/** An open database, whichever driver backs it. */
export interface Database {
  /** Drizzle handle; repositories in this folder take the whole `Database`. */
  db: Db;
  /** Which driver backs `db`. */
  kind: "postgres" | "pglite";
  /** Runs a {@linkcode PreparedStatement} and returns its rows. */
  run<T>(
    statement: PreparedStatement,
    params: readonly StatementParam[],
  ): Promise<T[]>;
  /** Closes the pool or the embedded database. Safe to call twice. */
  close(): Promise<void>;
  /** Round trip to the database; rejects with `DatabaseUnavailableError`. */
  ping(): Promise<void>;
}

/** Options for {@linkcode open_database}. */
export interface OpenDatabaseOptions {
  /** PostgreSQL URL; when set, postgres.js is used. */
  database_url?: string;
  /** PGlite data directory (created if missing) or "memory://". */
  data_dir?: string;
}

/** Thrown when the database cannot be reached (the server should answer 503). */
export class DatabaseUnavailableError extends Error {
  /** Wraps the driver's error as `cause`. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DatabaseUnavailableError";
  }
}

// Node/Deno socket errors and postgres.js's own connection error codes.
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  // SQLSTATEs: admin/crash shutdown, starting up, too many connections,
  // and statement_timeout / cancel: a query stuck past STATEMENT_TIMEOUT_MS
  // means the database is not serving, so callers should answer 503.
  "57014",
  "57P01",
  "57P02",
  "57P03",
  "53300",
]);

const UNAVAILABLE_MESSAGE =
  /connection (terminated|refused|reset|closed|ended)|connect_timeout|timed? ?out|server closed the connection|the database system is (starting up|shutting down)/i;

const UNAVAILABLE_ERROR_NAMES = new Set([
  "ConnectionRefused",
  "ConnectionReset",
  "ConnectionAborted",
  "NotConnected",
  "TimedOut",
  "BrokenPipe",
]);

/**
 * True when `error` (or any error in its `cause` chain, e.g. inside drizzle's
 * DrizzleQueryError) means the database is unreachable rather than that the
 * query was wrong.
 */
export function is_database_unavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current != null; depth++) {
    if (current instanceof DatabaseUnavailableError) return true;
    if (typeof current !== "object") return false;
    const e = current as {
      code?: unknown;
      errno?: unknown;
      name?: unknown;
      message?: unknown;
      cause?: unknown;
    };
    const code = typeof e.code === "string" ? e.code : undefined;
    if (code !== undefined) {
      if (UNAVAILABLE_CODES.has(code)) return true;
      // SQLSTATE class 08: connection exception.
      if (/^08[0-9A-Z]{3}$/.test(code)) return true;
    }
    if (typeof e.errno === "string" && UNAVAILABLE_CODES.has(e.errno)) {
      return true;
    }
    if (typeof e.name === "string" && UNAVAILABLE_ERROR_NAMES.has(e.name)) {
      return true;
    }
    // Only trust the message for errors that carry no SQLSTATE: a query error
    // whose text happens to say "timeout" is not an outage.
    if (
      code === undefined && typeof e.message === "string" &&
      UNAVAILABLE_MESSAGE.test(e.message)
    ) {
      return true;
    }
    current = e.cause;
  }
  return false;
}

// Arbitrary constant shared by every instance of this app: the key of the
// advisory lock that serialises migrations across instances.
const MIGRATION_LOCK_KEY = 7_431_092_118_223_551n;

// A query that cannot finish in this time is treated as an outage rather than
// left hanging (a lock wait, a stuck server).
const STATEMENT_TIMEOUT_MS = 15_000;
const CONNECT_TIMEOUT_S = 5;
const PING_TIMEOUT_MS = 5_000;

/**
 * Opens the database and applies pending migrations.
 *
 * Uses postgres.js when `database_url` is set, else PGlite in `data_dir`
 * (default "memory://"). Rejects with `DatabaseUnavailableError` when the
 * PostgreSQL server cannot be reached.
 */
export async function open_database(
  options: OpenDatabaseOptions,
): Promise<Database> {
  if (options.database_url) {
    return await open_postgres(options.database_url);
  }
  return await open_pglite(options.data_dir ?? "memory://");
}

/**
 * The same database, but `observe` is told the name and duration (seconds,
 * round trip included) of every {@linkcode PreparedStatement} run, failed
 * ones too: the per-request database work, for metrics. The original is
 * left as it is.
 */
export function observe_statements(
  database: Database,
  observe: (name: string, seconds: number) => void,
): Database {
  return {
    ...database,
    async run<T>(
      statement: PreparedStatement,
      params: readonly StatementParam[],
    ): Promise<T[]> {
      const started = performance.now();
      try {
        return await database.run<T>(statement, params);
      } finally {
        observe(statement.name, (performance.now() - started) / 1000);
      }
    },
  };
}

async function open_postgres(url: string): Promise<Database> {
  await migrate_with_lock(url);
  const client = postgres(url, {
    max: 10,
    connect_timeout: CONNECT_TIMEOUT_S,
    // Idle connections are dropped so a restarted server does not leave the
    // pool full of dead sockets; postgres.js reconnects lazily per query.
    idle_timeout: 30,
    max_lifetime: 60 * 30,
    onnotice: () => {},
    connection: {
      application_name: "ink",
      statement_timeout: STATEMENT_TIMEOUT_MS,
      idle_in_transaction_session_timeout: 60_000,
    },
  });
  const db = drizzle_postgres({ client, schema }) as unknown as Db;
  let closed = false;
  const database: Database = {
    db,
    kind: "postgres",
    async run<T>(
      statement: PreparedStatement,
      params: readonly StatementParam[],
    ): Promise<T[]> {
      // postgres.js prepares a statement once per connection, keyed by its
      // text, and re-prepares by itself after a reconnect.
      const rows = await client.unsafe(
        statement.text,
        params as StatementParam[],
        { prepare: true },
      );
      // A plain array, as from PGlite, not postgres.js's Result subclass.
      return Array.from(rows) as T[];
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.end({ timeout: 5 });
    },
    async ping() {
      await ping_with_timeout(() => client`select 1`);
    },
  };
  return database;
}

// Two instances starting together must not both run the migrator: the first
// takes a session-level advisory lock, the second waits, then finds nothing
// left to apply. A dedicated single connection keeps lock and unlock on the
// same backend session; if this process dies, the lock goes with it.
async function migrate_with_lock(url: string): Promise<void> {
  const client = postgres(url, {
    max: 1,
    connect_timeout: CONNECT_TIMEOUT_S,
    onnotice: () => {},
    connection: { application_name: "ink-migrate" },
  });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    try {
      await migrate_postgres(drizzle_postgres({ client }), {
        migrationsFolder: MIGRATIONS_FOLDER,
      });
    } finally {
      await client`select pg_advisory_unlock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    }
  } catch (error) {
    if (is_database_unavailable(error)) {
      throw new DatabaseUnavailableError("PostgreSQL is unreachable", {
        cause: error,
      });
    }
    throw error;
  } finally {
    await client.end({ timeout: 5 });
  }
}

async function open_pglite(data_dir: string): Promise<Database> {
  // Imported here, not at the top: a service on PostgreSQL never loads
  // PGlite (about 1.5 MB of heap less).
  const [
    { initialise_in_worker, is_new_data_dir, start_pglite },
    { drizzle: drizzle_pglite },
  ] = await Promise.all([
    import("./pglite_start.ts"),
    import("drizzle-orm/pglite"),
  ]);
  if (await is_new_data_dir(data_dir)) await initialise_in_worker(data_dir);
  const client = await start_pglite(data_dir);
  const db = drizzle_pglite({ client, schema }) as unknown as Db;
  let closed = false;
  // PGlite is one session: each statement is prepared in it once (the
  // promise also keeps two first calls from both preparing it).
  const prepared = new Map<string, Promise<unknown>>();
  return {
    db,
    kind: "pglite",
    async run<T>(
      statement: PreparedStatement,
      params: readonly StatementParam[],
    ): Promise<T[]> {
      let ready = prepared.get(statement.name);
      if (!ready) {
        ready = client.exec(
          `prepare ${statement.name}${
            in_parentheses(statement.types)
          } as ${statement.text}`,
        );
        prepared.set(statement.name, ready);
        ready.catch(() => prepared.delete(statement.name));
      }
      await ready;
      // PGlite's query API cannot bind parameters to EXECUTE, so they go in
      // as quoted literals, which PREPARE's declared types then check.
      const result = await client.query<T>(
        `execute ${statement.name}${in_parentheses(params.map(sql_literal))}`,
      );
      return result.rows;
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
    async ping() {
      await ping_with_timeout(() => client.query("select 1"));
    },
  };
}

// PREPARE and EXECUTE take no parentheses at all without parameters.
function in_parentheses(list: readonly string[]): string {
  return list.length === 0 ? "" : ` (${list.join(", ")})`;
}

/**
 * A parameter as an SQL literal for PGlite's EXECUTE. With
 * standard_conforming_strings (on by default, never changed here) doubling
 * single quotes is the complete escaping, as in libpq's PQescapeLiteral.
 */
function sql_literal(value: StatementParam): string {
  if (value === null) return "null";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw new RangeError(`not a finite number: ${value}`);
    }
    return String(value);
  }
  if (value.includes("\0")) {
    throw new RangeError("a statement parameter must not contain NUL");
  }
  return `'${value.replaceAll("'", "''")}'`;
}

async function ping_with_timeout(query: () => Promise<unknown>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DatabaseUnavailableError("database ping timed out")),
      PING_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([query(), timeout]);
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) throw error;
    throw new DatabaseUnavailableError("database ping failed", {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}
