/**
 * The per-key backfill: a database migrated to the migration before it,
 * with monthly usage counted per account only (or partly per key), is
 * migrated up; then each month's per-key totals add up to the account's.
 */
import { assertEquals } from "../assert.ts";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { MIGRATIONS_FOLDER } from "../../db/migrations_folder.ts";

const BACKFILL_TAG = "0011_backfill_usage_by_key";

interface JournalEntry {
  idx: number;
  tag: string;
}

/** A copy of the migrations folder whose journal ends before `tag`. */
async function migrations_before(tag: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "ink-migrations-" });
  await Deno.mkdir(`${dir}/meta`);
  const journal = JSON.parse(
    await Deno.readTextFile(`${MIGRATIONS_FOLDER}/meta/_journal.json`),
  ) as { entries: JournalEntry[] };
  const index = journal.entries.findIndex((entry) => entry.tag === tag);
  assertEquals(index > 0, true, `${tag} is in the journal`);
  journal.entries = journal.entries.slice(0, index);
  await Deno.writeTextFile(
    `${dir}/meta/_journal.json`,
    JSON.stringify(journal),
  );
  for (const entry of journal.entries) {
    await Deno.copyFile(
      `${MIGRATIONS_FOLDER}/${entry.tag}.sql`,
      `${dir}/${entry.tag}.sql`,
    );
  }
  return dir;
}

Deno.test("migration backfill_usage_by_key: per-key totals of each month add up to the account's", async () => {
  const before = await migrations_before(BACKFILL_TAG);
  const client = new PGlite("memory://");
  try {
    await client.waitReady;
    await migrate(drizzle({ client }), { migrationsFolder: before });
    const account = "00000000-0000-4000-8000-000000000001";
    const lonely = "00000000-0000-4000-8000-000000000002";
    const keys = {
      old_live: "00000000-0000-4000-8000-0000000000a1",
      recent_live: "00000000-0000-4000-8000-0000000000a2",
      test: "00000000-0000-4000-8000-0000000000a3",
    };
    await client.exec(`
      insert into accounts (id, email, plan) values
        ('${account}', 'backfill@example.com', 'pro'),
        ('${lonely}', 'lonely@example.com', 'starter');
      insert into api_keys (id, account_id, name, prefix, secret_hash, mode,
          created_at, last_used_at) values
        ('${keys.old_live}', '${account}', 'Old', 'ink_live_a', 'h1', 'live',
          '2026-01-01', '2026-10-01'),
        ('${keys.recent_live}', '${account}', 'Recent', 'ink_live_b', 'h2',
          'live', '2026-02-01', '2026-11-20'),
        ('${keys.test}', '${account}', 'Test', 'ink_test_c', 'h3', 'test',
          '2026-02-01', null);
      -- October: counted per account only (before per-key counting).
      -- November: the upgrade's month, partly counted per key already.
      insert into usage_monthly (account_id, month, count, test_count) values
        ('${account}', '2026-10', 32, 4),
        ('${account}', '2026-11', 40, 0),
        ('${lonely}', '2026-11', 7, 0);
      insert into usage_by_key (key_id, month, count) values
        ('${keys.old_live}', '2026-11', 1);
    `);
    await migrate(drizzle({ client }), {
      migrationsFolder: MIGRATIONS_FOLDER,
    });
    const rows = (await client.query<
      { month: string; mode: string; keys: number; sum: number }
    >(`
      select b.month, k.mode, count(*)::int as keys, sum(b.count)::int as sum
      from usage_by_key b join api_keys k on k.id = b.key_id
      where k.account_id = '${account}'
      group by b.month, k.mode order by b.month, k.mode`)).rows;
    assertEquals(rows, [
      { month: "2026-10", mode: "live", keys: 1, sum: 32 },
      { month: "2026-10", mode: "test", keys: 1, sum: 4 },
      { month: "2026-11", mode: "live", keys: 2, sum: 40 },
    ]);
    // The remainder goes to the live key used most recently.
    const recent = (await client.query<{ month: string; count: number }>(
      `select month, count from usage_by_key
       where key_id = '${keys.recent_live}' order by month`,
    )).rows;
    assertEquals(recent, [
      { month: "2026-10", count: 32 },
      { month: "2026-11", count: 39 },
    ]);
    // An account without keys keeps its count on the account only.
    const monthly = (await client.query<{ count: number }>(
      `select count from usage_monthly where account_id = '${lonely}'`,
    )).rows;
    assertEquals(monthly, [{ count: 7 }]);
  } finally {
    await client.close();
    await Deno.remove(before, { recursive: true });
  }
});
