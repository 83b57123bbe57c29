/**
 * `Idempotency-Key` on `POST /generate`: one charge and the same
 * PDF per key and body within 24 hours, 422 for the key with another body,
 * 409 while its first request runs; only hashes are stored.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { sql } from "drizzle-orm";
import { start_test_server } from "../helpers/test_server.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { query_rows } from "../../db/_util.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";
import type { Invoice } from "../../contract/mod.ts";

function with_key(key: string): { headers: Record<string, string> } {
  return { headers: { "Idempotency-Key": key } };
}

Deno.test("Idempotency-Key: same key and body within 24 h is one charge and the same PDF, even across a month boundary", async () => {
  let now = new Date("2030-04-30T23:59:00Z");
  const server = await start_test_server({ now: () => now });
  try {
    const { account_id, key } = await server.create_account({
      plan: "starter",
    });
    const invoice = full_invoice();
    const first = await server.generate(key, invoice, with_key("order-42"));
    assertEquals(first.status, 200);
    assertEquals(first.headers.get("idempotent-replayed"), null);
    assertEquals(first.headers.get("x-quota-remaining"), "149");
    const first_bytes = new Uint8Array(await first.arrayBuffer());

    // A minute later it is May: the body-hash receipt is April's, the key
    // still makes the retry a replay.
    now = new Date("2030-05-01T00:00:30Z");
    const retry = await server.generate(key, invoice, with_key("order-42"));
    assertEquals(retry.status, 200);
    assertEquals(retry.headers.get("idempotent-replayed"), "true");
    assertEquals(retry.headers.get("x-quota-remaining"), "150");
    assertEquals(new Uint8Array(await retry.arrayBuffer()), first_bytes);
    const account = await (await server.admin(`/admin/accounts/${account_id}`))
      .json();
    assertEquals(account.usage.month, "2030-05");
    assertEquals(account.usage.used, 0);

    // Without the key, May charges the same body anew.
    const plain = await server.generate(key, invoice);
    assertEquals(plain.headers.get("idempotent-replayed"), null);
    assertEquals(plain.headers.get("x-quota-remaining"), "149");
    await plain.arrayBuffer();

    // Same key, another body: 422.
    const reused = await server.generate(
      key,
      { ...invoice, invoice_number: "OTHER-1" },
      with_key("order-42"),
    );
    assertEquals(reused.status, 422);
    assertEquals((await reused.json()).error.code, "idempotency_key_reused");

    // After 24 hours the key is forgotten: a new body is accepted with it.
    now = new Date("2030-05-02T00:00:00Z");
    const later = await server.generate(
      key,
      { ...invoice, invoice_number: "OTHER-1" },
      with_key("order-42"),
    );
    assertEquals(later.status, 200);
    await later.arrayBuffer();
  } finally {
    await server.close();
  }
});

Deno.test("Idempotency-Key: a second request while the first runs is 409 idempotency_in_progress", async () => {
  let release_render: () => void = () => {};
  let started_render: () => void = () => {};
  const render_started = new Promise<void>((resolve) => {
    started_render = resolve;
  });
  let slow_seen = false;
  const server = await start_test_server({
    render_document: async (invoice: Invoice) => {
      // Only the first render waits; a replay renders at once.
      if (invoice.invoice_number === "SLOW-1" && !slow_seen) {
        slow_seen = true;
        started_render();
        await new Promise<void>((resolve) => {
          release_render = resolve;
        });
      }
      return render_invoice_pdf(invoice);
    },
  });
  try {
    const { account_id, key } = await server.create_account();
    const invoice = { ...full_invoice(), invoice_number: "SLOW-1" };
    const first = server.generate(key, invoice, with_key("slow"));
    await render_started;
    const second = await server.generate(key, invoice, with_key("slow"));
    assertEquals(second.status, 409);
    assert(Number(second.headers.get("retry-after")) >= 1);
    assertEquals((await second.json()).error.code, "idempotency_in_progress");
    // Another body with the running key is still a misuse of the key.
    const other = await server.generate(
      key,
      full_invoice(),
      with_key("slow"),
    );
    assertEquals(other.status, 422);
    await other.body?.cancel();
    release_render();
    const done = await first;
    assertEquals(done.status, 200);
    const bytes = new Uint8Array(await done.arrayBuffer());
    const third = await server.generate(key, invoice, with_key("slow"));
    assertEquals(third.status, 200);
    assertEquals(third.headers.get("idempotent-replayed"), "true");
    assertEquals(new Uint8Array(await third.arrayBuffer()), bytes);
    const account = await (await server.admin(`/admin/accounts/${account_id}`))
      .json();
    assertEquals(account.usage.used, 1);
  } finally {
    await server.close();
  }
});

Deno.test("Idempotency-Key: a refused request does not hold the key; only hashes are stored", async () => {
  const server = await start_test_server();
  try {
    const { account_id, key } = await server.create_account({
      plan: "starter",
    });
    const month = new Date().toISOString().slice(0, 7);
    const database = server.test_database.database;
    await query_rows(
      database,
      sql`insert into usage_monthly (account_id, month, count)
          values (${account_id}::uuid, ${month}, 150)`,
    );
    const invoice = { ...full_invoice(), invoice_number: "SECRET-INV-77" };
    const idempotency_key = "client-key-7f3a";
    const refused = await server.generate(
      key,
      invoice,
      with_key(idempotency_key),
    );
    assertEquals(refused.status, 403);
    await refused.body?.cancel();
    // Upgraded: the retry with the same key is judged afresh and charged.
    const upgrade = await server.admin(`/admin/accounts/${account_id}`, {
      method: "PATCH",
      body: { plan: "pro" },
    });
    assertEquals(upgrade.status, 200);
    await upgrade.body?.cancel();
    const retry = await server.generate(
      key,
      invoice,
      with_key(idempotency_key),
    );
    assertEquals(retry.status, 200);
    assertEquals(retry.headers.get("idempotent-replayed"), null);
    await retry.arrayBuffer();
    // The key is marked done when the delivery settles, just after the
    // last byte left.
    await server.server.settled();
    const rows = await query_rows<Record<string, unknown>>(
      database,
      sql`select * from idempotency_keys`,
    );
    assertEquals(rows.length, 1);
    const stored = JSON.stringify(rows);
    assert(!stored.includes(idempotency_key), "the key itself is not stored");
    assert(!stored.includes("SECRET-INV-77"), "no invoice content is stored");
    assertMatch(String(rows[0]!.key_hash), /^[0-9a-f]{64}$/);
    assertEquals(rows[0]!.state, "done");
  } finally {
    await server.close();
  }
});

Deno.test("Idempotency-Key: 1-255 printable ASCII characters, else 400 naming the header", async () => {
  const server = await start_test_server();
  try {
    const { key } = await server.create_account();
    for (const bad of ["x".repeat(256), "tab\there", "caf\u00e9"]) {
      const response = await server.generate(key, full_invoice(), {
        headers: { "Idempotency-Key": bad },
      });
      assertEquals(response.status, 400, JSON.stringify(bad));
      const error = (await response.json()).error;
      assertEquals(error.code, "invalid_request");
      assertEquals(error.details[0].path, "Idempotency-Key");
    }
    for (const good of ["a", "x".repeat(255), "0b5e-Ω".slice(0, 5) + " ~!"]) {
      const response = await server.generate(key, full_invoice(), {
        headers: { "Idempotency-Key": good },
      });
      assertEquals(response.status, 200, JSON.stringify(good));
      await response.arrayBuffer();
    }
  } finally {
    await server.close();
  }
});
