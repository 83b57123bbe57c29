import { assertEquals } from "../assert.ts";
import { open_test_database } from "../helpers/test_database.ts";
import { migrated_pglite_template } from "../helpers/pglite_template.ts";
import { query_rows } from "../../db/_util.ts";
import { sql } from "drizzle-orm";
import {
  charge_generation,
  claim_idempotency_key,
  create_account,
  create_account_token,
  create_session,
  get_session,
  open_database,
  record_stripe_event,
  reserve_generation,
  settle_generation,
  take_sliding_window,
  use_account_token,
} from "../../db/mod.ts";
import { run_housekeeping } from "../../server/housekeeping.ts";

Deno.test("housekeeping removes old rate windows, past months' receipts, day-old Idempotency-Keys, expired sessions, expired mailed tokens and month-old Stripe event ids only", async () => {
  const { database, close } = await open_test_database();
  try {
    const now = new Date("2026-11-23T12:00:00Z");
    const account = await create_account(database, {
      email: "hk@example.com",
      plan: "starter",
    });
    const old_window = new Date("2026-11-21T10:00:00Z"); // 50 hours before
    const window = { bucket: "account:hk", window_seconds: 60, limit: 10 };
    await take_sliding_window(database, { ...window, now: old_window });
    await take_sliding_window(database, { ...window, now });
    // Yesterday's day window: today's sliding day window still reads it.
    const day = { bucket: "preview-day:hk", window_seconds: 86_400, limit: 50 };
    await take_sliding_window(database, {
      ...day,
      now: new Date("2026-11-22T01:00:00Z"),
    });
    const reservation = {
      account_id: account.id,
      limit: 150,
      request_hash: "h1",
    };
    await charge_generation(database, {
      ...reservation,
      month: "2026-10",
      day: "2026-10-31",
    });
    await charge_generation(database, {
      ...reservation,
      month: "2026-11",
      day: "2026-11-23",
    });
    const expired = await create_session(database, {
      account_id: account.id,
      ttl_seconds: 60,
      now: new Date("2026-11-23T11:00:00Z"),
    });
    const live = await create_session(database, {
      account_id: account.id,
      ttl_seconds: 3600,
      now,
    });

    await record_stripe_event(database, {
      id: "evt_old",
      type: "invoice.paid",
      received_at: new Date("2026-10-01T00:00:00Z"),
    });
    await record_stripe_event(database, {
      id: "evt_recent",
      type: "invoice.paid",
      received_at: new Date("2026-11-20T00:00:00Z"),
    });

    const claim = (key_hash: string, at: Date) =>
      claim_idempotency_key(database, {
        account_id: account.id,
        key_hash,
        request_hash: "r",
        now: at,
        expired_before: new Date(at.getTime() - 24 * 3600_000),
        abandoned_before: new Date(at.getTime() - 300_000),
      });
    await claim("day-old", new Date("2026-11-22T11:59:00Z"));
    await claim("recent", new Date("2026-11-22T12:01:00Z"));
    const token_input = {
      account_id: account.id,
      email: account.email,
      purpose: "password_reset" as const,
      ttl_seconds: 3600,
    };
    await create_account_token(database, {
      ...token_input,
      now: new Date("2026-11-23T10:30:00Z"),
    });
    const live_token = await create_account_token(database, {
      ...token_input,
      now,
    });

    // Reservations of documents never delivered: one expired, one live.
    const reserve = (request_hash: string, at: Date) =>
      reserve_generation(database, {
        ...reservation,
        request_hash,
        month: "2026-11",
        day: "2026-11-23",
        now: at,
        ttl_ms: 30_000,
      });
    await reserve("expired", new Date(now.getTime() - 31_000));
    await reserve("live", new Date(now.getTime() - 1_000));

    const { vacuumed_tables, ...removed } = await run_housekeeping(
      database,
      now,
    );
    assertEquals(removed, {
      rate_limit_windows: 1,
      receipts: 1,
      reservations: 1,
      idempotency_keys: 1,
      sessions: 1,
      stripe_events: 1,
      account_tokens: 1,
    });
    // PostgreSQL vacuums itself (PGlite: the test below).
    if (database.kind === "postgres") assertEquals(vacuumed_tables, 0);
    // The unexpired reset token still works (once).
    assertEquals(
      (await use_account_token(database, {
        token: live_token,
        purpose: "password_reset",
        now,
      }))?.account_id,
      account.id,
    );
    // A redelivery of the recent event is still recognised; the old id is gone.
    assertEquals(
      await record_stripe_event(database, { id: "evt_recent", type: "x" }),
      false,
    );
    assertEquals(
      await record_stripe_event(database, { id: "evt_old", type: "x" }),
      true,
    );

    // The recent key is still there; the old one is gone.
    assertEquals(
      (await claim_idempotency_key(database, {
        account_id: account.id,
        key_hash: "recent",
        request_hash: "another",
        now,
        expired_before: new Date(now.getTime() - 24 * 3600_000),
        abandoned_before: new Date(now.getTime() - 300_000),
      })).status,
      "reused",
    );
    assertEquals((await claim("day-old", now)).status, "claimed");

    // The old window starts afresh; the current one kept its count, and
    // yesterday's previews still weigh in today's window.
    assertEquals(
      (await take_sliding_window(database, { ...window, now: old_window }))
        .window.current,
      1,
    );
    assertEquals(
      (await take_sliding_window(database, { ...window, now })).window.current,
      2,
    );
    assertEquals(
      (await take_sliding_window(database, { ...day, now })).window.previous,
      1,
    );
    // This month's receipt still makes a retry free.
    const retry = await reserve_generation(database, {
      ...reservation,
      month: "2026-11",
      day: "2026-11-23",
    });
    assertEquals(retry.status, "replay");
    // The live reservation still holds (its retry is the request in flight).
    assertEquals((await reserve("live", now)).status, "pending");
    assertEquals(
      await get_session(database, expired.token, {
        now: new Date("2026-11-23T11:00:30Z"),
      }),
      undefined,
    );
    assertEquals(
      (await get_session(database, live.token, { now }))?.account.id,
      account.id,
    );
  } finally {
    await close();
  }
});

