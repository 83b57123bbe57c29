/**
 * Test keys: created in `test` mode (admin API, dashboard), never
 * charged, counted apart, a rate limit of their own, usable while the
 * subscription is inactive.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
} from "../assert.ts";
import { pdf_page_texts, qpdf_check } from "../helpers/pdf_text.ts";
import { differing_pixels, render_page } from "../helpers/pdf_pixels.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { full_invoice } from "../fixtures/invoices.ts";

/** Pixels (40 dpi) by which a marked page differs from the live one at least. */
const VISIBLE_MARK_PIXELS = 3_000;

async function create_key(
  server: TestServer,
  account_id: string,
  body: Record<string, unknown>,
): Promise<Response> {
  return await server.admin(`/admin/accounts/${account_id}/keys`, { body });
}

async function test_key_for(
  server: TestServer,
  account_id: string,
): Promise<string> {
  const response = await create_key(server, account_id, {
    name: "CI",
    mode: "test",
  });
  assertEquals(response.status, 201);
  return (await response.json()).key;
}

Deno.test("test keys: created in test mode, listed with their mode; live stays the default", async () => {
  const server = await start_test_server();
  try {
    const { account_id } = await server.create_account();
    const test = await create_key(server, account_id, {
      name: "CI",
      mode: "test",
    });
    assertEquals(test.status, 201);
    const created = await test.json();
    assertMatch(created.key, /^ink_test_[A-Za-z0-9_-]{43}$/);
    assertEquals(created.mode, "test");
    assertEquals(created.prefix, created.key.slice(0, 17));
    const live = await (await create_key(server, account_id, {
      name: "Prod",
    })).json();
    assertMatch(live.key, /^ink_live_/);
    assertEquals(live.mode, "live");
    const bad = await create_key(server, account_id, {
      name: "X",
      mode: "sandbox",
    });
    assertEquals(bad.status, 400);
    const error = (await bad.json()).error;
    assertEquals(error.code, "invalid_request");
    assertEquals(error.details[0].path, "mode");
    const listed = await (await server.admin(
      `/admin/accounts/${account_id}/keys`,
    )).json();
    const modes = Object.fromEntries(
      listed.keys.map((key: { name: string; mode: string }) => [
        key.name,
        key.mode,
      ]),
    );
    assertEquals(modes, { "Test key": "live", CI: "test", Prod: "live" });
  } finally {
    await server.close();
  }
});

Deno.test("test keys: never charged (X-Quota-Remaining unchanged), counted apart, work on a used-up month", async () => {
  let now = new Date("2030-05-10T12:00:00Z");
  const server = await start_test_server({ now: () => now });
  try {
    const { account_id, key } = await server.create_account({
      plan: "starter",
    });
    const test_key = await test_key_for(server, account_id);
    const live = await server.generate(key, full_invoice());
    assertEquals(live.status, 200);
    await live.arrayBuffer();
    assertEquals(live.headers.get("x-quota-remaining"), "149");
    for (let n = 0; n < 3; n++) {
      const response = await server.generate(test_key, {
        ...full_invoice(),
        invoice_number: `T-${n}`,
      });
      assertEquals(response.status, 200);
      assertEquals(response.headers.get("content-type"), "application/pdf");
      assertEquals(response.headers.get("x-quota-remaining"), "149");
      assertEquals(response.headers.get("x-quota-limit"), "150");
      assertEquals(response.headers.get("idempotent-replayed"), null);
      await response.arrayBuffer();
    }
    const account = await (await server.admin(`/admin/accounts/${account_id}`))
      .json();
    assertEquals(account.usage.used, 1);
    assertEquals(account.usage.test_calls, 3);
    assertEquals(account.usage.remaining, 149);
    // Validation is the same as live.
    const invalid = await server.generate(test_key, {
      ...full_invoice(),
      currency: "EURO",
    });
    assertEquals(invalid.status, 400);
    assertEquals((await invalid.json()).error.details[0].path, "currency");

    // Used up: live is refused, test still renders.
    const exhausted = await server.create_account({ plan: "starter" });
    const exhausted_test = await test_key_for(server, exhausted.account_id);
    const { query_rows } = await import("../../db/_util.ts");
    const { sql } = await import("drizzle-orm");
    await query_rows(
      server.test_database.database,
      sql`insert into usage_monthly (account_id, month, count)
          values (${exhausted.account_id}::uuid, '2030-05', 150)`,
    );
    const refused = await server.generate(exhausted.key, full_invoice());
    assertEquals(refused.status, 403);
    await refused.body?.cancel();
    const test_call = await server.generate(exhausted_test, full_invoice());
    assertEquals(test_call.status, 200);
    assertEquals(test_call.headers.get("x-quota-remaining"), "0");
    await test_call.arrayBuffer();

    // The next month's count starts at zero for test calls too.
    now = new Date("2030-06-01T00:00:01Z");
    const june = await (await server.admin(`/admin/accounts/${account_id}`))
      .json();
    assertEquals(june.usage.test_calls, 0);
  } finally {
    await server.close();
  }
});

