/**
 * Usage broken down by key: each charged invoice is counted for
 * the key that paid for it (test keys for their uncharged calls), a free
 * identical retry is not counted, a failed render gives the count back, and
 * revoked keys stay in the month's breakdown, marked revoked. Through the
 * dashboard's REST face (`GET /account/usage`), its tRPC procedure, and the
 * database functions; PGlite by default, PostgreSQL with TEST_DATABASE_URL.
 */
import { assert, assertEquals } from "../assert.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { open_test_database } from "../helpers/test_database.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import {
  API_KEY_DISPLAY_PREFIX_LENGTH,
  charge_generation,
  create_account,
  create_api_key,
  get_usage_by_key,
  release_generation,
  reserve_generation,
  reserve_test_generation,
  revoke_api_key,
  set_email_verified,
} from "../../db/mod.ts";
import type { AccountUsageView } from "../../contract/mod.ts";

const PASSWORD = "correct horse battery staple";

/** Signs up and in through tRPC; returns the session cookie and account id. */
async function sign_up(
  server: TestServer,
): Promise<{ cookie: string; account_id: string }> {
  const credentials = JSON.stringify({
    email: `by-key-${crypto.randomUUID().slice(0, 8)}@example.com`,
    password: PASSWORD,
  });
  const headers = { "Content-Type": "application/json" };
  const response = await fetch(`${server.url}/trpc/auth.sign_up`, {
    method: "POST",
    headers,
    body: credentials,
  });
  assertEquals(response.status, 200, await response.clone().text());
  await response.body?.cancel();
  // Sign-up starts no session; signing in with the chosen password does.
  const signed_in = await fetch(`${server.url}/trpc/auth.sign_in`, {
    method: "POST",
    headers,
    body: credentials,
  });
  assertEquals(signed_in.status, 200, await signed_in.clone().text());
  const account_id = (await signed_in.json()).result.data.account.id;
  const cookie = /(session=[^;]*)/.exec(
    signed_in.headers.get("set-cookie") ?? "",
  )?.[1];
  assert(cookie, "no session cookie");
  await set_email_verified(server.test_database.database, account_id);
  return { cookie, account_id };
}

async function new_key(
  server: TestServer,
  account_id: string,
  body: { name: string; mode?: "live" | "test" },
): Promise<{ id: string; key: string }> {
  const response = await server.admin(`/admin/accounts/${account_id}/keys`, {
    body,
  });
  assertEquals(response.status, 201);
  return await response.json();
}

async function generate_ok(
  server: TestServer,
  key: string,
  invoice_number: string,
): Promise<Response> {
  const response = await server.generate(key, {
    ...full_invoice(),
    invoice_number,
  });
  assertEquals(
    response.status,
    200,
    `${invoice_number} ${
      response.status === 200 ? "" : await response.clone().text()
    }`,
  );
  await response.arrayBuffer();
  return response;
}

/** `name: count (status)` lines, in the order the breakdown lists them. */
function breakdown(usage: AccountUsageView): string[] {
  return usage.by_key.map((key) =>
    `${key.name}: ${key.count} (${key.mode}, ${key.status})`
  );
}

