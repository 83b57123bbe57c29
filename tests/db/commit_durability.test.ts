/**
 * Which commits wait for the WAL flush: the two statements of every API
 * request (API key + rate limit, quota reservation) turn
 * `synchronous_commit` off for their own transaction only; everything else
 * (keys, accounts, Idempotency-Key claims) keeps the server's durable
 * default. Runs the real repository functions with a `Database` whose
 * prepared statements execute inside a transaction that then reads the
 * setting.
 */
import { type SQL, sql } from "drizzle-orm";
import { assertEquals } from "../assert.ts";
import {
  authenticate_and_reserve,
  authenticate_api_key,
  create_account,
  create_api_key,
  type Database,
  type PreparedStatement,
  reserve_generation,
  settle_generation,
  type StatementParam,
} from "../../db/mod.ts";
import { query_rows } from "../../db/_util.ts";
import { open_test_database } from "../helpers/test_database.ts";

/** The statement with its `$n` placeholders bound to `params` by drizzle. */
function bound(text: string, params: readonly StatementParam[]): SQL {
  const parts = text.split(/\$(\d+)/);
  return sql.join(
    parts.map((part, index) =>
      index % 2 === 0 ? sql.raw(part) : sql`${params[Number(part) - 1]}`
    ),
  );
}

function rows_of<T>(result: unknown): T[] {
  return Array.isArray(result) ? result as T[] : (result as { rows: T[] }).rows;
}

/**
 * `database`, but each prepared statement runs in a transaction that records
 * the `synchronous_commit` its commit would use.
 */
function recording(
  database: Database,
  settings: Map<string, string>,
): Database {
  return {
    ...database,
    run<T>(
      statement: PreparedStatement,
      params: readonly StatementParam[],
    ): Promise<T[]> {
      return database.db.transaction(async (tx) => {
        const rows = rows_of<T>(
          await tx.execute(bound(statement.text, params)),
        );
        const [setting] = rows_of<{ value: string }>(
          await tx.execute(
            sql`select current_setting('synchronous_commit') as value`,
          ),
        );
        settings.set(statement.name, setting.value);
        return rows;
      });
    },
  };
}

async function session_setting(database: Database): Promise<string> {
  const [row] = await query_rows<{ value: string }>(
    database,
    sql`select current_setting('synchronous_commit') as value`,
  );
  return row.value;
}

Deno.test("per-request statements commit asynchronously, for their own transaction only", async () => {
  const test_database = await open_test_database();
  const { database } = test_database;
  try {
    assertEquals(await session_setting(database), "on");
    const account = await create_account(database, {
      email: "durability@example.com",
      plan: "pro",
    });
    const { key, id: key_id } = await create_api_key(database, {
      account_id: account.id,
      name: "durability",
    });
    const settings = new Map<string, string>();
    const observed = recording(database, settings);
    const reserve = (
      on: Database,
      charge: { request_hash: string; limit: number },
    ) =>
      reserve_generation(on, {
        account_id: account.id,
        month: "2030-05",
        day: "2030-05-02",
        key_id,
        ...charge,
      });

    const auth = await authenticate_api_key(observed, {
      key,
      now: new Date("2030-05-02T10:00:00Z"),
    });
    assertEquals(auth.status, "ok");
    const reserved = await reserve(observed, {
      request_hash: "durability-1",
      limit: 1_000,
    });
    assertEquals(reserved, { status: "reserved", used: 0 });
    // Delivered: settled (charged) in one statement as well.
    assertEquals(
      await settle_generation(observed, {
        account_id: account.id,
        month: "2030-05",
        day: "2030-05-02",
        key_id,
        request_hash: "durability-1",
      }),
      true,
    );
    // A used-up month answers without a write, still from one statement.
    const exhausted = await reserve(observed, {
      request_hash: "durability-2",
      limit: 1,
    });
    assertEquals(exhausted, { status: "exhausted", used: 1 });

    // Key and charge in one statement (a warm key's POST /generate).
    const both = await authenticate_and_reserve(observed, {
      key,
      now: new Date("2030-05-02T10:00:02Z"),
      month: "2030-05",
      day: "2030-05-02",
      request_hash: "durability-4",
      monthly_limits: { starter: 150, pro: 1_000, team: 10_000 },
    });
    assertEquals(both.reservation, { status: "reserved", used: 1 });

    assertEquals(Object.fromEntries(settings), {
      ink_authenticate_api_key: "off",
      ink_reserve_generation: "off",
      ink_settle_generation: "off",
      ink_authenticate_and_reserve: "off",
    });
    // Through the real driver too (PGlite is one session, so this reads
    // the very session that ran them): the setting ended with each
    // transaction, and later commits are durable again.
    await authenticate_api_key(database, {
      key,
      now: new Date("2030-05-02T10:00:01Z"),
    });
    await reserve(database, { request_hash: "durability-3", limit: 1_000 });
    assertEquals(await session_setting(database), "on");
  } finally {
    await test_database.close();
  }
});
