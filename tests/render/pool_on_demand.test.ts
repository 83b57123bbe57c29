/**
 * Render workers beyond the minimum start when renders wait and stop after
 * the idle time: an idle service holds one worker's memory, a busy one uses
 * them all, and every render still comes back right.
 */
import { assertEquals } from "../assert.ts";
import { RenderPool } from "../../server/render_pool.ts";
import { InvoiceRequestSchema } from "../../contract/mod.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";
import { full_invoice, invoice_with_items } from "../fixtures/invoices.ts";
import { until } from "../helpers/server_metrics.ts";

const small = InvoiceRequestSchema.parse(full_invoice());

Deno.test("render pool: one worker while idle; another starts when renders wait and stops after the idle time", async () => {
  const pool = new RenderPool({
    size: 2,
    min_workers: 1,
    idle_stop_ms: 300,
    max_queue: 20,
    timeout_ms: 60_000,
  });
  try {
    const expected = render_invoice_pdf(small);
    assertEquals(pool.running_workers, 1);
    // One render at a time never waits: no second worker.
    for (let n = 0; n < 3; n++) {
      assertEquals(await pool.render(small), expected);
    }
    assertEquals(pool.running_workers, 1);
    for (let round = 0; round < 2; round++) {
      const renders = Array.from({ length: 8 }, () => pool.render(small));
      // The renders that wait start the second worker at once.
      assertEquals(pool.running_workers, 2);
      for (const bytes of await Promise.all(renders)) {
        assertEquals(bytes, expected);
      }
      await until(
        () => Promise.resolve(pool.running_workers === 1),
        "the second worker stops once idle",
      );
      assertEquals(await pool.render(small), expected);
    }
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: without a minimum every worker starts at once and stays", async () => {
  const pool = new RenderPool({
    size: 2,
    idle_stop_ms: 100,
    max_queue: 20,
    timeout_ms: 60_000,
  });
  try {
    assertEquals(pool.running_workers, 2);
    await Promise.all(Array.from({ length: 4 }, () => pool.render(small)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assertEquals(pool.running_workers, 2);
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: a render does not wait for a worker still starting while a running one frees up first", async () => {
  const dir = await Deno.makeTempDir({ prefix: "render-pool-held-" });
  const hold = `${dir}/hold`;
  const worker_url = new URL(
    "../fixtures/held_render_worker.ts",
    import.meta.url,
  );
  worker_url.searchParams.set("hold_while", hold);
  const pool = new RenderPool({
    size: 2,
    min_workers: 1,
    idle_stop_ms: 200,
    max_queue: 20,
    timeout_ms: 60_000,
    worker_url,
  });
  try {
    const expected = render_invoice_pdf(small);
    assertEquals(await pool.render(small), expected);
    // From now on a worker's start is held until the file goes.
    await Deno.writeTextFile(hold, "");
    const large = InvoiceRequestSchema.parse(invoice_with_items(300));
    const first = pool.render(large);
    const second = pool.render(small);
    // The second render waits: a second worker starts, and is held. A
    // third render comes while it starts.
    assertEquals(pool.running_workers, 2);
    const third = pool.render(small);
    // The running worker takes it after the first, while the other is
    // still starting.
    await first;
    const outcome = await Promise.race([
      second.then((bytes) => bytes),
      new Promise<"still waiting">((resolve) =>
        setTimeout(() => resolve("still waiting"), 15_000)
      ),
    ]);
    assertEquals(outcome, expected);
    assertEquals(await third, expected);
    await Deno.remove(hold);
    await until(
      () => Promise.resolve(pool.running_workers === 1),
      "the late worker stops once idle",
    );
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});