Deno.test("usage by key: charged invoices per key, replays free, revoked keys kept and marked (REST and tRPC)", async () => {
  const server = await start_test_server();
  try {
    const { cookie, account_id } = await sign_up(server);
    const usage = async (): Promise<AccountUsageView> => {
      const rest = await fetch(`${server.url}/account/usage`, {
        headers: { Cookie: cookie },
      });
      assertEquals(rest.status, 200);
      const body = await rest.json();
      const trpc = await fetch(`${server.url}/trpc/account.usage`, {
        headers: { Cookie: cookie },
      });
      assertEquals(trpc.status, 200);
      assertEquals((await trpc.json()).result.data, body);
      return body;
    };

    // A new account: no keys, nothing to break down.
    assertEquals((await usage()).by_key, []);

    const production = await new_key(server, account_id, {
      name: "Production",
    });
    const staging = await new_key(server, account_id, { name: "Staging" });
    const ci = await new_key(server, account_id, { name: "CI", mode: "test" });
    await new_key(server, account_id, { name: "Unused" });
    const retired = await new_key(server, account_id, { name: "Retired" });

    for (const n of [1, 2, 3]) {
      await generate_ok(server, production.key, `P-${n}`);
    }
    await generate_ok(server, staging.key, "S-1");
    // The same invoice again: served as a replay, not counted anywhere.
    const replay = await generate_ok(server, staging.key, "S-1");
    assertEquals(replay.headers.get("idempotent-replayed"), "true");
    await generate_ok(server, ci.key, "CI-1");
    await generate_ok(server, ci.key, "CI-2");
    // A refused request (bad input) is not counted either.
    const bad = await server.generate(production.key, { items: [] });
    assertEquals(bad.status, 400);
    await bad.body?.cancel();

    const before = await usage();
    assertEquals(before.used, 4);
    assertEquals(before.test_calls, 2);
    // Most used first, then oldest first.
    assertEquals(breakdown(before), [
      "Production: 3 (live, active)",
      "CI: 2 (test, active)",
      "Staging: 1 (live, active)",
      "Unused: 0 (live, active)",
      "Retired: 0 (live, active)",
    ]);
    const live_total = before.by_key.filter((key) => key.mode === "live")
      .reduce((sum, key) => sum + key.count, 0);
    assertEquals(live_total, before.used, "live keys add up to the month");
    const listed = before.by_key.find((key) => key.name === "Production")!;
    assertEquals(listed.id, production.id);
    assertEquals(
      listed.prefix,
      production.key.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH),
    );
    assert(
      !JSON.stringify(before).includes(production.key),
      "never the secret",
    );

    // Revoked: the used key stays (marked), the unused one drops out.
    for (const key of [staging, retired]) {
      const revoked = await server.admin(`/admin/keys/${key.id}/revoke`, {
        method: "POST",
      });
      assertEquals(revoked.status, 200, await revoked.clone().text());
      await revoked.body?.cancel();
    }
    const after = await usage();
    assertEquals(breakdown(after), [
      "Production: 3 (live, active)",
      "CI: 2 (test, active)",
      "Staging: 1 (live, revoked)",
      "Unused: 0 (live, active)",
    ]);

    // Not signed in: the one error shape, no breakdown.
    const anonymous = await fetch(`${server.url}/account/usage`);
    assertEquals(anonymous.status, 401);
    assertEquals((await anonymous.json()).error.code, "unauthorized");
  } finally {
    await server.close();
  }
});

Deno.test("usage by key (database): reserve, release and test calls move the key's count; months apart", async () => {
  const test_database = await open_test_database();
  const { database } = test_database;
  try {
    const account = await create_account(database, {
      email: `db-by-key-${crypto.randomUUID().slice(0, 8)}@example.com`,
      plan: "starter",
    });
    const live = await create_api_key(database, {
      account_id: account.id,
      name: "Live",
    });
    const test = await create_api_key(database, {
      account_id: account.id,
      name: "Test",
      mode: "test",
    });
    const month = "2030-07";
    const base = { account_id: account.id, month, day: "2030-07-02" };
    const first = await charge_generation(database, {
      ...base,
      limit: 2,
      request_hash: "a",
      key_id: live.id,
    });
    assertEquals(first.status, "reserved");
    const second = { ...base, request_hash: "b", key_id: live.id };
    assertEquals(
      (await reserve_generation(database, { ...second, limit: 2 })).status,
      "reserved",
    );
    // Over the limit (one charged, one reserved): refused, counted nowhere.
    assertEquals(
      (await reserve_generation(database, {
        ...base,
        limit: 2,
        request_hash: "c",
        key_id: live.id,
      })).status,
      "exhausted",
    );
    const counts = async (at: string) =>
      Object.fromEntries(
        (await get_usage_by_key(database, account.id, { month: at })).map((
          key,
        ) => [key.name, key.count]),
      );
    // A reservation is counted for the key only once settled.
    assertEquals(await counts(month), { Live: 1, Test: 0 });
    // An undelivered document gives its reservation back; twice is once.
    assertEquals(await release_generation(database, second), true);
    assertEquals(await release_generation(database, second), false);
    assertEquals(await counts(month), { Live: 1, Test: 0 });

    await reserve_test_generation(database, {
      account_id: account.id,
      month,
      key_id: test.id,
      limit: 1000,
    });
    assertEquals(await counts(month), { Live: 1, Test: 1 });
    // Another month starts from zero.
    assertEquals(await counts("2030-08"), { Live: 0, Test: 0 });

    // Revoked and unused in a month: left out of that month only.
    await revoke_api_key(database, { key_id: test.id });
    assertEquals(await counts(month), { Live: 1, Test: 1 });
    assertEquals(await counts("2030-08"), { Live: 0 });
    const [row] = await get_usage_by_key(database, account.id, { month });
    assertEquals(row.revoked_at, null);
  } finally {
    await test_database.close();
  }
});
