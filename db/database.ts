/**
 * Opening the database: PostgreSQL through postgres.js when a URL is given,
 * otherwise an embedded PGlite. Migrations are applied on open.
 *
 * @module
 */
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzle_postgres } from "drizzle-orm/postgres-js";
import { migrate as migrate_postgres } from "drizzle-orm/postgres-js/migrator";
import {
  DEFAULT_MIN_FREE_MB,
  type FreeSpaceWatch,
  watch_free_space,
} from "./disk_space.ts";
import {
  DatabaseUnavailableError,
  DataDirError,
  is_database_unavailable,
  is_disk_full,
} from "./errors.ts";
import type { PGlite } from "@electric-sql/pglite";
import { type DataDirLock, lock_data_dir } from "./data_dir_lock.ts";
import { MIGRATIONS_FOLDER } from "./migrations_folder.ts";
import { open_guarded_postgres, within } from "./postgres_client.ts";
import { open_postgres_client } from "./postgres_url.ts";
import * as schema from "./schema.ts";

export {
  database_open_failure,
  database_refusal_of,
  type DatabaseRefusal,
  DatabaseUnavailableError,
  DataDirError,
  is_database_unavailable,
  unavailable_public_message,
} from "./errors.ts";

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
  /**
   * Round trip to the database, answered within `timeout_ms` (default
   * {@linkcode PING_TIMEOUT_MS}); rejects with `DatabaseUnavailableError`.
   */
  ping(timeout_ms?: number): Promise<void>;
}

/** Options for {@linkcode open_database}. */
export interface OpenDatabaseOptions {
  /** PostgreSQL URL; when set, postgres.js is used. */
  database_url?: string;
  /** PGlite data directory (created if missing) or "memory://". */
  data_dir?: string;
  /**
   * PostgreSQL: longest a new connection may take to be ready, in ms
   * (default {@linkcode DEFAULT_CONNECT_TIMEOUT_MS}).
   */
  connect_timeout_ms?: number;
  /**
   * PostgreSQL: longest one statement may run, in ms (default
   * {@linkcode DEFAULT_STATEMENT_TIMEOUT_MS}); past it the statement is
   * cancelled and, if the server does not answer at all, the database
   * counts as unreachable.
   */
  statement_timeout_ms?: number;
  /**
   * PGlite in a directory: below this many bytes free on its file system,
   * database work is refused (default 64 MiB; see `disk_space.ts`).
   */
  min_free_bytes?: number;
  /** Where outage and disk-space lines go (default: stderr). */
  log?: (message: string) => void;
  /**
   * With "memory://": start from this dump of a migrated PGlite database
   * (`PGlite.dumpDataDir`) instead of running `initdb` and every migration
   * again. Tests open hundreds of databases; each then costs ~0.5 s of CPU
   * instead of ~3 s.
   */
  pglite_template?: Blob;
}

/** Default connect timeout for PostgreSQL (`DATABASE_CONNECT_TIMEOUT_MS`). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
/** Default statement timeout for PostgreSQL (`DATABASE_STATEMENT_TIMEOUT_MS`). */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;
/** Default bound of {@linkcode Database.ping} (so `/readyz` answers within 1 s). */
export const PING_TIMEOUT_MS = 900;

// Arbitrary constant shared by every instance of this app: the key of the
// advisory lock that serialises migrations across instances.
const MIGRATION_LOCK_KEY = 7_431_092_118_223_551n;

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
    return await open_postgres(options.database_url, options);
  }
  return await open_pglite(options.data_dir ?? "memory://", options);
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

async function open_postgres(
  url: string,
  options: OpenDatabaseOptions,
): Promise<Database> {
  const connect_timeout_ms = options.connect_timeout_ms ??
    DEFAULT_CONNECT_TIMEOUT_MS;
  await migrate_with_lock(url, connect_timeout_ms);
  const pool = open_guarded_postgres(url, {
    connect_timeout_ms,
    statement_timeout_ms: options.statement_timeout_ms ??
      DEFAULT_STATEMENT_TIMEOUT_MS,
  }, options.log);
  const db = drizzle_postgres({ client: pool.sql, schema }) as unknown as Db;
  return {
    db,
    kind: "postgres",
    run: <T>(statement: PreparedStatement, params: readonly StatementParam[]) =>
      pool.run<T>(statement.text, params),
    close: () => pool.close(),
    async ping(timeout_ms = PING_TIMEOUT_MS) {
      await as_unavailable("database ping failed", () => pool.ping(timeout_ms));
    },
  };
}

