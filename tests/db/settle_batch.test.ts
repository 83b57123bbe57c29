/**
 * `settle_generations` settles a batch in one statement exactly as
 * `settle_generation` settles each: receipts settled once (false for one
 * settled already), month, day and key counted, a swept reservation
 * written settled; answers in the order of its inputs, whatever the
 * accounts' order.
 */
import { assertEquals, assertRejects } from "../assert.ts";
import {
  type ChargeFields,
  create_account,
  create_api_key,
  get_daily_usage,
  get_usage,
  get_usage_by_key,
  reserve_generation,
  settle_generation,
  settle_generations,
} from "../../db/mod.ts";
import { open_test_database } from "../helpers/test_database.ts";

const MONTH = "2030-05";
const DAY = "2030-05-02";

Deno.test("settle_generations: a batch over several accounts charges as single settlements do", async () => {
  const { database, close } = await open_test_database();
  try {
    const accounts = [];
    for (const name of ["one", "two", "three"]) {
      accounts.push(
        await create_account(database, {
          email: `batch-${name}@example.com`,
          plan: "team",
        }),
      );
    }
    const key = await create_api_key(database, {
      account_id: accounts[1].id,
      name: "batch",
    });
    const charges: ChargeFields[] = [];
    // Inputs deliberately out of account order, two per account; one with
    // a hash a quote and a backslash would break an unquoted array.
    for (let round = 0; round < 2; round++) {
      for (const [index, account] of [...accounts].reverse().entries()) {
        charges.push({
          account_id: account.id,
          month: MONTH,
          day: DAY,
          request_hash: `v2:batch-${round}-${index}${round ? '"\\,{}' : ""}`,
          key_id: account.id === accounts[1].id ? key.id : undefined,
        });
      }
    }
    // All reserved but the last, whose reservation was swept: settled
    // anyway (written settled).
    for (const charge of charges.slice(0, -1)) {
      assertEquals(
        (await reserve_generation(database, { ...charge, limit: 10_000 }))
          .status,
        "reserved",
      );
    }
    // The first is settled already: false for it in the batch.
    assertEquals(await settle_generation(database, charges[0]), true);
    assertEquals(
      await settle_generations(database, charges),
      [false, true, true, true, true, true],
    );
    assertEquals(await settle_generations(database, charges), [
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    for (const account of accounts) {
      assertEquals(await get_usage(database, account.id, { month: MONTH }), 2);
      assertEquals(
        (await get_daily_usage(database, account.id, { month: MONTH }))
          .find((day) => day.day === DAY)?.count,
        2,
      );
    }
    const by_key = await get_usage_by_key(database, accounts[1].id, {
      month: MONTH,
    });
    assertEquals(by_key.find((row) => row.key_id === key.id)?.count, 2);
    assertEquals(await settle_generations(database, []), []);
    await assertRejects(
      () =>
        settle_generations(database, [{ ...charges[0], day: "2030-06-01" }]),
      RangeError,
    );
  } finally {
    await close();
  }
});
