/**
 * Test databases: a fresh, uniquely named PostgreSQL database when
 * `TEST_DATABASE_URL` is set (dropped on close), else an in-memory PGlite
 * started from a dump of a migrated database (`pglite_template.ts`).
 *
 * @module
 */
import postgres from "postgres";
import { type Database, open_database } from "../../db/mod.ts";
import { migrated_pglite_template } from "./pglite_template.ts";

/** An open test database. */
export interface TestDatabase {
  /** The opened, migrated database. */
  database: Database;
  /**
   * URL of the created PostgreSQL database (unset on PGlite), so tests can
   * open more handles or start app instances on the same database.
   */
  database_url?: string;
  /** Closes `database` and drops the PostgreSQL database, if one was made. */
  close(): Promise<void>;
}

/** `TEST_DATABASE_URL`, or undefined when tests should use PGlite. */
export function test_server_url(): string | undefined {
  return Deno.env.get("TEST_DATABASE_URL") || undefined;
}

/** Opens a fresh test database; see the module docs. */
export async function open_test_database(): Promise<TestDatabase> {
  const server_url = test_server_url();
  if (!server_url) {
    const database = await open_database({
      data_dir: "memory://",
      pglite_template: await migrated_pglite_template(),
    });
    return { database, close: () => database.close() };
  }
  const empty = await create_empty_test_database(server_url);
  let database: Database;
  try {
    database = await open_database({ database_url: empty.database_url });
  } catch (error) {
    await empty.drop();
    throw error;
  }
  return {
    database,
    database_url: empty.database_url,
    async close() {
      await database.close();
      await empty.drop();
    },
  };
}

/** An empty, unmigrated PostgreSQL database on the test server. */
export interface EmptyTestDatabase {
  /** Its URL. */
  database_url: string;
  /** Terminates its connections and drops it. */
  drop(): Promise<void>;
}

/** Creates an empty `test_<random>` database on the server at `server_url`. */
export async function create_empty_test_database(
  server_url: string,
): Promise<EmptyTestDatabase> {
  const name = `test_${crypto.randomUUID().replaceAll("-", "")}`;
  await with_admin(server_url, async (sql) => {
    await sql.unsafe(`create database "${name}"`);
  });
  const url = new URL(server_url);
  url.pathname = `/${name}`;
  return {
    database_url: url.toString(),
    drop: () => drop_database(server_url, name),
  };
}

async function drop_database(server_url: string, name: string): Promise<void> {
  await with_admin(server_url, async (sql) => {
    // Other handles (e.g. a second app instance) may still be connected.
    await sql`
      select pg_terminate_backend(pid) from pg_stat_activity
      where datname = ${name} and pid <> pg_backend_pid()
    `;
    await sql.unsafe(`drop database if exists "${name}" with (force)`);
  });
}

async function with_admin(
  server_url: string,
  body: (sql: postgres.Sql) => Promise<void>,
): Promise<void> {
  const sql = postgres(server_url, {
    max: 1,
    connect_timeout: 5,
    onnotice: () => {},
  });
  try {
    await body(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
