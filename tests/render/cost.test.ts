/**
 * The cost of one document is bounded: a body built to be slow is a fast 400
 * before anything is rendered or charged; the renderer stops at the page limit
 * as a backstop; one account's flood of renders does not queue another
 * account's invoice behind it; and a render that timed out is not free to
 * repeat.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { start_test_server } from "../helpers/test_server.ts";
import {
  invoice_with_items,
  mixed_script_invoice,
} from "../fixtures/invoices.ts";
import { base64, png_bytes, solid_png } from "../helpers/images.ts";
import { pdf_images } from "../helpers/pdf_text.ts";
import { InvoiceRequestSchema } from "../../contract/mod.ts";
import { RenderPool } from "../../server/render_pool.ts";
import { estimate_min_pages, MAX_PAGES } from "../../server/pdf/mod.ts";
import { TIMEOUTS_PER_HOUR } from "../../server/services.ts";

/** ~1 MiB: 1,000 items of 300 line breaks each (8,456 pages before the limit). */
function slow_body(): Record<string, unknown> {
  const body = invoice_with_items(1000) as unknown as {
    items: { description: string }[];
  };
  const description = Array.from({ length: 300 }, () => "x").join("\n");
  for (const item of body.items) item.description = description;
  return body as unknown as Record<string, unknown>;
}

Deno.test("a body built to be slow is a 400 naming the page limit, refused before rendering and not charged", async () => {
  const server = await start_test_server();
  try {
    const { account_id, key } = await server.create_account({ plan: "pro" });
    const response = await server.generate(key, slow_body());
    assertEquals(response.status, 400);
    const body = await response.json();
    assertEquals(body.error.code, "invalid_request");
    assertMatch(
      body.error.message,
      new RegExp(`at least \\d+ pages; at most ${MAX_PAGES}`),
    );
    assertEquals(body.error.details[0].path, "items");
    const account = await (await server.admin(`/admin/accounts/${account_id}`))
      .json();
    assertEquals(account.usage.used, 0);
  } finally {
    await server.close();
  }
});

Deno.test("1,000 lines of mixed-script text are a fast 400 naming the page limit, refused before rendering", async () => {
  const server = await start_test_server();
  try {
    const { account_id, key } = await server.create_account({ plan: "pro" });
    const warm = await server.generate(key, invoice_with_items(1));
    assertEquals(warm.status, 200);
    await warm.arrayBuffer();
    const started = performance.now();
    const response = await server.generate(key, mixed_script_invoice(4));
    const elapsed = performance.now() - started;
    assertEquals(response.status, 400);
    const body = await response.json();
    assertMatch(
      body.error.message,
      new RegExp(`at least \\d+ pages; at most ${MAX_PAGES}`),
    );
    assertEquals(body.error.details[0].path, "items");
    // Rendering 100 of its pages first took 4-7 s.
    assert(elapsed < 1000, `answered in ${elapsed.toFixed(0)} ms`);
    const account = await (await server.admin(`/admin/accounts/${account_id}`))
      .json();
    assertEquals(account.usage.used, 1, "only the warm-up invoice");
  } finally {
    await server.close();
  }
});

Deno.test("the page estimate is a lower bound, and the renderer stops at the limit when the estimate passes", async () => {
  for (const count of [1, 40, 300, 1000]) {
    const invoice = InvoiceRequestSchema.parse(invoice_with_items(count));
    assert(
      estimate_min_pages(invoice) <= Math.ceil(count / 25) + 1,
      `${count}`,
    );
  }
  // 1,000 items of ~500 characters: the estimate (no line breaks) stays
  // under the limit, the real document would not.
  const long = invoice_with_items(1000) as unknown as {
    items: { description: string }[];
  };
  for (const item of long.items) {
    item.description = "Consulting, analysis and documentation. ".repeat(12);
  }
  const parsed = InvoiceRequestSchema.parse(long);
  assert(estimate_min_pages(parsed) <= MAX_PAGES);
  const server = await start_test_server({
    env: { RENDER_TIMEOUT_MS: "120000" },
  });
  try {
    const { key } = await server.create_account({ plan: "pro" });
    const response = await server.generate(key, long);
    assertEquals(response.status, 400, "a 400, not a 500");
    const body = await response.json();
    assertMatch(body.error.message, new RegExp(`at most ${MAX_PAGES}`));
  } finally {
    await server.close();
  }
});

