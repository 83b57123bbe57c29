import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { RenderPool, RenderTimeoutError } from "../../server/render_pool.ts";
import { ApiError, InvoiceRequestSchema } from "../../contract/mod.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";
import { full_invoice, invoice_with_items } from "../fixtures/invoices.ts";
import { render_fixture_set } from "../fixtures/render_fixture_set.ts";

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

Deno.test("render pool: every document of the render fixture set, sent as JSON text, renders to the bytes rendered in-process", async () => {
  const pool = new RenderPool({ size: 2, max_queue: 10, timeout_ms: 60_000 });
  try {
    const fixtures = render_fixture_set();
    assert(fixtures.length > 50);
    for (const fixture of fixtures) {
      const bytes = await pool.render(fixture.invoice(), fixture.options);
      assertEquals(bytes, fixture.render(), fixture.name);
    }
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
    await pool.render(small); // warm: the deadline below is the render's own
    const error = await assertRejects(
      () => pool.render(large, { timeout_ms: 1 }),
      ApiError,
    );
    assertEquals((error as ApiError).code, "unavailable");
    assertMatch((error as ApiError).message, /took longer than 1 ms/);
    assert(error instanceof RenderTimeoutError && error.warm);
    const bytes = await pool.render(small);
    assertEquals(new TextDecoder().decode(bytes.subarray(0, 5)), "%PDF-");
    assertEquals(pool.queue_depth, 0);
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: a worker's start-up is not a render's time, and its first render gets the cold allowance", async () => {
  // Loading the renderer takes a fresh worker about 0.3 s, more than the
  // whole deadline here; an ordinary invoice still renders.
  const pool = new RenderPool({ size: 1, max_queue: 10, timeout_ms: 100 });
  try {
    const times: number[] = [];
    const bytes = await pool.render(small, {
      on_render_time: (seconds) => times.push(seconds),
    });
    assertEquals(new TextDecoder().decode(bytes.subarray(0, 5)), "%PDF-");
    assertEquals(times.length, 1);
    assert(times[0] < 5, `render time ${times[0]} s`);
  } finally {
    await pool.close();
  }
  // Without the allowance a cold worker's timeout says so: it is not taken
  // for the document's fault.
  const strict = new RenderPool({
    size: 1,
    max_queue: 10,
    timeout_ms: 1,
    cold_allowance_ms: 0,
  });
  try {
    const error = await assertRejects(() => strict.render(large), ApiError);
    assert(error instanceof RenderTimeoutError && !error.warm);
  } finally {
    await strict.close();
  }
});

Deno.test("render pool: expensive renders leave a worker free for ordinary ones", async () => {
  const pool = new RenderPool({ size: 2, max_queue: 20, timeout_ms: 60_000 });
  try {
    await Promise.all([pool.render(small), pool.render(small)]); // warm
    const order: string[] = [];
    const times: number[] = [];
    const heavy = Array.from(
      { length: 3 },
      (_, index) =>
        pool.render(large, {
          account_id: "heavy",
          expensive: true,
          on_render_time: (seconds) => times.push(seconds),
        }).then(() => order.push(`heavy ${index + 1}`)),
    );
    // Awaited below; a failed assertion closes the pool first.
    for (const render of heavy) render.catch(() => {});
    // One expensive render runs, two wait: the second worker stays free.
    assertEquals(pool.queue_depth, 2);
    assertEquals(pool.idle_workers, 1);
    const started = performance.now();
    await pool.render(small, { account_id: "other" });
    const waited = performance.now() - started;
    order.push("other");
    await Promise.all(heavy);
    assertEquals(order, ["other", "heavy 1", "heavy 2", "heavy 3"]);
    assertEquals(times.length, 3);
    // The ordinary invoice did not wait for the 1,000-item render.
    assert(waited < Math.min(...times) * 1000, `${waited} ms`);
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: one account alone uses every worker for ordinary invoices", async () => {
  const pool = new RenderPool({ size: 2, max_queue: 20, timeout_ms: 60_000 });
  try {
    const renders = Array.from(
      { length: 4 },
      () => pool.render(small, { account_id: "alone" }),
    );
    assertEquals(pool.idle_workers, 0);
    assertEquals(pool.queue_depth, 2);
    await Promise.all(renders);
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: a worker that cannot start is started again with back-off, renders get 503 meanwhile, and none is lost", async () => {
  const dir = await Deno.makeTempDir({ prefix: "render-pool-start-" });
  const fail_while = `${dir}/failing`;
  const starts = `${dir}/starts`;
  await Deno.writeTextFile(fail_while, "");
  const worker_url = new URL(
    "../fixtures/failing_render_worker.ts",
    import.meta.url,
  );
  worker_url.searchParams.set("fail_while", fail_while);
  worker_url.searchParams.set("starts", starts);
  const started_count = async () =>
    (await Deno.readTextFile(starts).catch(() => "")).split("\n").length - 1;
  const pool = new RenderPool({
    size: 2,
    max_queue: 10,
    timeout_ms: 60_000,
    worker_url,
  });
  try {
    // The render waits for the starting workers; when both have failed, it
    // is answered 503 (not a 500, not a hang).
    const first = await assertRejects(() => pool.render(small), ApiError);
    assertEquals((first as ApiError).code, "unavailable");
    assert((first as ApiError).headers["Retry-After"]);
    // Back-off: 100 ms doubling per slot, not a start after every failure.
    const before = await started_count();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const during = (await started_count()) - before;
    assert(during <= 16, `${during} starts in 2 s`);
    const refused = await assertRejects(() => pool.render(small), ApiError);
    assertEquals((refused as ApiError).code, "unavailable");
    // The cause goes away: a slot's next start succeeds, renders work.
    await Deno.remove(fail_while);
    let bytes: Uint8Array | undefined;
    const until = performance.now() + 20_000;
    while (bytes === undefined && performance.now() < until) {
      bytes = await pool.render(small).catch(async (error) => {
        assert(error instanceof ApiError, String(error));
        await new Promise((resolve) => setTimeout(resolve, 100));
        return undefined;
      });
    }
    assert(bytes !== undefined, "renders again once workers start");
    assertEquals(new TextDecoder().decode(bytes.subarray(0, 5)), "%PDF-");
    console.log(`${during} starts in 2 s of failing starts (2 slots)`);
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "render pool: out of file descriptors, no worker is started (Deno would abort), renders get 503, and the process renders once they are free",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const script = new URL(
      "../fixtures/render_pool_without_descriptors.ts",
      import.meta.url,
    ).pathname;
    // With 3 descriptors free, starting a worker aborts Deno 2.9 outright.
    const output = await new Deno.Command("sh", {
      args: [
        "-c",
        'ulimit -n 256 && exec "$0" run -A "$1" 3',
        Deno.execPath(),
        script,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assert(output.success, `the process died (${output.code}):\n${stderr}`);
    assertEquals(JSON.parse(stdout.trim().split("\n").at(-1)!), {
      starved: "503 unavailable",
      recovered: "%PDF-",
    });
  },
});
