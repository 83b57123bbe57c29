/**
 * Identical new invoices sent concurrently do not slip past a used-up quota as
 * free replays. Two app instances share the database (each with its own
 * connection pool on PostgreSQL; on PGlite both serve the one in-process
 * database).
 */
import { assert, assertEquals } from "../assert.ts";
import { sql } from "drizzle-orm";
import {
  start_two_instances,
  type TwoInstances,
} from "../helpers/two_instances.ts";
import type { Database } from "../../db/mod.ts";
import { query_rows } from "../../db/_util.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { month_of } from "../../server/services/calendar.ts";

const STARTER_LIMIT = 150;

async function set_used(
  database: Database,
  account_id: string,
  used: number,
): Promise<void> {
  await query_rows(
    database,
    sql`insert into usage_monthly (account_id, month, count)
        values (${account_id}::uuid, ${month_of(new Date())}, ${used})
        on conflict (account_id, month) do update set count = excluded.count`,
  );
}

async function used_now(database: Database, account_id: string) {
  const rows = await query_rows<{ count: number | string }>(
    database,
    sql`select count from usage_monthly
        where account_id = ${account_id}::uuid
          and month = ${month_of(new Date())}`,
  );
  return Number(rows[0]?.count ?? 0);
}

interface Outcome {
  invoice: number;
  status: number;
  code: string;
  replayed: boolean;
}

// Invoice n (0 ≤ n < 19) is sent 2 + n times, all at once, alternating
// between the two instances: every copy count from 2 to 20.
async function send_duplicates(
  instances: TwoInstances,
  key: string,
  prefix: string,
): Promise<Outcome[]> {
  const sends: Array<Promise<Outcome>> = [];
  let turn = 0;
  for (let invoice = 0; invoice < 19; invoice++) {
    for (let copy = 0; copy < invoice + 2; copy++) {
      const server = instances.servers[turn++ % 2]!;
      sends.push((async () => {
        const response = await server.generate(key, {
          ...full_invoice(),
          invoice_number: `${prefix}-${invoice}`,
        });
        const replayed = response.headers.get("idempotent-replayed") === "true";
        if (response.status === 200) {
          await response.arrayBuffer();
          return { invoice, status: 200, code: "ok", replayed };
        }
        const body = await response.json();
        return {
          invoice,
          status: response.status,
          code: body.error.code,
          replayed,
        };
      })());
    }
  }
  return await Promise.all(sends);
}

Deno.test("month used up: 19 new invoices each sent 2 to 20 times at once through two instances are all 403", async () => {
  const instances = await start_two_instances();
  try {
    const { key, account_id } = await instances.servers[0]!.create_account({
      plan: "starter",
    });
    await set_used(instances.database, account_id, STARTER_LIMIT);
    for (let round = 0; round < 3; round++) {
      const outcomes = await send_duplicates(instances, key, `UP${round}`);
      assertEquals(outcomes.length, 209);
      const through = outcomes.filter((o) => o.status !== 403);
      assertEquals(through, [], "no copy may get through a used-up month");
      for (const outcome of outcomes) {
        assertEquals(outcome.code, "quota_exceeded");
      }
      assertEquals(
        await used_now(instances.database, account_id),
        STARTER_LIMIT,
      );
    }
  } finally {
    await instances.close();
  }
});

Deno.test("R invoices left: exactly R distinct invoices get through whatever the duplicates", async () => {
  const instances = await start_two_instances();
  try {
    for (const left of [1, 3, 7]) {
      const { key, account_id } = await instances.servers[0]!.create_account({
        plan: "starter",
      });
      await set_used(instances.database, account_id, STARTER_LIMIT - left);
      const outcomes = await send_duplicates(instances, key, `LEFT${left}`);
      const charged = new Set(
        outcomes.filter((o) => o.status === 200).map((o) => o.invoice),
      );
      assertEquals(
        charged.size,
        left,
        `${left} left: distinct invoices through`,
      );
      for (const outcome of outcomes) {
        assert(
          outcome.status === 200 || outcome.code === "quota_exceeded",
          `unexpected answer ${outcome.status} ${outcome.code}`,
        );
        // Copies of an invoice that was not charged never come back as replays.
        if (!charged.has(outcome.invoice)) assertEquals(outcome.status, 403);
      }
      // Among the copies of each charged invoice, exactly one was charged;
      // any other 200 is a replay.
      for (const invoice of charged) {
        const ok = outcomes.filter((o) =>
          o.invoice === invoice && o.status === 200
        );
        assertEquals(ok.filter((o) => !o.replayed).length, 1);
      }
      // A charge is recorded just after its answer's body ends.
      for (const server of instances.servers) await server.server.settled();
      assertEquals(
        await used_now(instances.database, account_id),
        STARTER_LIMIT,
      );
    }
  } finally {
    await instances.close();
  }
});
