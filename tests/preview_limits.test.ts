/**
 * The dashboard's free previews (issue 16 item 2): every page carries a
 * visible, extractable "PREVIEW — not valid for accounting" mark; inactive
 * subscriptions get none; and besides 30 a minute there is a daily cap of
 * 50.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { start_test_server, type TestServer } from "./helpers/test_server.ts";
import { pdf_page_texts } from "./helpers/pdf_text.ts";
import { invoice_with_items } from "./fixtures/invoices.ts";
import { create_session, hit_rate_limit } from "../db/mod.ts";
import { PREVIEWS_PER_DAY } from "../server/services.ts";

// Rendering on the request thread: these tests are about what previews
// are, not about the worker pool.
const IN_THREAD = { RENDER_WORKERS: "0" };

async function session_headers(
  server: TestServer,
  account_id: string,
  now = new Date(),
): Promise<Record<string, string>> {
  const session = await create_session(server.test_database.database, {
    account_id,
    ttl_seconds: 3600,
    now,
  });
  return {
    Cookie: `session=${session.token}`,
    "X-CSRF-Token": session.csrf_token,
    Origin: server.url,
    "Content-Type": "application/json",
  };
}

async function preview(
  server: TestServer,
  headers: Record<string, string>,
  body: unknown,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${server.url}/trpc/invoice.preview`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

Deno.test("a preview is marked PREVIEW — not valid for accounting on every page; a generated invoice is not", async () => {
  const server = await start_test_server({ env: IN_THREAD });
  try {
    const { account_id, key } = await server.create_account({ plan: "pro" });
    const headers = await session_headers(server, account_id);
    const invoice = invoice_with_items(60);
    const answer = await preview(server, headers, invoice);
    assertEquals(answer.status, 200, JSON.stringify(answer.body));
    const bytes = Uint8Array.from(
      atob(answer.body.result.data.pdf_base64),
      (c) => c.charCodeAt(0),
    );
    const pages = await pdf_page_texts(bytes);
    assert(pages.length >= 2, "a multi-page preview");
    for (const [index, page] of pages.entries()) {
      assertMatch(
        page,
        /PREVIEW — not valid for accounting/,
        `page ${index + 1}`,
      );
      assertMatch(page, /PREVIEW\s/, `watermark on page ${index + 1}`);
    }

    const real = await server.generate(key, invoice);
    assertEquals(real.status, 200);
    const real_pages = await pdf_page_texts(
      new Uint8Array(await real.arrayBuffer()),
    );
    assert(real_pages.every((page) => !page.includes("PREVIEW")));
  } finally {
    await server.close();
  }
});

Deno.test("previews are refused for an inactive subscription", async () => {
  const server = await start_test_server({ env: IN_THREAD });
  try {
    const { account_id } = await server.create_account({
      plan: "starter",
      subscription_status: "inactive",
    });
    const answer = await preview(
      server,
      await session_headers(server, account_id),
      invoice_with_items(1),
    );
    assertEquals(answer.status, 403);
    assertEquals(answer.body.error.data.code, "subscription_inactive");
  } finally {
    await server.close();
  }
});

Deno.test("previews have a daily cap per account besides the per-minute one", async () => {
  const clock = new Date("2026-11-23T15:00:00Z");
  const server = await start_test_server({ now: () => clock, env: IN_THREAD });
  try {
    const { account_id } = await server.create_account({ plan: "team" });
    const other = await server.create_account({ plan: "team" });
    // The day's previews used up (counted as the service counts them).
    for (let n = 0; n < PREVIEWS_PER_DAY; n++) {
      await hit_rate_limit(server.test_database.database, {
        bucket: `preview-day:${account_id}`,
        now: clock,
        window_seconds: 86_400,
      });
    }
    const refused = await preview(
      server,
      await session_headers(server, account_id, clock),
      invoice_with_items(1),
    );
    assertEquals(refused.status, 429);
    assertMatch(refused.body.error.message, /50 a day/);
    // Nine hours to midnight UTC.
    assertMatch(refused.body.error.message, /32400 seconds/);

    const allowed = await preview(
      server,
      await session_headers(server, other.account_id, clock),
      invoice_with_items(1),
    );
    assertEquals(allowed.status, 200, "another account is not affected");
  } finally {
    await server.close();
  }
});

Deno.test("an account renders 50 previews a day: the 51st, an hour later, is refused", async () => {
  let clock = new Date("2026-11-23T08:00:00Z");
  const server = await start_test_server({ now: () => clock, env: IN_THREAD });
  try {
    const { account_id } = await server.create_account({ plan: "team" });
    const headers = await session_headers(server, account_id, clock);
    for (let n = 0; n < 50; n++) {
      const answer = await preview(server, headers, invoice_with_items(1));
      assertEquals(answer.status, 200, `preview ${n + 1}`);
      // One a minute: the per-minute limit never applies.
      clock = new Date(clock.getTime() + 61_000);
    }
    const refused = await preview(server, headers, invoice_with_items(1));
    assertEquals(refused.status, 429, "the 51st preview of the day");
    assertEquals(refused.body.error.data.code, "rate_limited");
    assertMatch(refused.body.error.message, /Previews are limited to 50 a day/);
  } finally {
    await server.close();
  }
});
