import {
  assert,
  assertEquals,
  assertRejects,
  assertStrictEquals,
} from "../assert.ts";
import { sql } from "drizzle-orm";
import {
  charge_generation,
  create_account,
  type Database,
  get_daily_usage,
  get_usage,
  open_database,
  prune_receipts,
  release_generation,
  reserve_generation,
  type ReserveResult,
  settle_generation,
  sweep_reservations,
} from "../../db/mod.ts";
import { query_rows } from "../../db/_util.ts";
import { open_test_database } from "../helpers/test_database.ts";

const MONTH = "2030-03";
const DAY = "2030-03-14";
// A month of its own, which the pruning step does not count.
const BUSY_MONTH = "2030-06";

async function receipt_count(
  database: Database,
  account_id: string,
  month: string,
): Promise<number> {
  const rows = await query_rows<{ n: number }>(
    database,
    sql`select count(*)::int as n from generation_receipts
        where account_id = ${account_id}::uuid and month = ${month}`,
  );
  return rows[0]!.n;
}

function tally(results: ReserveResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of results) {
    counts[result.status] = (counts[result.status] ?? 0) + 1;
  }
  return counts;
}

// Settles each reservation, as its delivery does.
async function settle_all(
  database: Database,
  reservations: Array<
    { account_id: string; month: string; day: string; request_hash: string }
  >,
): Promise<void> {
  for (const reservation of reservations) {
    await settle_generation(database, reservation);
  }
}

// 500 concurrent reservations with distinct hashes against limit 150,
// spread round-robin over `handles`: exactly 150 may succeed.
async function check_exact_quota(
  handles: Database[],
  account_id: string,
): Promise<void> {
  const month = "2031-01";
  const inputs = Array.from({ length: 500 }, (_, i) => ({
    account_id,
    month,
    day: `${month}-${String(1 + (i % 28)).padStart(2, "0")}`,
    limit: 150,
    request_hash: `hash-${i}`,
  }));
  const results = await Promise.all(
    inputs.map((input, i) =>
      reserve_generation(handles[i % handles.length]!, input)
    ),
  );
  // Reservations hold their units: exactly 150, none charged yet.
  assertEquals(tally(results), { reserved: 150, exhausted: 350 });
  for (const result of results) assertStrictEquals(result.used, 0);
  const database = handles[0]!;
  assertStrictEquals(await get_usage(database, account_id, { month }), 0);
  await settle_all(
    database,
    inputs.filter((_, i) => results[i]!.status === "reserved"),
  );
  assertStrictEquals(await get_usage(database, account_id, { month }), 150);
  // Identical concurrent requests in a fresh month: one counted, rest free.
  const same = await Promise.all(
    Array.from(
      { length: 20 },
      (_, i) =>
        reserve_generation(handles[i % handles.length]!, {
          account_id,
          month: "2031-02",
          day: "2031-02-01",
          limit: 150,
          request_hash: "same",
        }),
    ),
  );
  // The others are the same request in flight: served, charged once.
  assertEquals(tally(same), { reserved: 1, pending: 19 });
  const same_input = {
    account_id,
    month: "2031-02",
    day: "2031-02-01",
    request_hash: "same",
  };
  assertEquals(await settle_generation(database, same_input), true);
  assertEquals(await settle_generation(database, same_input), false);
  assertStrictEquals(
    await get_usage(database, account_id, { month: "2031-02" }),
    1,
  );
  assertStrictEquals(await receipt_count(database, account_id, month), 150);
  const daily = await get_daily_usage(database, account_id, { month });
  assertStrictEquals(daily.reduce((sum, d) => sum + d.count, 0), 150);

  // Used up: new hashes sent several times at once are never replays of
  // one another, and leave no receipt behind.
  const copies = (hashes: number, times: number, limit: number) =>
    Promise.all(
      Array.from(
        { length: hashes * times },
        (_, i) =>
          reserve_generation(handles[i % handles.length]!, {
            account_id,
            month,
            day: `${month}-01`,
            limit,
            request_hash: `dup-${limit}-${i % hashes}`,
          }).then((result) => ({ hash: i % hashes, result })),
      ),
    );
  const used_up = await copies(10, 6, 150);
  assertEquals(tally(used_up.map((r) => r.result)), { exhausted: 60 });
  assertStrictEquals(await receipt_count(database, account_id, month), 150);
  // Two left: exactly two distinct hashes are reserved, copies of them are
  // pending, the rest refused.
  const two_left = await copies(10, 6, 152);
  const charged = new Set(
    two_left.filter((r) => r.result.status === "reserved").map((r) => r.hash),
  );
  assertStrictEquals(charged.size, 2);
  assertEquals(
    tally(two_left.filter((r) => !charged.has(r.hash)).map((r) => r.result)),
    { exhausted: 48 },
  );
  assertEquals(
    tally(two_left.filter((r) => charged.has(r.hash)).map((r) => r.result)),
    { reserved: 2, pending: 10 },
  );
  await settle_all(
    database,
    [...charged].map((hash) => ({
      account_id,
      month,
      day: `${month}-01`,
      request_hash: `dup-152-${hash}`,
    })),
  );
  assertStrictEquals(await get_usage(database, account_id, { month }), 152);
  assertStrictEquals(await receipt_count(database, account_id, month), 152);
}

