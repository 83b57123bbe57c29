/**
 * Render scheduling across accounts, through HTTP: one account's
 * worst-case documents do not hold every worker, so another account's
 * ordinary invoice barely waits; and the render budget is a setting.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { start_test_server } from "../helpers/test_server.ts";
import {
  invoice_with_items,
  mixed_script_invoice,
} from "../fixtures/invoices.ts";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

Deno.test("render scheduling: 4 worst-case documents in flight barely delay another account's ordinary invoice (2 workers)", async () => {
  const server = await start_test_server({
    env: { RENDER_WORKERS: "2", RENDER_TIMEOUT_MS: "60000" },
  });
  let flooding = true;
  const floods: Promise<void>[] = [];
  try {
    const heavy = await server.create_account({ plan: "team" });
    const light = await server.create_account({ plan: "team" });
    // Both workers warm.
    await Promise.all([1, 2].map(async (n) => {
      const response = await server.generate(light.key, {
        ...invoice_with_items(10),
        invoice_number: `WARM-${n}`,
      });
      assertEquals(response.status, 200);
      await response.arrayBuffer();
    }));
    // The worst the page estimate lets through: 1,000 lines of mixed-script
    // text, 92 real pages (1-3 s a render here).
    const worst = JSON.stringify(mixed_script_invoice(2));
    const heavy_statuses: number[] = [];
    for (let lane = 0; lane < 4; lane++) {
      floods.push((async () => {
        for (let n = 0; flooding; n++) {
          const response = await fetch(`${server.url}/generate`, {
            method: "POST",
            headers: {
              Authorization: `Bearer ${heavy.key}`,
              "Content-Type": "application/json",
            },
            body: worst.replace("BENCH-1000", `WORST-${lane}-${n}`),
          });
          await response.arrayBuffer();
          heavy_statuses.push(response.status);
          if (response.status !== 200) await sleep(200);
        }
      })());
    }
    await sleep(1500); // the heavy renders are running and queued
    const latencies: number[] = [];
    for (let n = 0; n < 24; n++) {
      const started = performance.now();
      const response = await server.generate(light.key, {
        ...invoice_with_items(10),
        invoice_number: `LIGHT-${n}`,
      });
      await response.arrayBuffer();
      const elapsed = performance.now() - started;
      assertEquals(response.status, 200);
      latencies.push(elapsed);
      await sleep(Math.max(0, 500 - elapsed));
    }
    flooding = false;
    await Promise.all(floods);
    assert(
      heavy_statuses.filter((status) => status === 200).length >= 2,
      `the heavy account rendered too: ${heavy_statuses}`,
    );
    latencies.sort((a, b) => a - b);
    const p50 = latencies[Math.floor(latencies.length / 2)];
    const p95 = latencies[Math.ceil(latencies.length * 0.95) - 1];
    console.log(
      `ordinary invoice beside 4 worst-case renders: p50 ${
        p50.toFixed(0)
      } ms, p95 ${p95.toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms`,
    );
    // Without the scheduling it waited for a worst-case render: p50 1.7-4 s.
    assert(p95 < 250, `p95 ${p95.toFixed(0)} ms`);
  } finally {
    flooding = false;
    await Promise.all(floods);
    await server.close();
  }
});

Deno.test("render budget: RENDER_SECONDS_PER_MINUTE spent → 429 rate_limited with Retry-After, the quota not charged", async () => {
  const server = await start_test_server({
    env: { RENDER_WORKERS: "1", RENDER_SECONDS_PER_MINUTE: "1" },
  });
  try {
    const { account_id, key } = await server.create_account({ plan: "team" });
    // Worst-case documents (a fraction of a second to seconds each, by the
    // machine) until the render-second is spent: at most ten. Each has texts
    // of its own, so no layout cache shortens the next.
    let rendered = 0;
    let second: Response | undefined;
    while (rendered < 10) {
      const invoice = mixed_script_invoice(2);
      const worst = await server.generate(key, {
        ...invoice,
        invoice_number: `WORST-${rendered}`,
        items: (invoice.items ?? []).map((item) => ({
          ...item,
          description: `${rendered}: ${item.description}`,
        })),
      });
      if (worst.status === 429) {
        second = worst;
        break;
      }
      assertEquals(worst.status, 200);
      await worst.arrayBuffer();
      rendered += 1;
    }
    assert(rendered >= 1, "the first document renders");
    second ??= await server.generate(key, invoice_with_items(1));
    assertEquals(second.status, 429);
    const retry_after = Number(second.headers.get("Retry-After"));
    assert(retry_after >= 1 && retry_after <= 60, `Retry-After ${retry_after}`);
    const body = await second.json();
    assertEquals(body.error.code, "rate_limited");
    assertMatch(body.error.message, /at most 1 render-seconds a minute/);
    const account = await (await server.admin(`/admin/accounts/${account_id}`))
      .json();
    assertEquals(account.usage.used, rendered);
  } finally {
    await server.close();
  }
});
