/**
 * Back-pressure by bytes: requests in flight hold a share of one
 * memory budget (`REQUEST_MEMORY_MB`) from their declared body length on;
 * past it the service answers 503 with `Retry-After` before reading the
 * body, keeps serving small requests, never charges a refused one, and
 * gives every byte back when requests end.
 */
import { metric, until } from "../helpers/server_metrics.ts";
import { assert, assertEquals } from "../assert.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import {
  BODY_EXPANSION,
  MemoryBudget,
  REQUEST_OVERHEAD_BYTES,
} from "../../server/memory_budget.ts";
import { ApiError } from "../../contract/mod.ts";

const MIB = 2 ** 20;

/** Opens a connection and sends a request head plus the first part of its body. */
async function start_upload(
  server: TestServer,
  options: { key: string; length: number; first: string },
): Promise<Deno.TcpConn> {
  const url = new URL(server.url);
  const conn = await Deno.connect({
    hostname: url.hostname,
    port: Number(url.port),
  });
  await conn.write(
    new TextEncoder().encode(
      `POST /generate HTTP/1.1\r\nHost: ${url.host}\r\n` +
        `Authorization: Bearer ${options.key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${options.length}\r\n\r\n` +
        options.first,
    ),
  );
  return conn;
}

/** Reads one answer's head (status line and headers) from a raw connection. */
async function read_head(
  conn: Deno.TcpConn,
): Promise<{ status: number; head: string }> {
  const buffer = new Uint8Array(64 * 1024);
  let text = "";
  while (!text.includes("\r\n\r\n")) {
    const read = await conn.read(buffer);
    if (read === null) break;
    text += new TextDecoder().decode(buffer.subarray(0, read));
  }
  return { status: Number(text.split(" ")[1]), head: text };
}

Deno.test("memory budget: holds grow with the body and are given back once", () => {
  const budget = new MemoryBudget(4 * MIB);
  const lease = budget.lease();
  lease.hold_body(1000);
  assertEquals(budget.in_use, REQUEST_OVERHEAD_BYTES + BODY_EXPANSION * 1000);
  lease.hold_body(500); // less than held: nothing more
  assertEquals(budget.in_use, REQUEST_OVERHEAD_BYTES + BODY_EXPANSION * 1000);
  const other = budget.lease();
  let refused: unknown;
  try {
    other.hold_body(MIB / 2); // 64 KiB + 4 MiB: more than is left
  } catch (error) {
    refused = error;
  }
  assert(refused instanceof ApiError);
  assertEquals(refused.status, 503);
  assertEquals(refused.headers["Retry-After"], "1");
  assertEquals(other.held, 0);
  assertEquals(budget.refused, 1);
  lease.hold_existing(10 * MIB); // a rendered document exists already
  assert(budget.in_use > budget.limit);
  lease.release();
  lease.release();
  assertEquals(budget.in_use, 0);
  assertEquals(
    budget.peak,
    lease.held + 10 * MIB + REQUEST_OVERHEAD_BYTES +
      BODY_EXPANSION * 1000,
  );
});

Deno.test({
  name:
    "memory budget: a body that does not fit is refused with 503 before it is read, and small requests still pass",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await start_test_server({
      env: { REQUEST_MEMORY_MB: "8", RENDER_WORKERS: "1" },
    });
    const connections: Deno.TcpConn[] = [];
    try {
      const { key, account_id } = await server.create_account({
        plan: "team",
      });
      // 900 KB declared: 64 KiB + 8 × 900 KB ≈ 6.9 MiB of the 8 MiB.
      const length = 900_000;
      const held = await start_upload(server, {
        key,
        length,
        first: '{"invoice_number": "',
      });
      connections.push(held);
      await until(
        async () => (await metric(server, "request_memory_bytes")) > 6 * MIB,
        "the first upload to be held",
      );
      const started = performance.now();
      const second = await start_upload(server, {
        key,
        length,
        first: "{",
      });
      connections.push(second);
      const answer = await read_head(second);
      assertEquals(answer.status, 503);
      assert(/\r\nretry-after: 1\r\n/i.test(answer.head), answer.head);
      assert(
        answer.head.includes('"code":"unavailable"'),
        answer.head,
      );
      // Refused at once, not after waiting for 900 KB that never come.
      assert(performance.now() - started < 5_000);
      assertEquals(await metric(server, "request_memory_refusals_total"), 1);

      // An ordinary invoice fits in what is left and is served.
      const small = await server.generate(key, invoice_with_items(10));
      assertEquals(small.status, 200);
      assertEquals(
        (await small.bytes()).subarray(0, 4).toString(),
        "37,80,68,70",
      );

      // The held upload's client gives up: its bytes come back.
      held.close();
      await until(
        async () => (await metric(server, "request_memory_bytes")) === 0,
        "the budget to be free again",
      );
      assert((await metric(server, "request_memory_peak_bytes")) <= 8 * MIB);
      const usage = await (await server.admin(`/admin/accounts/${account_id}`))
        .json();
      assertEquals(usage.usage.used, 1);
    } finally {
      for (const conn of connections) {
        try {
          conn.close();
        } catch {
          // Closed already.
        }
      }
      await server.close();
    }
  },
});

Deno.test({
  name:
    "memory budget: a flood of large invoices stays within the budget, is answered 200 or 503 (never 500), and only PDFs are charged",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await start_test_server({
      env: { REQUEST_MEMORY_MB: "8" },
    });
    try {
      const { key, account_id } = await server.create_account({
        plan: "team",
      });
      // About 95 KB each: 64 KiB + 8 × 95 KB ≈ 0.8 MiB held per request, so
      // about 10 fit at once; 40 arrive together.
      const bodies = Array.from({ length: 40 }, (_, index) =>
        JSON.stringify({
          ...invoice_with_items(700, { unicode: true }),
          invoice_number: `FLOOD-${index}`,
        }));
      assert(new TextEncoder().encode(bodies[0]).length > 90_000);
      const statuses = await Promise.all(bodies.map(async (body) => {
        const response = await server.generate(key, body);
        const bytes = await response.bytes();
        if (response.status === 503) {
          assertEquals(response.headers.get("retry-after"), "1");
          const error = JSON.parse(new TextDecoder().decode(bytes)).error;
          assertEquals(error.code, "unavailable");
          assert(/request bytes/.test(error.message), error.message);
        } else {
          assertEquals(response.status, 200, new TextDecoder().decode(bytes));
        }
        return response.status;
      }));
      const ok = statuses.filter((status) => status === 200).length;
      const refused = statuses.filter((status) => status === 503).length;
      assertEquals(ok + refused, bodies.length);
      assert(refused > 0, "the budget never refused anything");
      assert(ok > 0, "nothing was served");
      // Documents already rendered are held past the limit by at most
      // their own bytes; bodies never take it past the limit.
      const peak = await metric(server, "request_memory_peak_bytes");
      assert(peak <= 8 * MIB + 2 * MIB, `peak ${peak}`);
      assertEquals(await metric(server, "request_memory_bytes"), 0);
      // Still serving, and the books match: refused requests cost nothing.
      const after = await server.generate(key, invoice_with_items(10));
      assertEquals(after.status, 200);
      // Read whole: a document is charged once it was delivered.
      await after.arrayBuffer();
      const account =
        await (await server.admin(`/admin/accounts/${account_id}`))
          .json();
      assertEquals(account.usage.used, ok + 1);
    } finally {
      await server.close();
    }
  },
});
