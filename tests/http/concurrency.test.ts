/**
 * Exact quota under concurrency (two instances on PostgreSQL), revoked keys
 * surviving a restart, and the 503 path when the database goes away.
 */
import { assert, assertEquals } from "../assert.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { open_test_database } from "../helpers/test_database.ts";
import { open_database } from "../../db/mod.ts";
import { start_tcp_proxy } from "../helpers/tcp_proxy.ts";
import { full_invoice } from "../fixtures/invoices.ts";

Deno.test("500 concurrent requests against 150 remaining: exactly 150 succeed", async () => {
  const test_database = await open_test_database();
  const servers: TestServer[] = [];
  const second_handle = test_database.database_url
    ? await open_database({ database_url: test_database.database_url })
    : undefined;
  try {
    const env = { RATE_LIMIT_PER_MINUTE: "100000" };
    servers.push(await start_test_server({ env, test_database }));
    if (second_handle) {
      // A second app instance with its own connection pool on the same database.
      servers.push(
        await start_test_server({
          env,
          test_database: {
            ...test_database,
            database: second_handle,
            close: () => second_handle.close(),
          },
        }),
      );
    }
    const { key, account_id } = await servers[0].create_account({
      plan: "starter",
    });
    const responses = await Promise.all(
      Array.from({ length: 500 }, async (_, n) => {
        const server = servers[n % servers.length];
        const response = await server.generate(key, {
          ...full_invoice(),
          invoice_number: `C-${n}`,
        });
        const status = response.status;
        const code = status === 200 ? "ok" : (await response.json()).error.code;
        if (status === 200) await response.arrayBuffer();
        return `${status} ${code}`;
      }),
    );
    const counts: Record<string, number> = {};
    for (const outcome of responses) {
      counts[outcome] = (counts[outcome] ?? 0) + 1;
    }
    assertEquals(counts, { "200 ok": 150, "403 quota_exceeded": 350 });
    const account =
      await (await servers[0].admin(`/admin/accounts/${account_id}`)).json();
    assertEquals(account.usage.used, 150);
  } finally {
    for (const server of servers) await server.close();
    await second_handle?.close();
    await test_database.close();
  }
});

Deno.test("revoked keys stay dead after a restart", async () => {
  const test_database = await open_test_database();
  const data_dir = await Deno.makeTempDir({ prefix: "invoice-restart-" });
  const env = test_database.database_url
    ? { DATABASE_URL: test_database.database_url }
    : { DATA_DIR: data_dir };
  try {
    // Start from configuration (not an injected handle), as production does.
    const { start_server } = await import("../../server/serve.ts");
    const { load_config } = await import("../../server/config.ts");
    const config = load_config({
      PORT: "0",
      ADMIN_TOKEN: "restart-admin-token-123",
      ...env,
    });
    let server = await start_server(config, { quiet: true });
    const admin = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: {
          Authorization: "Bearer restart-admin-token-123",
          "Content-Type": "application/json",
        },
        body: JSON.stringify(body),
      }).then((r) => r.json());
    const account = await admin("/admin/accounts", {
      email: "restart@example.com",
      plan: "pro",
    });
    const key = await admin(`/admin/accounts/${account.id}/keys`, {
      name: "Doomed",
    });
    await admin(`/admin/keys/${key.id}/revoke`, {});
    await server.shutdown();
    server = await start_server(config, { quiet: true });
    const response = await fetch(`${server.url}/generate`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key.key}`,
        "Content-Type": "application/json",
      },
      body: JSON.stringify(full_invoice()),
    });
    assertEquals(response.status, 403);
    assertEquals((await response.json()).error.code, "key_revoked");
    await server.shutdown();
  } finally {
    await Deno.remove(data_dir, { recursive: true });
    await test_database.close();
  }
});

Deno.test({
  name: "database unreachable: 503 with Retry-After, then recovery by itself",
  ignore: !Deno.env.get("TEST_DATABASE_URL"),
  async fn() {
    const test_database = await open_test_database();
    const target = new URL(test_database.database_url!);
    const proxy = start_tcp_proxy(target.hostname, Number(target.port || 5432));
    const proxied = new URL(target);
    proxied.hostname = "127.0.0.1";
    proxied.port = String(proxy.port);
    const server = await start_test_server({
      env: { DATABASE_URL: proxied.toString() },
      test_database: {
        ...test_database,
        database: await open_database({ database_url: proxied.toString() }),
      },
    });
    try {
      const { key } = await server.create_account({ plan: "pro" });
      await proxy.stop();
      const started = performance.now();
      const down = await server.generate(key, full_invoice());
      assertEquals(down.status, 503);
      assert(down.headers.get("retry-after"));
      assertEquals((await down.json()).error.code, "unavailable");
      // Generous bound: a hang would take the 30 s client timeout.
      assert(performance.now() - started < 15_000, "the 503 must come quickly");
      const ready = await fetch(`${server.url}/readyz`);
      assertEquals(ready.status, 503);
      await ready.body?.cancel();
      proxy.start();
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
        const response = await server.generate(key, full_invoice());
        status = response.status;
        await response.body?.cancel();
        if (status !== 200) {
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      assertEquals(status, 200);
    } finally {
      await server.close();
      await server.test_database.database.close();
      await proxy.stop();
      await test_database.close();
    }
  },
});
