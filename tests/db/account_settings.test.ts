/**
 * The database side of account settings: ending other sessions, moving an
 * account to a new address from a `change_email` token, and deleting an
 * account with its usage kept only as anonymous month totals. PGlite, or
 * PostgreSQL with TEST_DATABASE_URL.
 */
import { eq } from "drizzle-orm";
import { assert, assertEquals, assertStrictEquals } from "../assert.ts";
import {
  change_account_email,
  charge_generation,
  create_account,
  create_account_token,
  create_api_key,
  create_session,
  delete_account,
  delete_other_sessions,
  get_account,
  get_session,
  list_deleted_account_usage,
  reserve_test_generation,
  schema,
  take_sliding_window,
  use_account_token,
} from "../../db/mod.ts";
import { open_test_database } from "../helpers/test_database.ts";

const NOW = new Date("2026-05-20T10:00:00Z");

function email(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

Deno.test("account settings in the database", async (t) => {
  const { database, close } = await open_test_database();
  try {
    await t.step(
      "delete_other_sessions keeps only the given session",
      async () => {
        const account = await create_account(database, {
          email: email("sessions"),
          plan: "starter",
        });
        const other_account = await create_account(database, {
          email: email("bystander"),
          plan: "starter",
        });
        const [keep, drop1, drop2] = await Promise.all(
          [1, 2, 3].map(() =>
            create_session(database, {
              account_id: account.id,
              ttl_seconds: 3600,
              now: NOW,
            })
          ),
        );
        const bystander = await create_session(database, {
          account_id: other_account.id,
          ttl_seconds: 3600,
          now: NOW,
        });
        assertStrictEquals(
          await delete_other_sessions(database, {
            account_id: account.id,
            keep_token: keep.token,
          }),
          2,
        );
        assert(await get_session(database, keep.token, { now: NOW }));
        assertEquals(
          await get_session(database, drop1.token, { now: NOW }),
          undefined,
        );
        assertEquals(
          await get_session(database, drop2.token, { now: NOW }),
          undefined,
        );
        assert(
          await get_session(database, bystander.token, { now: NOW }),
          "another account's sessions stay",
        );
        assertStrictEquals(
          await delete_other_sessions(database, { account_id: account.id }),
          1,
          "without a session to keep, all end",
        );
        assertStrictEquals(
          await delete_other_sessions(database, { account_id: "not-a-uuid" }),
          0,
        );
      },
    );

    await t.step(
      "change_email tokens: used through the verify purpose, moved address, void once the address changed",
      async () => {
        const old_email = email("before");
        const new_email = email("after");
        const account = await create_account(database, {
          email: old_email,
          plan: "starter",
          email_verified: false,
        });
        const token = await create_account_token(database, {
          account_id: account.id,
          email: old_email,
          new_email,
          purpose: "change_email",
          ttl_seconds: 3600,
          now: NOW,
        });
        assertEquals(
          await use_account_token(database, {
            token,
            purpose: "verify_email",
            now: NOW,
          }),
          undefined,
          "a change token is not a verification token",
        );
        const second = await create_account_token(database, {
          account_id: account.id,
          email: old_email,
          new_email,
          purpose: "change_email",
          ttl_seconds: 3600,
          now: NOW,
        });
        const used = await use_account_token(database, {
          token: second,
          purpose: ["verify_email", "change_email"],
          now: NOW,
        });
        assertEquals(used, {
          account_id: account.id,
          email: old_email,
          purpose: "change_email",
          new_email,
        });
        assertStrictEquals(
          await change_account_email(database, {
            account_id: account.id,
            from: old_email,
            to: new_email,
          }),
          "changed",
        );
        const moved = await get_account(database, account.id);
        assertStrictEquals(moved?.email, new_email);
        const [row] = await database.db.select().from(schema.accounts)
          .where(eq(schema.accounts.id, account.id));
        assertStrictEquals(row.email_verified, true, "the link proved it");
        assertStrictEquals(
          await change_account_email(database, {
            account_id: account.id,
            from: old_email,
            to: email("again"),
          }),
          "gone",
          "a change from an address the account left does nothing",
        );
        const other = await create_account(database, {
          email: email("other"),
          plan: "starter",
        });
        assertStrictEquals(
          await change_account_email(database, {
            account_id: account.id,
            from: new_email,
            to: other.email,
          }),
          "taken",
        );
        assertStrictEquals(
          (await get_account(database, account.id))?.email,
          new_email,
        );
      },
    );

    await t.step(
      "delete_account removes every row and keeps anonymous month totals",
      async () => {
        const account = await create_account(database, {
          email: email("leaving"),
          plan: "pro",
        });
        const neighbour = await create_account(database, {
          email: email("staying"),
          plan: "pro",
        });
        await create_api_key(database, {
          account_id: account.id,
          name: "Prod",
        });
        await create_session(database, {
          account_id: account.id,
          ttl_seconds: 3600,
          now: NOW,
        });
        await create_account_token(database, {
          account_id: account.id,
          email: account.email,
          purpose: "password_reset",
          ttl_seconds: 3600,
          now: NOW,
        });
        for (
          const [month, day, hash] of [
            ["2026-04", "2026-04-03", "a"],
            ["2026-05", "2026-05-02", "b"],
            ["2026-05", "2026-05-03", "c"],
          ]
        ) {
          await charge_generation(database, {
            account_id: account.id,
            month,
            day,
            limit: 1000,
            request_hash: hash.repeat(64),
          });
        }
        await reserve_test_generation(database, {
          account_id: account.id,
          month: "2026-05",
          limit: 1000,
        });
        await charge_generation(database, {
          account_id: neighbour.id,
          month: "2026-05",
          day: "2026-05-02",
          limit: 1000,
          request_hash: "d".repeat(64),
        });
        // A neighbour whose address differs by a LIKE wildcard keeps its
        // counters.
        const neighbour_bucket = `signin-from:192.0.2.1:${
          account.email.replace(/^./, "_")
        }`;
        for (
          const bucket of [
            `account:${account.id}`,
            `signin:${account.email}`,
            `signin-from:192.0.2.1:${account.email}`,
            neighbour_bucket,
          ]
        ) {
          await take_sliding_window(database, {
            bucket,
            limit: 10,
            now: NOW,
            window_seconds: 60,
          });
        }
        const before = new Map(
          (await list_deleted_account_usage(database)).map((
            row,
          ) => [row.month, row]),
        );

        const deleted = await delete_account(database, account.id);
        assertEquals(deleted, { email: account.email, months_kept: 2 });
        assertEquals(await get_account(database, account.id), undefined);
        for (
          const table of [
            schema.api_keys,
            schema.sessions,
            schema.account_tokens,
            schema.usage_monthly,
            schema.usage_daily,
            schema.generation_receipts,
          ] as const
        ) {
          const rows = await database.db.select().from(table)
            .where(eq(table.account_id, account.id));
          assertEquals(rows.length, 0);
        }
        const buckets = await database.db.select().from(
          schema.rate_limit_windows,
        );
        assert(
          !buckets.some((row) =>
            row.bucket.includes(account.id) ||
            row.bucket.includes(account.email)
          ),
        );
        assert(buckets.some((row) => row.bucket === neighbour_bucket));
        const after = new Map(
          (await list_deleted_account_usage(database)).map((
            row,
          ) => [row.month, row]),
        );
        const added = (month: string) => ({
          count: after.get(month)!.count - (before.get(month)?.count ?? 0),
          test_count: after.get(month)!.test_count -
            (before.get(month)?.test_count ?? 0),
          accounts: after.get(month)!.accounts -
            (before.get(month)?.accounts ?? 0),
        });
        assertEquals(added("2026-04"), {
          count: 1,
          test_count: 0,
          accounts: 1,
        });
        assertEquals(added("2026-05"), {
          count: 2,
          test_count: 1,
          accounts: 1,
        });
        // The totals name no account; the neighbour is untouched.
        assertEquals(
          Object.keys((await list_deleted_account_usage(database))[0]).sort(),
          ["accounts", "count", "month", "test_count"],
        );
        const kept = await database.db.select().from(schema.usage_monthly)
          .where(eq(schema.usage_monthly.account_id, neighbour.id));
        assertEquals(kept.map((row) => row.count), [1]);

        assertEquals(await delete_account(database, account.id), undefined);
        assertEquals(await delete_account(database, "not-a-uuid"), undefined);
      },
    );
  } finally {
    await close();
  }
});
