/**
 * The database work of `POST /generate`, as /metrics shows it: one statement
 * for key + rate limit, one for the quota, each timed.
 */
import { assertEquals, assertMatch } from "./assert.ts";
import { start_test_server } from "./helpers/test_server.ts";
import { full_invoice } from "./fixtures/invoices.ts";

function statement_counts(metrics: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (
    const match of metrics.matchAll(
      /^db_statement_duration_seconds_count\{statement="([^"]+)"\} (\d+)$/gm,
    )
  ) {
    counts[match[1]] = Number(match[2]);
  }
  return counts;
}

Deno.test("generate: one statement for the key, one for the quota, timed in /metrics", async () => {
  const server = await start_test_server();
  try {
    const { key } = await server.create_account({ plan: "pro" });
    const before = statement_counts(
      await (await fetch(`${server.url}/metrics`)).text(),
    );
    for (let n = 1; n <= 3; n++) {
      const response = await server.generate(key, {
        ...full_invoice(),
        invoice_number: `DB-${n}`,
      });
      assertEquals(response.status, 200);
      await response.arrayBuffer();
    }
    // A bad body: the key statement only (validation comes before the quota).
    const invalid = await server.generate(key, { items: [] });
    assertEquals(invalid.status, 400);
    await invalid.arrayBuffer();
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const after = statement_counts(metrics);
    const delta = (name: string) => (after[name] ?? 0) - (before[name] ?? 0);
    assertEquals(delta("ink_authenticate_api_key"), 4);
    assertEquals(delta("ink_reserve_generation"), 3);
    assertMatch(
      metrics,
      /^db_statement_duration_seconds_sum\{statement="ink_reserve_generation"\} [0-9.e-]+$/m,
    );
  } finally {
    await server.close();
  }
});