Deno.test("render pool: one account's flood does not queue another account's invoice behind it", async () => {
  const pool = new RenderPool({ size: 1, max_queue: 100, timeout_ms: 120_000 });
  try {
    const heavy = InvoiceRequestSchema.parse(invoice_with_items(300));
    const light = InvoiceRequestSchema.parse(invoice_with_items(1));
    await pool.render(light); // the worker is up
    const order: string[] = [];
    const flood = Array.from(
      { length: 4 },
      (_, index) =>
        pool.render(heavy, { account_id: "flooder" }).then(() =>
          order.push(`flood ${index + 1}`)
        ),
    );
    const other = pool.render(light, { account_id: "other" }).then(() =>
      order.push("other")
    );
    await Promise.all([...flood, other]);
    // The other account waits for the render in progress only.
    assertEquals(order, ["flood 1", "other", "flood 2", "flood 3", "flood 4"]);
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: under pressure an account's own waiting renders are bounded (429), others still get in", async () => {
  const pool = new RenderPool({ size: 1, max_queue: 16, timeout_ms: 120_000 });
  try {
    const heavy = InvoiceRequestSchema.parse(invoice_with_items(300));
    const results = await Promise.allSettled([
      ...Array.from(
        { length: 14 },
        () => pool.render(heavy, { account_id: "flooder" }),
      ),
      pool.render(heavy, { account_id: "other" }),
    ]);
    const refused = results.filter((r) => r.status === "rejected");
    assert(refused.length >= 3, "the flooder's extra renders are refused");
    for (const result of refused) {
      assertMatch(String((result as PromiseRejectedResult).reason), /waiting/);
    }
    assertEquals(
      results[14].status,
      "fulfilled",
      "the other account is served",
    );
  } finally {
    await pool.close();
  }
});

/**
 * Well past a 100 ms deadline on a fast machine too: 1,000 rows, each a
 * distinct Devanagari text to shape (1,000 Latin rows alone took under
 * 100 ms now and then).
 */
function heavy(n: number): Record<string, unknown> {
  const invoice = invoice_with_items(1000, { unicode: true });
  return {
    ...invoice,
    invoice_number: `HEAVY-${n}`,
    items: (invoice.items ?? []).map((item, index) => ({
      ...item,
      description: `${item.description} — परामर्श सेवाएँ क्रमांक ${index}`,
    })),
  };
}

/** POSTs `body` and returns the status, reading the answer. */
async function status_of(
  server: Awaited<ReturnType<typeof start_test_server>>,
  key: string,
  body: unknown,
): Promise<number> {
  const response = await server.generate(key, body);
  await response.arrayBuffer();
  return response.status;
}

Deno.test("a render that timed out is not free to repeat: the document is refused for an hour, the account after repeated timeouts", async () => {
  const server = await start_test_server({
    env: { RENDER_TIMEOUT_MS: "100", RENDER_WORKERS: "1" },
  });
  try {
    const { account_id, key } = await server.create_account({ plan: "team" });
    let ordinary = 0;
    // Each timeout replaces the worker; an ordinary invoice first warms the
    // new one, so that the heavy render's timeout is the document's own.
    const warm_up = async () => {
      ordinary++;
      const invoice = {
        ...invoice_with_items(1),
        invoice_number: `W-${ordinary}`,
      };
      assertEquals(await status_of(server, key, invoice), 200);
    };
    await warm_up();
    assertEquals(await status_of(server, key, heavy(1)), 503, "timed out");
    const again = await server.generate(key, heavy(1));
    assertEquals(again.status, 400);
    assertMatch((await again.json()).error.message, /refused until/);
    for (let n = 2; n <= TIMEOUTS_PER_HOUR; n++) {
      await warm_up();
      assertEquals(await status_of(server, key, heavy(n)), 503);
    }
    const paused = await server.generate(key, invoice_with_items(1));
    assertEquals(paused.status, 429);
    assertMatch((await paused.json()).error.message, /timed out/);
    const account = await (await server.admin(`/admin/accounts/${account_id}`))
      .json();
    assertEquals(account.usage.used, ordinary, "timeouts are never charged");
  } finally {
    await server.close();
  }
});

Deno.test("a cold worker's slowness pauses no one: after a timeout, another account's ordinary invoices render on the fresh worker", async () => {
  // A fresh worker needs about 0.3 s to load the renderer: more than the
  // whole deadline. That start-up is not counted, its first render gets
  // the cold allowance, and a cold timeout would pause nothing.
  const server = await start_test_server({
    env: { RENDER_TIMEOUT_MS: "100", RENDER_WORKERS: "1" },
  });
  try {
    const heavy_account = await server.create_account({ plan: "team" });
    const innocent = await server.create_account({ plan: "team" });
    assertEquals(
      await status_of(server, heavy_account.key, invoice_with_items(2)),
      200,
    );
    // A warm worker times out on a heavy document and is replaced.
    assertEquals(await status_of(server, heavy_account.key, heavy(1)), 503);
    // Another account's ordinary invoices, at once, on the cold worker.
    for (let n = 1; n <= TIMEOUTS_PER_HOUR + 1; n++) {
      const invoice = { ...invoice_with_items(10), invoice_number: `I-${n}` };
      assertEquals(
        await status_of(server, innocent.key, invoice),
        200,
        `ordinary invoice ${n}`,
      );
    }
    // The heavy account is not paused either: only its document is.
    assertEquals(
      await status_of(server, heavy_account.key, invoice_with_items(3)),
      200,
    );
    assertEquals(await status_of(server, heavy_account.key, heavy(1)), 400);
  } finally {
    await server.close();
  }
});

Deno.test("a logo of more than 4 megapixels is a fast 400 logo_too_large, read from its header before any pixel", async () => {
  const server = await start_test_server();
  try {
    const { account_id, key } = await server.create_account({ plan: "pro" });
    // 16 megapixels in 46 KB: within the file-size and side limits.
    const png = solid_png(4000, 4000);
    assert(png.length < 48_000, `${png.length} bytes`);
    const started = performance.now();
    const response = await server.generate(key, {
      ...invoice_with_items(3),
      logo: `data:image/png;base64,${base64(png)}`,
    });
    const elapsed = performance.now() - started;
    assertEquals(response.status, 400);
    const body = await response.json();
    assertEquals(body.error.code, "logo_too_large");
    assertMatch(body.error.message, /4000 × 4000 px .*at most 4 megapixels/);
    assertEquals(body.error.details[0].path, "logo");
    // Drawing it took 11-13 s; refusing it takes milliseconds.
    assert(elapsed < 1000, `answered in ${elapsed.toFixed(0)} ms`);
    const account = await (await server.admin(`/admin/accounts/${account_id}`))
      .json();
    assertEquals(account.usage.used, 0);
  } finally {
    await server.close();
  }
});

Deno.test("a 4-megapixel logo is scaled to its print size (300 dpi) before it is drawn", async () => {
  const server = await start_test_server({ env: { RENDER_WORKERS: "1" } });
  try {
    const { key } = await server.create_account({ plan: "pro" });
    // The worker is warm (fonts, code) before the logo's request.
    const warm = await server.generate(key, invoice_with_items(3));
    assertEquals(warm.status, 200);
    await warm.arrayBuffer();
    // 2000 × 2000 checks with transparent squares: 115 KB.
    const png = png_bytes(
      2000,
      2000,
      (x, y) =>
        ((x >> 4) + (y >> 4)) % 2 ? [37, 99, 235, 255] : [255, 255, 255, 0],
    );
    const response = await server.generate(key, {
      ...invoice_with_items(3),
      invoice_number: "LOGO-2000",
      logo: `data:image/png;base64,${base64(png)}`,
    });
    const pdf = new Uint8Array(await response.arrayBuffer());
    assertEquals(response.status, 200);
    // Square, in the 150 × 40 pt box: 40 × 40 pt, 167 × 167 px at 300 dpi.
    // Drawn at its full 2000 × 2000 px it took seconds; what decides that
    // is the drawn size, so the test asserts the size, not a time.
    const images = await pdf_images(pdf);
    assertEquals(
      images.map((image) => [image.type, image.width, image.height]),
      [["image", 167, 167], ["smask", 167, 167]],
    );
    assert(pdf.length < 60_000, `${pdf.length} bytes`);
  } finally {
    await server.close();
  }
});
