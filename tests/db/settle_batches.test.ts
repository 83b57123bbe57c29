/**
 * Settlements due in the same turn of the event loop reach the database as
 * one statement; one alone as the single settlement; each caller gets its
 * own outcome, and a failed statement fails each of its settlements.
 */
import { assertEquals, assertRejects } from "../assert.ts";
import {
  type ChargeFields,
  create_account,
  type Database,
  get_usage,
  type PreparedStatement,
  reserve_generation,
  type StatementParam,
} from "../../db/mod.ts";
import {
  SETTLE_BATCH_LIMIT,
  SettleBatches,
} from "../../server/generate/settle_batches.ts";
import { open_test_database } from "../helpers/test_database.ts";

const MONTH = "2030-07";
const DAY = "2030-07-09";

function counting(database: Database, fail = false) {
  const statements: string[] = [];
  const counted: Database = {
    ...database,
    run<T>(
      statement: PreparedStatement,
      params: readonly StatementParam[],
    ): Promise<T[]> {
      statements.push(statement.name);
      if (fail) return Promise.reject(new Error("connection lost"));
      return database.run<T>(statement, params);
    },
  };
  return { statements, counted };
}

Deno.test("SettleBatches: one statement for the settlements due together, the single one for one alone", async () => {
  const { database, close } = await open_test_database();
  try {
    const account = await create_account(database, {
      email: "batches@example.com",
      plan: "team",
    });
    const charges: ChargeFields[] = [];
    for (let index = 0; index < SETTLE_BATCH_LIMIT + 12; index++) {
      const charge = {
        account_id: account.id,
        month: MONTH,
        day: DAY,
        request_hash: `v2:batches-${index}`,
      };
      await reserve_generation(database, { ...charge, limit: 10_000 });
      charges.push(charge);
    }
    const { statements, counted } = counting(database);
    const batches = new SettleBatches(counted);
    assertEquals(await batches.settle(charges[0]), true);
    assertEquals(statements, ["ink_settle_generation"]);
    statements.length = 0;
    // The first again (settled already) among new ones: its own outcome.
    const outcomes = await Promise.all(
      charges.map((charge) => batches.settle(charge)),
    );
    assertEquals(outcomes, charges.map((_, index) => index > 0));
    // A full batch goes at once; the rest with the next turn.
    assertEquals(statements, [
      "ink_settle_generations",
      "ink_settle_generations",
    ]);
    assertEquals(
      await get_usage(database, account.id, { month: MONTH }),
      charges.length,
    );
  } finally {
    await close();
  }
});

Deno.test("SettleBatches: a failed statement fails each settlement in it", async () => {
  const { database, close } = await open_test_database();
  try {
    const { counted } = counting(database, true);
    const batches = new SettleBatches(counted);
    const charge = {
      account_id: crypto.randomUUID(),
      month: MONTH,
      day: DAY,
      request_hash: "v2:lost",
    };
    const settling = [1, 2, 3].map((n) =>
      batches.settle({ ...charge, request_hash: `v2:lost-${n}` })
    );
    for (const one of settling) {
      await assertRejects(() => one, Error, "connection lost");
    }
  } finally {
    await close();
  }
});