// Two instances starting together must not both run the migrator: the first
// takes a session-level advisory lock, the second waits, then finds nothing
// left to apply. A dedicated single connection keeps lock and unlock on the
// same backend session; if this process dies, the lock goes with it.
async function migrate_with_lock(
  url: string,
  connect_timeout_ms: number,
): Promise<void> {
  const client = open_postgres_client(url, {
    max: 1,
    connect_timeout: connect_timeout_ms / 1000,
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

async function open_pglite(
  data_dir: string,
  options: OpenDatabaseOptions,
): Promise<Database> {
  // Imported here, not at the top: a service on PostgreSQL never loads
  // PGlite (about 1.5 MB of heap less).
  const [
    { initialise_in_worker, is_new_data_dir, start_pglite },
    { drizzle: drizzle_pglite },
  ] = await Promise.all([
    import("./pglite_start.ts"),
    import("drizzle-orm/pglite"),
  ]);
  const { space, lock } = await hold_data_dir(data_dir, options);
  let client;
  try {
    // Starting writes too (recovery, migrations): not on a disk that is full.
    space?.check();
    if (await is_new_data_dir(data_dir)) await initialise_in_worker(data_dir);
    client = await start_pglite(data_dir, options.pglite_template);
  } catch (error) {
    lock?.release();
    throw error;
  }
  // Every use of PGlite goes through here: refused while its disk is short.
  const guarded = async <T>(operation: () => Promise<T>): Promise<T> => {
    space?.check();
    try {
      return await operation();
    } catch (error) {
      if (is_disk_full(error)) space?.report_full();
      throw error;
    }
  };
  // drizzle's PGlite session uses exactly these two members.
  const guarded_client = {
    query: (...args: Parameters<typeof client.query>) =>
      guarded(() => client.query(...args)),
    transaction: (...args: Parameters<typeof client.transaction>) =>
      guarded(() => client.transaction(...args)),
  } as unknown as typeof client;
  const db = drizzle_pglite({
    client: guarded_client,
    schema,
  }) as unknown as Db;
  let closed = false;
  return {
    db,
    kind: "pglite",
    run: pglite_statements(client, guarded),
    async close() {
      if (closed) return;
      closed = true;
      // Closing writes a shutdown checkpoint to the WAL, which may not fit:
      // with the disk short, the process leaves PGlite as a crash would,
      // and the next start recovers from the WAL (already written out).
      try {
        if (space?.short) {
          (options.log ?? console.error)(
            "Not closing PGlite cleanly: its disk is nearly full; the next start recovers from its WAL",
          );
          return;
        }
        await client.close();
      } finally {
        lock?.release();
      }
    },
    async ping(timeout_ms = PING_TIMEOUT_MS) {
      await as_unavailable(
        "database ping failed",
        () => within(timeout_ms, guarded(() => client.query("select 1"))),
      );
    },
  };
}

/**
 * A data directory on disk made, locked for this process and watched for
 * free space; nothing for an in-memory or URL database.
 */
async function hold_data_dir(
  data_dir: string,
  options: OpenDatabaseOptions,
): Promise<{ space?: FreeSpaceWatch; lock?: DataDirLock }> {
  if (data_dir.includes("://")) return {};
  try {
    await Deno.mkdir(data_dir, { recursive: true });
  } catch (error) {
    throw new DataDirError(data_dir, error);
  }
  const lock = await lock_data_dir(data_dir);
  const space = watch_free_space(data_dir, {
    min_free_bytes: options.min_free_bytes ?? DEFAULT_MIN_FREE_MB * 2 ** 20,
    log: options.log,
  });
  return { space, lock };
}

/** `Database.run` on PGlite: each statement prepared once, then executed. */
function pglite_statements(
  client: PGlite,
  guarded: <T>(operation: () => Promise<T>) => Promise<T>,
): Database["run"] {
  // PGlite is one session: each statement is prepared in it once (the
  // promise also keeps two first calls from both preparing it).
  const prepared = new Map<string, Promise<unknown>>();
  return function run<T>(
    statement: PreparedStatement,
    params: readonly StatementParam[],
  ): Promise<T[]> {
    return guarded(async () => {
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
      // PGlite's query API cannot bind parameters to EXECUTE, so they go
      // in as quoted literals, which PREPARE's declared types then check.
      // Sent as a simple query: one message into PostgreSQL instead of the
      // extended protocol's parse, bind, describe and execute (a quarter
      // less time per statement), its rows parsed by type as `query` does.
      const [result] = await client.exec(
        `execute ${statement.name}${in_parentheses(params.map(sql_literal))}`,
      );
      return result.rows as T[];
    });
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

/** Runs `operation`; any failure becomes a `DatabaseUnavailableError`. */
async function as_unavailable(
  message: string,
  operation: () => Promise<unknown>,
): Promise<void> {
  try {
    await operation();
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) throw error;
    throw new DatabaseUnavailableError(message, { cause: error });
  }
}
