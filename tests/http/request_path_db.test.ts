/**
 * The database work of `POST /generate`, as /metrics shows it. A key not
 * seen lately is checked before the body is read (key statement), then the
 * quota is charged (quota statement); a key that checked out lately is
 * checked by the statement that charges the quota: one statement, one round
 * trip. Whatever the path, the answers are the same: 401/403/429 before 400,
 * a revoked key, an inactive subscription or a used-up month are refused at
 * once, and nothing is charged that was not delivered.
 */
import { assertEquals, assertMatch } from "../assert.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { full_invoice } from "../fixtures/invoices.ts";

function statement_counts(metrics: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (
    const match of metrics.matchAll(
      /^db_statement_duration_seconds_count\{statement="([^"]+)"\} (\d+)$/gm,
    )
  ) {
    counts[match[1]] = Number(match[2]);
  }
  return counts;
}

const KEY = "ink_authenticate_api_key";
const QUOTA = "ink_reserve_generation";
const BOTH = "ink_authenticate_and_reserve";

const SETTLE = "ink_settle_generation";

/**
 * Statements run by `action`, by name (only those that ran). A delivered
 * document is settled once its last byte was handed over, which the client
 * may see first: the counts are read again (at most 50 times, 20 ms apart)
 * until they match `expected`.
 */
async function statements_of(
  server: TestServer,
  action: () => Promise<void>,
  expected: Record<string, number>,
): Promise<Record<string, number>> {
  const read = async () =>
    statement_counts(await (await fetch(`${server.url}/metrics`)).text());
  const before = await read();
  await action();
  let ran: Record<string, number> = {};
  for (let attempt = 0; attempt < 50; attempt++) {
    const after = await read();
    ran = {};
    for (const [name, count] of Object.entries(after)) {
      const delta = count - (before[name] ?? 0);
      if (delta > 0) ran[name] = delta;
    }
    if (JSON.stringify(ran) === JSON.stringify(expected)) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return ran;
}

let invoice_counter = 0;

async function generate(
  server: TestServer,
  key: string,
  body: unknown = {
    ...full_invoice(),
    invoice_number: `DB-${++invoice_counter}`,
  },
): Promise<{ status: number; code?: string; quota_remaining: string | null }> {
  const response = await server.generate(key, body);
  const quota_remaining = response.headers.get("X-Quota-Remaining");
  if (response.status === 200) {
    await response.arrayBuffer();
    return { status: 200, quota_remaining };
  }
  const error = await response.json();
  return { status: response.status, code: error.error.code, quota_remaining };
}

async function used(server: TestServer, account_id: string): Promise<number> {
  const response = await server.admin(`/admin/accounts/${account_id}`);
  const account = await response.json();
  return account.usage.used;
}

Deno.test("generate: a cold key takes two statements, a warm key one, and delivery settles with one more, timed in /metrics", async () => {
  const server = await start_test_server();
  try {
    const { key } = await server.create_account({ plan: "pro" });
    const cold = { [KEY]: 1, [QUOTA]: 1, [SETTLE]: 1 };
    assertEquals(
      await statements_of(server, async () => {
        assertEquals((await generate(server, key)).status, 200);
      }, cold),
      cold,
    );
    const warm = { [BOTH]: 3, [SETTLE]: 3 };
    assertEquals(
      await statements_of(server, async () => {
        for (let n = 0; n < 3; n++) {
          assertEquals((await generate(server, key)).status, 200);
        }
      }, warm),
      warm,
    );
    // A bad body: the key statement only (validation comes before the
    // quota, and the key is still checked first).
    const invalid_body = { [KEY]: 1 };
    assertEquals(
      await statements_of(server, async () => {
        const invalid = await generate(server, key, { items: [] });
        assertEquals([invalid.status, invalid.code], [400, "invalid_request"]);
      }, invalid_body),
      invalid_body,
    );
    // An unknown key with a bad body: 401 before anything else.
    const unknown = await generate(
      server,
      `ink_live_${"x".repeat(43)}`,
      { items: [] },
    );
    assertEquals([unknown.status, unknown.code], [401, "unauthorized"]);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assertMatch(
      metrics,
      /^db_statement_duration_seconds_sum\{statement="ink_authenticate_and_reserve"\} [0-9.e-]+$/m,
    );
  } finally {
    await server.close();
  }
});

Deno.test("generate: a warm key revoked, deactivated, rate-limited or used up is refused at once and not charged", async () => {
  const server = await start_test_server({
    env: { RATE_LIMIT_PER_MINUTE: "6" },
  });
  try {
    // Revoked after it warmed up: 403 key_revoked, before a 400 for the body.
    {
      const { account_id, key, key_id } = await server.create_account();
      assertEquals((await generate(server, key)).status, 200);
      const revoked = await server.admin(`/admin/keys/${key_id}/revoke`, {
        body: {},
      });
      assertEquals(revoked.status, 200);
      await revoked.arrayBuffer();
      const refused = await generate(server, key);
      assertEquals([refused.status, refused.code], [403, "key_revoked"]);
      const invalid = await generate(server, key, { items: [] });
      assertEquals([invalid.status, invalid.code], [403, "key_revoked"]);
      assertEquals(await used(server, account_id), 1);
    }
    // Subscription made inactive after the key warmed up.
    {
      const { account_id, key } = await server.create_account();
      assertEquals((await generate(server, key)).status, 200);
      const patched = await server.admin(`/admin/accounts/${account_id}`, {
        method: "PATCH",
        body: { subscription_status: "inactive" },
      });
      assertEquals(patched.status, 200);
      await patched.arrayBuffer();
      const refused = await generate(server, key);
      assertEquals([refused.status, refused.code], [
        403,
        "subscription_inactive",
      ]);
      assertEquals(await used(server, account_id), 1);
    }
    // Past the rate limit (6 a minute): 429, not charged, also for a bad body.
    {
      const { account_id, key } = await server.create_account();
      for (let n = 0; n < 6; n++) {
        assertEquals((await generate(server, key)).status, 200);
      }
      const limited = await generate(server, key);
      assertEquals([limited.status, limited.code], [429, "rate_limited"]);
      const invalid = await generate(server, key, { items: [] });
      assertEquals([invalid.status, invalid.code], [429, "rate_limited"]);
      assertEquals(await used(server, account_id), 6);
    }
  } finally {
    await server.close();
  }
});

Deno.test("generate: a warm key's month used up answers 403 with the quota headers; a retry of a charged invoice stays free", async () => {
  const server = await start_test_server();
  try {
    const { account_id, key } = await server.create_account(); // starter: 150
    const first = { ...full_invoice(), invoice_number: "DB-FIRST" };
    assertEquals((await generate(server, key, first)).status, 200);
    // Fill the month through the quota statement the service itself uses.
    const { database } = server.test_database;
    const { charge_generation } = await import("../../db/mod.ts");
    const now = new Date();
    for (let n = 2; n <= 150; n++) {
      await charge_generation(database, {
        account_id,
        month: now.toISOString().slice(0, 7),
        day: now.toISOString().slice(0, 10),
        limit: 150,
        request_hash: `filler-${n}`,
      });
    }
    const over = await generate(server, key);
    assertEquals([over.status, over.code, over.quota_remaining], [
      403,
      "quota_exceeded",
      "0",
    ]);
    const retry = await generate(server, key, first);
    assertEquals([retry.status, retry.quota_remaining], [200, "0"]);
    assertEquals(await used(server, account_id), 150);
  } finally {
    await server.close();
  }
});
