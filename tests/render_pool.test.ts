import { assert, assertEquals, assertMatch, assertRejects } from "./assert.ts";
import { RenderPool } from "../server/render_pool.ts";
import { ApiError, InvoiceRequestSchema } from "../contract/mod.ts";
import { render_invoice_pdf } from "../server/pdf/mod.ts";
import { full_invoice, invoice_with_items } from "./fixtures/invoices.ts";

const small = InvoiceRequestSchema.parse(full_invoice());
const large = InvoiceRequestSchema.parse(
  invoice_with_items(1000, { unicode: true }),
);

Deno.test("render pool: same bytes as in-process, off the request thread", async () => {
  const pool = new RenderPool({ size: 2, max_queue: 10, timeout_ms: 60_000 });
  try {
    const bytes = await pool.render(small);
    assertEquals(bytes, render_invoice_pdf(small));
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: a 1000-item invoice does not stall small ones", async () => {
  const pool = new RenderPool({ size: 2, max_queue: 10, timeout_ms: 60_000 });
  try {
    // Warm both workers (two at once go to the two slots): a cold worker
    // loading its fonts could otherwise lose to the large render.
    await Promise.all([pool.render(small), pool.render(small)]);
    const order: string[] = [];
    const big = pool.render(large).then(() => order.push("large"));
    const little = pool.render(small).then(() => order.push("small"));
    await Promise.all([big, little]);
    assertEquals(order, ["small", "large"]);
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: a full queue answers 503 at once instead of growing", async () => {
  const pool = new RenderPool({ size: 1, max_queue: 2, timeout_ms: 60_000 });
  try {
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => pool.render(large)),
    );
    const rejected = results.filter((r) =>
      r.status === "rejected"
    ) as PromiseRejectedResult[];
    // One renders, two wait, the other five are refused.
    assertEquals(rejected.length, 5);
    for (const { reason } of rejected) {
      assert(reason instanceof ApiError);
      assertEquals(reason.code, "unavailable");
      assertEquals(reason.headers["Retry-After"], "1");
    }
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: a render past its deadline is cancelled and the worker replaced", async () => {
  const pool = new RenderPool({ size: 1, max_queue: 10, timeout_ms: 60_000 });
  try {
    const error = await assertRejects(
      () => pool.render(large, { timeout_ms: 1 }),
      ApiError,
    );
    assertEquals((error as ApiError).code, "unavailable");
    assertMatch((error as ApiError).message, /took longer than 1 ms/);
    const bytes = await pool.render(small);
    assertEquals(new TextDecoder().decode(bytes.subarray(0, 5)), "%PDF-");
    assertEquals(pool.queue_depth, 0);
  } finally {
    await pool.close();
  }
});