Deno.test("housekeeping vacuums and analyzes the embedded database, which has no autovacuum", async () => {
  const database = await open_database({
    data_dir: "memory://",
    pglite_template: await migrated_pglite_template(),
  });
  try {
    const account = await create_account(database, {
      email: "vacuum@example.com",
      plan: "pro",
    });
    // Each settlement leaves the reserved row version behind, dead.
    const charge = {
      account_id: account.id,
      month: "2026-11",
      day: "2026-11-23",
    };
    for (let i = 0; i < 200; i++) {
      await reserve_generation(database, {
        ...charge,
        limit: 1_000,
        request_hash: `h${i}`,
      });
      await settle_generation(database, { ...charge, request_hash: `h${i}` });
    }
    const receipts_table = () =>
      query_rows<{ dead: number; vacuumed: boolean; analyzed: boolean }>(
        database,
        sql`select n_dead_tup::int as dead,
              last_vacuum is not null as vacuumed,
              last_analyze is not null as analyzed
            from pg_stat_user_tables where relname = 'generation_receipts'`,
      );
    assertEquals(
      (await receipts_table())[0]?.vacuumed,
      false,
      "nothing vacuums PGlite by itself",
    );
    const result = await run_housekeeping(
      database,
      new Date("2026-11-23T12:00:00Z"),
    );
    assertEquals(result.vacuumed_tables > 0, true);
    assertEquals(await receipts_table(), [
      { dead: 0, vacuumed: true, analyzed: true },
    ]);
    // The planner has statistics of the receipts now.
    // Tables nothing changed in are left alone.
    const untouched = await query_rows<{ vacuumed: boolean }>(
      database,
      sql`select last_vacuum is not null as vacuumed
          from pg_stat_user_tables where relname = 'upgrade_requests'`,
    );
    assertEquals(untouched, [{ vacuumed: false }]);
    const stats = await query_rows<{ n: number }>(
      database,
      sql`select count(*)::int as n from pg_stats
          where tablename = 'generation_receipts'`,
    );
    assertEquals(stats[0]!.n > 0, true);
  } finally {
    await database.close();
  }
});
