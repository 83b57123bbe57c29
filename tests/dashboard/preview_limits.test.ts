/**
 * The dashboard's free previews: every page carries a visible, extractable
 * "PREVIEW — not valid for accounting" mark; inactive subscriptions get none;
 * and besides 30 a minute there is a daily cap of 50.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { pdf_attachment_text, pdf_page_texts } from "../helpers/pdf_text.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import { corpus_request } from "../fixtures/einvoice_corpus.ts";
import { create_session, take_sliding_window } from "../../db/mod.ts";
import {
  PREVIEWS_PER_DAY,
  PREVIEWS_PER_MINUTE,
} from "../../server/services.ts";

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
): Promise<{
  status: number;
  // deno-lint-ignore no-explicit-any
  body: Record<string, any>;
  retry_after: string | null;
}> {
  const response = await fetch(`${server.url}/trpc/invoice.preview`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: await response.json(),
    retry_after: response.headers.get("retry-after"),
  };
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
      await take_sliding_window(server.test_database.database, {
        bucket: `preview-day:${account_id}`,
        limit: PREVIEWS_PER_DAY,
        window_seconds: 86_400,
        now: clock,
      });
    }
    const refused = await preview(
      server,
      await session_headers(server, account_id, clock),
      invoice_with_items(1),
    );
    assertEquals(refused.status, 429);
    assertMatch(refused.body.error.message, /50 a day/);
    // Nine hours to midnight UTC, when today's previews start to weigh
    // less, and then the time it takes one of them to slide out.
    const wait = (9 / 24 + 1 / PREVIEWS_PER_DAY) * 86_400;
    assert(Math.abs(Number(refused.retry_after) - wait) <= 1);
    assertMatch(refused.body.error.message, /try again in 10 hours/);

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

Deno.test("previews per minute: a sliding window, and every 429 over /trpc carries Retry-After", async () => {
  let clock = new Date("2026-11-23T10:00:50Z");
  const server = await start_test_server({ now: () => clock, env: IN_THREAD });
  try {
    const { account_id } = await server.create_account({ plan: "team" });
    const headers = await session_headers(server, account_id, clock);
    const burst = async (count: number) => {
      const answers = [];
      for (let n = 0; n < count; n++) {
        answers.push(await preview(server, headers, invoice_with_items(1)));
      }
      return answers;
    };
    const first = await burst(PREVIEWS_PER_MINUTE + 1);
    assert(first.slice(0, -1).every((answer) => answer.status === 200));
    const refused = first.at(-1)!;
    assertEquals(refused.status, 429);
    assertEquals(refused.body.error.data.code, "rate_limited");
    // The minute's previews weigh fully until 10:01:00; one slides out
    // every 2 seconds after it: room again at 10:01:02, 12 s on.
    assertEquals(refused.retry_after, "12");

    // Across the boundary, 5 s on: 2 fit (the last minute's weigh 27.5),
    // not another 30.
    clock = new Date("2026-11-23T10:01:05Z");
    const across = await burst(PREVIEWS_PER_MINUTE);
    assertEquals(across.filter((answer) => answer.status === 200).length, 2);
    const last = across.at(-1)!;
    assertEquals(last.status, 429);
    const wait = Number(last.retry_after);
    assert(wait >= 1 && wait < 60, `Retry-After ${last.retry_after}`);
    clock = new Date(clock.getTime() + wait * 1000);
    const after_wait = await preview(server, headers, invoice_with_items(1));
    assertEquals(after_wait.status, 200, "served once Retry-After has passed");
  } finally {
    await server.close();
  }
});

Deno.test("previews take `format`: XML marked as a test document (TEST- number, (TEST) seller, note), Factur-X marked inside and out; the preview limits apply", async () => {
  const clock = new Date("2026-11-23T15:00:00Z");
  const server = await start_test_server({
    now: () => clock,
    env: { RENDER_TIMEOUT_MS: "120000" },
  });
  try {
    const { account_id } = await server.create_account({ plan: "team" });
    const headers = await session_headers(server, account_id, clock);
    const request = corpus_request("standard", 1);
    const seller = request.sender.name.replaceAll("&", "&amp;");
    for (const format of ["cii", "ubl", "xrechnung-cii", "xrechnung-ubl"]) {
      const answer = await preview(server, headers, { ...request, format });
      assertEquals(answer.status, 200, JSON.stringify(answer.body));
      const data = answer.body.result.data;
      assertEquals(data.content_type, "application/xml; charset=utf-8");
      assertEquals(data.pdf_base64, undefined);
      assertMatch(data.file_name, /\.xml$/);
      const xml: string = data.xml;
      assert(xml.includes(`>TEST-${request.invoice_number}<`), format);
      assert(xml.includes(`>${seller} (TEST)<`), format);
      assert(xml.includes("TEST – not valid for accounting"), format);
      assert(!xml.includes(`>${request.invoice_number}<`), format);
    }

    const factur_x = await preview(server, headers, {
      ...request,
      format: "factur-x",
    });
    assertEquals(factur_x.status, 200, JSON.stringify(factur_x.body));
    assertEquals(factur_x.body.result.data.content_type, "application/pdf");
    const pdf = Uint8Array.from(
      atob(factur_x.body.result.data.pdf_base64),
      (c) => c.charCodeAt(0),
    );
    for (const page of await pdf_page_texts(pdf)) {
      assertMatch(page, /PREVIEW — not valid for accounting/);
    }
    const inside = await pdf_attachment_text(pdf);
    assert(inside.includes(`>TEST-${request.invoice_number}<`));
    assert(inside.includes("TEST – not valid for accounting"));

    // A format that needs more than the invoice has: the /generate 400.
    const lacking = await preview(server, headers, {
      ...invoice_with_items(1),
      format: "xrechnung-ubl",
    });
    assertEquals(lacking.status, 400);
    assert(lacking.body.error.data.details.length > 0);

    // The day's previews used up: XML previews are refused like PDFs.
    for (let n = 0; n < PREVIEWS_PER_DAY; n++) {
      await take_sliding_window(server.test_database.database, {
        bucket: `preview-day:${account_id}`,
        limit: PREVIEWS_PER_DAY,
        window_seconds: 86_400,
        now: clock,
      });
    }
    const refused = await preview(server, headers, {
      ...request,
      format: "cii",
    });
    assertEquals(refused.status, 429);
  } finally {
    await server.close();
  }
});
