/**
 * The database stopped mid-load and started again (a private cluster, never
 * the shared server): quick 503s during the outage, recovery by itself, and
 * no usage beyond the PDFs actually returned.
 */
import { assert, assertEquals } from "../assert.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { open_database } from "../../db/mod.ts";
import {
  start_throwaway_postgres,
  throwaway_postgres_available,
} from "../helpers/throwaway_postgres.ts";
import { full_invoice } from "../fixtures/invoices.ts";

Deno.test({
  name:
    "database stopped mid-load: 503 unavailable, recovery, no quota for failed requests",
  ignore: !throwaway_postgres_available(),
  async fn() {
    const postgres = await start_throwaway_postgres();
    const database = await open_database({ database_url: postgres.url });
    const server = await start_test_server({
      env: { RATE_LIMIT_PER_MINUTE: "1000000" },
      test_database: {
        database,
        database_url: postgres.url,
        close: () => database.close(),
      },
    });
    try {
      const { key, account_id } = await server.create_account({ plan: "team" });
      let sequence = 0;
      let stop_load = false;
      const statuses: Record<number, number> = {};
      const unavailable_ms: number[] = [];
      const client = async (): Promise<void> => {
        while (!stop_load) {
          const started = performance.now();
          const response = await server.generate(key, {
            ...full_invoice(),
            invoice_number: `O-${sequence++}`,
          });
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
          if (response.status === 503) {
            unavailable_ms.push(performance.now() - started);
            assert(response.headers.get("retry-after"));
            assertEquals((await response.json()).error.code, "unavailable");
            await new Promise((resolve) => setTimeout(resolve, 50));
          } else {
            await response.arrayBuffer();
          }
        }
      };
      const clients = Array.from({ length: 8 }, client);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await postgres.stop("fast");
      // Down for 1.5 s, and on until the service has answered a 503 (at
      // most 15 s): a request between two statements may not meet a short
      // outage at all.
      const down_at_most = Date.now() + 15_000;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      while ((statuses[503] ?? 0) === 0 && Date.now() < down_at_most) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await postgres.start();
      const restarted = performance.now();
      // Load continues until the service answers 200 again by itself.
      const recovered_by = Date.now() + 30_000;
      const ok_before = statuses[200] ?? 0;
      while (
        (statuses[200] ?? 0) <= ok_before + 10 && Date.now() < recovered_by
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const recovery_ms = performance.now() - restarted;
      stop_load = true;
      await Promise.all(clients);
      assert(
        (statuses[503] ?? 0) > 0,
        `expected 503s during the outage: ${JSON.stringify(statuses)}`,
      );
      assert(
        (statuses[200] ?? 0) > ok_before + 10,
        `expected recovery: ${JSON.stringify(statuses)}`,
      );
      for (const status of Object.keys(statuses).map(Number)) {
        assert(
          [200, 503].includes(status),
          `unexpected status ${status}: ${JSON.stringify(statuses)}`,
        );
      }
      const sorted = unavailable_ms.sort((a, b) => a - b);
      assert(
        sorted[Math.floor(sorted.length / 2)] < 10_000,
        `503s must come quickly: median ${
          sorted[Math.floor(sorted.length / 2)]
        } ms`,
      );
      console.log(
        "outage statuses:",
        statuses,
        "median 503 ms:",
        sorted[Math.floor(sorted.length / 2)],
        "recovery ms:",
        recovery_ms,
      );
      // Charged what was delivered: never a document that was not. A
      // document whose settlement met the outage goes uncharged: here a
      // client's request in flight as the database went or as it came back.
      const account =
        await (await server.admin(`/admin/accounts/${account_id}`)).json();
      const used = account.usage.used as number;
      const returned = statuses[200] ?? 0;
      assert(used <= returned, `${used} charged for ${returned} PDFs returned`);
      assert(
        returned - used <= 16,
        `${used} charged for ${returned} PDFs returned`,
      );
    } finally {
      await server.close();
      await database.close();
      await postgres.destroy();
    }
  },
});