Deno.test("usage quotas", async (t) => {
  const { database, database_url, close } = await open_test_database();
  try {
    const account = await create_account(database, {
      email: "usage@example.com",
      plan: "starter",
    });
    const base = { account_id: account.id, month: MONTH, day: DAY };

    await t.step("reserve counts up to the limit", async () => {
      assertEquals(
        await charge_generation(database, {
          ...base,
          limit: 2,
          request_hash: "a",
        }),
        { status: "reserved", used: 1 },
      );
      assertEquals(
        await charge_generation(database, {
          ...base,
          limit: 2,
          request_hash: "b",
        }),
        { status: "reserved", used: 2 },
      );
      assertEquals(
        await charge_generation(database, {
          ...base,
          limit: 2,
          request_hash: "c",
        }),
        { status: "exhausted", used: 2 },
      );
      assertStrictEquals(
        await get_usage(database, account.id, { month: MONTH }),
        2,
      );
      // The rejected request left no receipt behind.
      assertStrictEquals(await receipt_count(database, account.id, MONTH), 2);
    });

    await t.step("replay is free, even when exhausted", async () => {
      assertEquals(
        await reserve_generation(database, {
          ...base,
          limit: 2,
          request_hash: "a",
        }),
        { status: "replay", used: 2 },
      );
      // Even with a lowered limit.
      assertEquals(
        await reserve_generation(database, {
          ...base,
          limit: 0,
          request_hash: "b",
        }),
        { status: "replay", used: 2 },
      );
      // A receipt found under the request's legacy hash is a replay too.
      assertEquals(
        await reserve_generation(database, {
          ...base,
          limit: 2,
          request_hash: "v2:a",
          legacy_hash: "a",
        }),
        { status: "replay", used: 2 },
      );
      assertStrictEquals(
        await get_usage(database, account.id, { month: MONTH }),
        2,
      );
    });

    await t.step(
      "a reservation holds its unit until settled, released or expired",
      async () => {
        const fresh = await create_account(database, {
          email: "reserve@example.com",
          plan: "starter",
        });
        const at = new Date("2030-03-14T10:00:00Z");
        const one = { account_id: fresh.id, month: MONTH, day: DAY, limit: 1 };
        const reserve = (request_hash: string, now: Date) =>
          reserve_generation(database, {
            ...one,
            request_hash,
            now,
            ttl_ms: 30_000,
          });
        assertEquals(await reserve("x", at), { status: "reserved", used: 0 });
        // The unit is held: another document is refused, the same one is
        // in flight (pending); nothing is charged yet.
        assertEquals((await reserve("y", at)).status, "exhausted");
        assertEquals((await reserve("x", at)).status, "pending");
        assertStrictEquals(
          await get_usage(database, fresh.id, { month: MONTH }),
          0,
        );
        // Released (not delivered): the unit is free again; twice is once.
        const x = { account_id: fresh.id, month: MONTH, request_hash: "x" };
        assertEquals(await release_generation(database, x), true);
        assertEquals(await release_generation(database, x), false);
        assertEquals((await reserve("y", at)).status, "reserved");
        // Expired, by time alone (nothing swept): its unit is free.
        const later = new Date(at.getTime() + 30_000);
        assertEquals((await reserve("z", later)).status, "reserved");
        assertEquals((await reserve("y", later)).status, "exhausted");
        // Delivered: charged once, to the day too.
        const z = { ...x, day: DAY, request_hash: "z" };
        assertEquals(await settle_generation(database, z), true);
        assertEquals(await settle_generation(database, z), false);
        assertStrictEquals(
          await get_usage(database, fresh.id, { month: MONTH }),
          1,
        );
        assertEquals(
          await get_daily_usage(database, fresh.id, { month: MONTH }),
          [{ day: DAY, count: 1 }],
        );
        // Its retry is a free replay, even with the month used up.
        assertEquals((await reserve("z", later)).status, "replay");
        // Housekeeping sweeps the expired reservation ("y") only.
        assertStrictEquals(
          await sweep_reservations(database, new Date(later.getTime() + 1)),
          1,
        );
        assertStrictEquals(await receipt_count(database, fresh.id, MONTH), 1);
      },
    );

    await t.step(
      "an expired reservation is taken over by its retry",
      async () => {
        const fresh = await create_account(database, {
          email: "retry@example.com",
          plan: "starter",
        });
        const at = new Date("2030-03-14T10:00:00Z");
        const input = {
          account_id: fresh.id,
          month: MONTH,
          day: DAY,
          limit: 1,
          request_hash: "r",
          ttl_ms: 1_000,
        };
        assertEquals(
          (await reserve_generation(database, { ...input, now: at })).status,
          "reserved",
        );
        const later = new Date(at.getTime() + 1_000);
        assertEquals(
          (await reserve_generation(database, { ...input, now: later })).status,
          "reserved",
        );
        // Held again for the retry.
        assertEquals(
          (await reserve_generation(database, {
            ...input,
            request_hash: "other",
            now: later,
          })).status,
          "exhausted",
        );
        assertEquals(await settle_generation(database, input), true);
        assertStrictEquals(
          await get_usage(database, fresh.id, { month: MONTH }),
          1,
        );
      },
    );

    await t.step("limit 0 reserves nothing", async () => {
      const fresh = await create_account(database, {
        email: "zero@example.com",
        plan: "starter",
      });
      assertEquals(
        await reserve_generation(database, {
          account_id: fresh.id,
          month: MONTH,
          day: DAY,
          limit: 0,
          request_hash: "z",
        }),
        { status: "exhausted", used: 0 },
      );
      assertStrictEquals(
        await get_usage(database, fresh.id, { month: MONTH }),
        0,
      );
      assertStrictEquals(await receipt_count(database, fresh.id, MONTH), 0);
    });

    await t.step("month rollover starts a fresh count", async () => {
      const next = {
        account_id: account.id,
        month: "2030-04",
        day: "2030-04-01",
      };
      assertStrictEquals(
        await get_usage(database, account.id, { month: "2030-04" }),
        0,
      );
      // Same hash as last month: counted again, not a replay.
      assertEquals(
        await charge_generation(database, {
          ...next,
          limit: 2,
          request_hash: "a",
        }),
        { status: "reserved", used: 1 },
      );
      assertStrictEquals(
        await get_usage(database, account.id, { month: MONTH }),
        2,
      );
      assertEquals(
        await get_daily_usage(database, account.id, { month: "2030-04" }),
        [{ day: "2030-04-01", count: 1 }],
      );
    });

    await t.step("daily usage per day within the month only", async () => {
      const fresh = await create_account(database, {
        email: "daily@example.com",
        plan: "team",
      });
      const days = ["2030-12-31", "2030-12-01", "2030-12-31"];
      for (const [i, day] of days.entries()) {
        await charge_generation(database, {
          account_id: fresh.id,
          month: "2030-12",
          day,
          limit: 10,
          request_hash: `d${i}`,
        });
      }
      await charge_generation(database, {
        account_id: fresh.id,
        month: "2031-01",
        day: "2031-01-01",
        limit: 10,
        request_hash: "jan",
      });
      assertEquals(
        await get_daily_usage(database, fresh.id, { month: "2030-12" }),
        [{ day: "2030-12-01", count: 1 }, { day: "2030-12-31", count: 2 }],
      );
      assertEquals(
        await get_daily_usage(database, fresh.id, { month: "2030-11" }),
        [],
      );
    });

    await t.step(
      "a reservation reads the request's own receipts, not the month's",
      async () => {
        const busy = await create_account(database, {
          email: "busy@example.com",
          plan: "team",
        });
        // A month with 2,000 invoices settled, as a busy account has.
        await query_rows(
          database,
          sql`insert into generation_receipts (account_id, month, request_hash)
              select ${busy.id}::uuid, ${BUSY_MONTH}, 'done-' || n
              from generate_series(1, 2000) n`,
        );
        // Rows of the receipts table one reservation reads (this backend's
        // statistics not yet reported, read before and after it): a lookup
        // by the whole key reads the request's own receipts, where a scan
        // of the month reads all 2,000.
        const reserve_reading = async (hashes: {
          request_hash: string;
          legacy_hash: string | null;
        }) => {
          // Read before and after the call; the call depends on the first
          // read, so it runs in between.
          const read = sql`(select coalesce(idx_tup_fetch, 0) +
              coalesce(seq_tup_read, 0) from pg_stat_xact_user_tables
              where relid = 'generation_receipts'::regclass)::int`;
          const rows = await query_rows<{ status: string; read: number }>(
            database,
            sql`with before as materialized (select ${read} as n),
                reservation as materialized (
                  select r.status, before.n from before,
                    lateral ink_reserve_generation(${busy.id}::uuid,
                      ${BUSY_MONTH}, ${hashes.request_hash},
                      ${hashes.legacy_hash}, 10000 + 0 * before.n, now(),
                      30000) r)
                select status, ${read} - n as read from reservation`,
          );
          return rows[0]!;
        };
        const fresh = await reserve_reading({
          request_hash: "v2:new",
          legacy_hash: "new",
        });
        assertStrictEquals(fresh.status, "reserved");
        assert(fresh.read <= 4, `read ${fresh.read} receipts`);
        const replay = await reserve_reading({
          request_hash: "v2:done-7",
          legacy_hash: "done-7",
        });
        assertStrictEquals(replay.status, "replay");
        assert(replay.read <= 4, `read ${replay.read} receipts`);
      },
    );

    await t.step("input validation", async () => {
      await assertRejects(() =>
        reserve_generation(database, {
          ...base,
          month: "2030-3",
          limit: 1,
          request_hash: "v",
        }), RangeError);
      await assertRejects(() =>
        reserve_generation(database, {
          ...base,
          day: "2030-04-01",
          limit: 1,
          request_hash: "v",
        }), RangeError);
      await assertRejects(
        () =>
          reserve_generation(database, {
            ...base,
            limit: -1,
            request_hash: "v",
          }),
        RangeError,
      );
      await assertRejects(() =>
        reserve_generation(database, {
          ...base,
          account_id: "nope",
          limit: 1,
          request_hash: "v",
        }), TypeError);
      assertStrictEquals(
        await get_usage(database, "nope", { month: MONTH }),
        0,
      );
    });

    await t.step("prune_receipts drops old months only", async () => {
      // Only the 2030-03 receipts are older: this account's two ("a" and
      // "b") and one of each reservation step's accounts.
      assertStrictEquals(
        await prune_receipts(database, { before_month: "2030-04" }),
        4,
      );
      assertStrictEquals(await receipt_count(database, account.id, MONTH), 0);
      assertStrictEquals(
        await receipt_count(database, account.id, "2030-04"),
        1,
      );
      // Counters are untouched.
      assertStrictEquals(
        await get_usage(database, account.id, { month: MONTH }),
        2,
      );
    });

    await t.step(
      `quota exact under concurrency (${database.kind})`,
      async () => {
        const fresh = await create_account(database, {
          email: "concurrent@example.com",
          plan: "pro",
        });
        await check_exact_quota([database], fresh.id);
      },
    );

    if (database_url) {
      await t.step("quota exact across two handles (postgres)", async () => {
        const second = await open_database({ database_url });
        try {
          const fresh = await create_account(database, {
            email: "two-handles@example.com",
            plan: "pro",
          });
          await check_exact_quota([database, second], fresh.id);
        } finally {
          await second.close();
        }
      });
    }
  } finally {
    await close();
  }
});