Deno.test("test keys: work while the subscription is inactive; live keys do not", async () => {
  const server = await start_test_server();
  try {
    const { account_id, key } = await server.create_account({
      subscription_status: "inactive",
    });
    const test_key = await test_key_for(server, account_id);
    const live = await server.generate(key, full_invoice());
    assertEquals(live.status, 403);
    assertEquals((await live.json()).error.code, "subscription_inactive");
    const test = await server.generate(test_key, full_invoice());
    assertEquals(test.status, 200);
    await test.arrayBuffer();
    // Revoked test keys are refused like live ones.
    const listed = await (await server.admin(
      `/admin/accounts/${account_id}/keys`,
    )).json();
    const test_id = listed.keys.find((k: { mode: string }) =>
      k.mode === "test"
    ).id;
    await (await server.admin(`/admin/keys/${test_id}/revoke`, { body: {} }))
      .body?.cancel();
    const revoked = await server.generate(test_key, full_invoice());
    assertEquals(revoked.status, 403);
    assertEquals((await revoked.json()).error.code, "key_revoked");
  } finally {
    await server.close();
  }
});

Deno.test("test keys: their own rate limit of 60 a minute per account, apart from live calls", async () => {
  const clock = new Date("2030-01-01T10:00:30Z");
  const server = await start_test_server({ now: () => clock });
  try {
    const { account_id, key } = await server.create_account({ plan: "team" });
    const test_key = await test_key_for(server, account_id);
    const second_test_key = await test_key_for(server, account_id);
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      // Both test keys share the account's test limit; `{}` is counted, then 400.
      const response = await server.generate(
        i % 2 === 0 ? test_key : second_test_key,
        {},
      );
      await response.body?.cancel();
      if (i === 0) {
        assertEquals(response.headers.get("ratelimit-limit"), "60");
      }
      statuses.push(response.status);
      if (response.status === 429) {
        assert(Number(response.headers.get("retry-after")) >= 1);
      }
    }
    assertEquals(statuses.filter((s) => s === 400).length, 60);
    assertEquals(statuses.at(-1), 429);
    // Live calls have the plan's limit (Team: 600) and were not touched.
    const live = await server.generate(key, {});
    assertEquals(live.status, 400);
    assertEquals(live.headers.get("ratelimit-limit"), "600");
    assertEquals(live.headers.get("ratelimit-remaining"), "599");
    await live.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("test keys: every page carries the drawn TEST marks and the footer line; live PDFs do not", async () => {
  const server = await start_test_server();
  try {
    const { account_id, key } = await server.create_account({ plan: "pro" });
    const test_key = await test_key_for(server, account_id);
    // Long enough for several pages.
    const invoice = {
      ...full_invoice(),
      items: Array.from({ length: 90 }, (_, n) => ({
        description: `Consulting block ${n + 1}`,
        quantity: 1,
        rate: 10,
        amount: 10,
      })),
    };
    const test_response = await server.generate(test_key, invoice);
    assertEquals(test_response.status, 200);
    const test_pdf = new Uint8Array(await test_response.arrayBuffer());
    const live_response = await server.generate(key, invoice);
    assertEquals(live_response.status, 200);
    const live_pdf = new Uint8Array(await live_response.arrayBuffer());

    const test_pages = await pdf_page_texts(test_pdf);
    assert(test_pages.length >= 3, `pages: ${test_pages.length}`);
    for (const [index, text] of test_pages.entries()) {
      assertStringIncludes(
        text,
        "Test invoice \u2014 not valid for accounting",
        `page ${index + 1}`,
      );
      // The drawn TEST marks: the page looks unlike the live one.
      const differing = differing_pixels(
        await render_page(test_pdf, index + 1),
        await render_page(live_pdf, index + 1),
      );
      assert(
        differing >= VISIBLE_MARK_PIXELS,
        `page ${index + 1}: ${differing}`,
      );
    }
    // The same content is there: validates and renders like live.
    const live_pages = await pdf_page_texts(live_pdf);
    assertEquals(live_pages.length, test_pages.length);
    for (const [index, text] of live_pages.entries()) {
      assert(!text.includes("not valid for accounting"));
      for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
        assertStringIncludes(test_pages[index]!, line.trim());
      }
    }
    assertEquals((await qpdf_check(test_pdf)).ok, true);
  } finally {
    await server.close();
  }
});
