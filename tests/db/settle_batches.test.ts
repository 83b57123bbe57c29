/**
 * Settlements due within the batch window reach the database as one
 * statement, a full batch at once; one alone as the single settlement; each
 * caller gets its own outcome, and a failed statement fails each of its
 * settlements.
 */
import {
  assertEquals,
  assertGreater,
  assertLess,
  assertRejects,
} from "../assert.ts";
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
  SETTLE_BATCH_WINDOW_MS,
  SettleBatches,
} from "../../server/generate/settle_batches.ts";
import { PendingSettlements } from "../../server/generate/pending_settlements.ts";
import { open_test_database } from "../helpers/test_database.ts";

const MONTH = "2030-07";
const DAY = "2030-07-09";

/** A charge of `account_id` this month for the request `request_hash`. */
function charge_of(account_id: string, request_hash: string): ChargeFields {
  return { account_id, month: MONTH, day: DAY, request_hash };
}

/** `charges`, each reserved first, as a request's statement reserves it. */
async function reserved(
  database: Database,
  charges: ChargeFields[],
): Promise<ChargeFields[]> {
  for (const charge of charges) {
    await reserve_generation(database, { ...charge, limit: 10_000 });
  }
  return charges;
}

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
    const charges = await reserved(
      database,
      Array.from(
        { length: SETTLE_BATCH_LIMIT + 12 },
        (_, index) => charge_of(account.id, `v2:batches-${index}`),
      ),
    );
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
    // A full batch goes at once; the rest when the window ends.
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

Deno.test("SettleBatches: settlements that come due a few milliseconds apart share one statement", async () => {
  const { database, close } = await open_test_database();
  try {
    const account = await create_account(database, {
      email: "window@example.com",
      plan: "team",
    });
    const charges = await reserved(
      database,
      [1, 2, 3].map((n) => charge_of(account.id, `v2:window-${n}`)),
    );
    const { statements, counted } = counting(database);
    const batches = new SettleBatches(counted);
    const started = performance.now();
    const settling: Promise<boolean>[] = [];
    for (const charge of charges) {
      settling.push(batches.settle(charge));
      // Deliveries end in turns of their own, timers apart.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    assertEquals(await Promise.all(settling), [true, true, true]);
    assertEquals(statements, ["ink_settle_generations"]);
    // Not before the window of the first has passed.
    assertGreater(performance.now() - started, SETTLE_BATCH_WINDOW_MS - 1);
    assertEquals(await get_usage(database, account.id, { month: MONTH }), 3);
  } finally {
    await close();
  }
});

Deno.test("SettleBatches: a batch goes at once while an account's next request or a usage read waits for a settlement in it", async () => {
  const { database, close } = await open_test_database();
  try {
    const [waited, other] = await Promise.all(
      ["waited@example.com", "other@example.com"].map((email) =>
        create_account(database, { email, plan: "team" })
      ),
    );
    const charges = await reserved(database, [
      charge_of(waited.id, "v2:hurry-1"),
      charge_of(other.id, "v2:hurry-2"),
    ]);
    const { statements, counted } = counting(database);
    const settlements = new PendingSettlements();
    const window_ms = 5_000;
    const batches = new SettleBatches(counted, settlements, window_ms);
    const deliveries = charges.map((charge) =>
      settlements.tracked(charge.account_id, {
        delivered: () => batches.settle(charge).then(() => {}),
        undelivered: () => Promise.resolve(),
      }).delivered()
    );
    const started = performance.now();
    // The batch holding the waited account's settlement goes now, with the
    // other account's settlement gathered beside it.
    await settlements.settled(waited.id);
    assertLess(performance.now() - started, window_ms / 2);
    assertEquals(statements, ["ink_settle_generations"]);
    assertEquals(await get_usage(database, waited.id, { month: MONTH }), 1);
    assertEquals(await get_usage(database, other.id, { month: MONTH }), 1);
    // A settlement that comes due while its account is waited for goes at
    // once too.
    const [third] = await reserved(database, [
      charge_of(waited.id, "v2:hurry-3"),
    ]);
    const { promise: due, resolve: come_due } = Promise.withResolvers<void>();
    const delivery = settlements.tracked(waited.id, {
      delivered: async () => {
        await due;
        await batches.settle(third);
      },
      undelivered: () => Promise.resolve(),
    }).delivered();
    const waiting = settlements.settled(waited.id);
    come_due();
    await waiting;
    assertLess(performance.now() - started, window_ms / 2);
    assertEquals(statements, [
      "ink_settle_generations",
      "ink_settle_generation",
    ]);
    await Promise.all([delivery, ...deliveries]);
    assertEquals(await get_usage(database, other.id, { month: MONTH }), 1);
    assertEquals(await get_usage(database, waited.id, { month: MONTH }), 2);
  } finally {
    await close();
  }
});

Deno.test("SettleBatches: a failed statement fails each settlement in it", async () => {
  const { database, close } = await open_test_database();
  try {
    const { counted } = counting(database, true);
    const batches = new SettleBatches(counted);
    const charge = charge_of(crypto.randomUUID(), "v2:lost");
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
