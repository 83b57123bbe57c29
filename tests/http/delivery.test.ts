/**
 * The body of a generated document reports its delivery: `delivered` on the
 * pull after its last chunk (never before), `undelivered` when it is
 * cancelled, exactly one of them, once; the body ends without waiting for
 * the settlement, which usage reads wait for instead; over a real
 * connection a client that left before the answer makes it `undelivered`;
 * a client sending one invoice after the other on one key is not held by
 * the window in which settlements gather.
 */
import { assertEquals, assertLess } from "../assert.ts";
import {
  delivered_bytes,
  DELIVERY_CHUNK_BYTES,
  delivery_of,
} from "../../server/generate/delivery.ts";
import { PendingSettlements } from "../../server/generate/pending_settlements.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { full_invoice } from "../fixtures/invoices.ts";

function recorder() {
  const events: string[] = [];
  return {
    events,
    delivery: {
      delivered: () => {
        events.push("delivered");
        return Promise.resolve();
      },
      undelivered: () => {
        events.push("undelivered");
        return Promise.resolve();
      },
    },
  };
}

Deno.test("delivered_bytes: at least two chunks, delivered only after the last one was taken", async () => {
  for (const size of [1, 2, 5_000, 3 * DELIVERY_CHUNK_BYTES + 7]) {
    const bytes = new Uint8Array(size).map((_, i) => i % 251);
    const { events, delivery } = recorder();
    const reader = delivered_bytes(bytes, delivery).getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Not yet: the connection has not asked for more.
      assertEquals(events, []);
      assertEquals(value.length <= DELIVERY_CHUNK_BYTES, true);
      chunks.push(value);
    }
    assertEquals(events, ["delivered"]);
    assertEquals(chunks.length >= Math.min(2, size), true);
    const joined = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let offset = 0;
    for (const chunk of chunks) {
      joined.set(chunk, offset);
      offset += chunk.length;
    }
    assertEquals(joined, bytes);
    await reader.cancel();
    assertEquals(events, ["delivered"]);
  }
});

Deno.test("delivered_bytes: the body ends while its settlement is still on its way; usage reads wait for it", async () => {
  const settlements = new PendingSettlements();
  const charge = Promise.withResolvers<void>();
  const events: string[] = [];
  const delivery = settlements.tracked("acct_1", {
    delivered: async () => {
      events.push("settling");
      await charge.promise;
      events.push("charged");
    },
    undelivered: () => Promise.resolve(),
  });
  const reader = delivered_bytes(new Uint8Array(5_000), delivery).getReader();
  let ended = false;
  while (!ended) ended = (await reader.read()).done;
  // The client holds the whole answer; the charge is not recorded yet.
  assertEquals(events, ["settling"]);
  assertEquals(settlements.accounts_pending, 1);
  let usage_read = false;
  const read = settlements.settled("acct_1").then(() => usage_read = true);
  // Another account's reads do not wait.
  await settlements.settled("acct_2");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assertEquals(usage_read, false);
  charge.resolve();
  await read;
  assertEquals(events, ["settling", "charged"]);
  assertEquals(settlements.accounts_pending, 0);
});

Deno.test("PendingSettlements: a failed settlement ends the wait too", async () => {
  const settlements = new PendingSettlements();
  const delivery = settlements.tracked("acct_1", {
    delivered: () => Promise.reject(new Error("database gone")),
    undelivered: () => Promise.resolve(),
  });
  await delivery.delivered().catch(() => {});
  await settlements.settled("acct_1");
  assertEquals(settlements.accounts_pending, 0);
});

Deno.test("delivery_of: delivered runs its tasks in order a timer later, undelivered at once", async () => {
  const events: string[] = [];
  const task = (name: string) => () => {
    events.push(name);
    return Promise.resolve();
  };
  const delivery = delivery_of({
    delivered: [task("charge"), task("key done")],
    undelivered: [task("release")],
  });
  const delivered = delivery.delivered();
  // Turns of the event loop are not enough: the server writes out first.
  for (let turn = 0; turn < 5; turn++) await Promise.resolve();
  assertEquals(events, []);
  await delivered;
  assertEquals(events, ["charge", "key done"]);
  await delivery.undelivered();
  assertEquals(events, ["charge", "key done", "release"]);
});

Deno.test("delivered_bytes: a cancelled body is undelivered, once", async () => {
  const { events, delivery } = recorder();
  const reader = delivered_bytes(new Uint8Array(40_000), delivery)
    .getReader();
  await reader.read();
  await reader.cancel();
  await reader.cancel();
  assertEquals(events, ["undelivered"]);
});

Deno.test("delivered_bytes over a connection: a client that left before the answer makes it undelivered", async () => {
  const events: string[] = [];
  const answered = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async () => {
      // The answer is ready only after the client is gone.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { delivery } = {
        delivery: {
          delivered: () => {
            events.push("delivered");
            answered.resolve();
            return Promise.resolve();
          },
          undelivered: () => {
            events.push("undelivered");
            answered.resolve();
            return Promise.resolve();
          },
        },
      };
      return new Response(delivered_bytes(new Uint8Array(5_000), delivery));
    },
  );
  try {
    const connection = await Deno.connect({
      hostname: "127.0.0.1",
      port: server.addr.port,
    });
    await connection.write(
      new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
    );
    connection.close();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      answered.promise,
      new Promise((resolve) => timer = setTimeout(resolve, 5_000)),
    ]);
    clearTimeout(timer);
    assertEquals(events, ["undelivered"]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("one key, invoices one after the other: each request's wait for the previous settlement does not wait out the settlement window", async () => {
  // A window far longer than the test's bound: a request held by it fails.
  const window_ms = 60_000;
  const server = await start_test_server({ settle_window_ms: window_ms });
  try {
    const { account_id, key } = await server.create_account({ plan: "pro" });
    const started = performance.now();
    for (let n = 1; n <= 3; n++) {
      const response = await server.generate(key, {
        ...full_invoice(),
        invoice_number: `SEQ-${n}`,
      });
      assertEquals(response.status, 200);
      await response.arrayBuffer();
    }
    const account = await server.admin(`/admin/accounts/${account_id}`);
    assertEquals((await account.json()).usage.used, 3);
    assertLess(performance.now() - started, window_ms / 2);
  } finally {
    await server.close();
  }
});
