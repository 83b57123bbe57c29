/**
 * Requests without checked credentials (no key, no session) draw on a small
 * part of `REQUEST_MEMORY_MB` only, hold bytes as they arrive rather than
 * for a declared length, and may send small JSON bodies only; a key is
 * checked before its request's body is read. So anonymous clients cannot
 * starve keyed `/generate` calls.
 */
import { metric, until } from "../helpers/server_metrics.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import {
  start_test_server,
  TEST_ADMIN_TOKEN,
  type TestServer,
} from "../helpers/test_server.ts";
import { open_upload, type RawConnection } from "../helpers/raw_http.ts";
import {
  BODY_EXPANSION,
  MemoryBudget,
  REQUEST_OVERHEAD_BYTES,
} from "../../server/memory_budget.ts";
import { ApiError } from "../../contract/mod.ts";

const MIB = 2 ** 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Anonymous sign-ins that announce large bodies and send one space every
 * `interval_ms`; each reconnects when it is answered or cut, as an attacker
 * would, until stopped.
 */
function start_trickle_attack(
  server: TestServer,
  options: { lengths: number[]; interval_ms: number },
): { statuses: number[]; stop(): Promise<void> } {
  let stopped = false;
  const statuses: number[] = [];
  const open = new Set<RawConnection>();
  const attacker = async (length: number) => {
    while (!stopped) {
      const request = await open_upload(server.url, {
        path: "/trpc/auth.sign_in",
        length,
        first: " ",
      });
      open.add(request);
      let answered = false;
      request.answer(60_000).then((answer) => {
        answered = true;
        if (!stopped) statuses.push(answer?.status ?? 0);
      }, () => {
        answered = true;
      });
      while (!stopped && !answered) {
        await sleep(options.interval_ms);
        if (!answered && !(await request.send(" "))) break;
      }
      request.close();
      open.delete(request);
      if (!stopped) await sleep(options.interval_ms);
    }
  };
  const running = options.lengths.map(attacker);
  return {
    statuses,
    async stop() {
      stopped = true;
      for (const request of open) request.close();
      await Promise.all(running);
    },
  };
}

Deno.test("anonymous budget: a per-address share and a pool within the budget, held as bytes arrive", () => {
  const budget = new MemoryBudget(64 * MIB, { anonymous_limit: 8 * MIB });
  assertEquals(budget.anonymous_limit, 8 * MIB);
  assertEquals(budget.address_limit, 2 * MIB);
  const cost = (bytes: number) =>
    REQUEST_OVERHEAD_BYTES + BODY_EXPANSION * bytes;
  const refused = (hold: () => void) => {
    try {
      hold();
    } catch (error) {
      assert(error instanceof ApiError);
      assertEquals(error.status, 503);
      assertEquals(error.headers["Retry-After"], "1");
      assertMatch(error.message, /without credentials/);
      return true;
    }
    return false;
  };
  // One address: its quarter of the anonymous part, whatever it announces.
  const body = 40_000; // 64 KiB + 8 × 40 KB each: five fit in 2 MiB
  const from_one = Array.from(
    { length: 6 },
    () => budget.anonymous_lease("192.0.2.1"),
  );
  for (const lease of from_one.slice(0, 5)) lease.hold_body(body);
  assertEquals(budget.held_by_address("192.0.2.1"), 5 * cost(body));
  assert(refused(() => from_one[5].hold_body(body)));
  assertEquals(from_one[5].held, 0);
  // Other addresses fill the anonymous part, and no more.
  const others: ReturnType<MemoryBudget["anonymous_lease"]>[] = [];
  for (let index = 2; index < 10; index++) {
    for (let count = 0; count < 5; count++) {
      const lease = budget.anonymous_lease(`192.0.2.${index}`);
      if (refused(() => lease.hold_body(body))) break;
      others.push(lease);
    }
  }
  assert(budget.anonymous_in_use <= 8 * MIB);
  assert(budget.anonymous_in_use > 8 * MIB - cost(body));
  assertEquals(budget.anonymous_in_use, budget.in_use);
  assert(budget.anonymous_refused >= 2);
  // A known request still has the rest of the budget.
  const keyed = budget.lease();
  keyed.hold_body(6 * MIB);
  assertEquals(keyed.anonymous, false);
  // A request whose credentials check out leaves the anonymous part.
  const promoted = from_one[0];
  promoted.known();
  assertEquals(budget.held_by_address("192.0.2.1"), 4 * cost(body));
  promoted.hold_body(1 * MIB);
  assertEquals(budget.held_by_address("192.0.2.1"), 4 * cost(body));
  for (const lease of [...from_one, ...others, keyed]) lease.release();
  assertEquals(budget.in_use, 0);
  assertEquals(budget.anonymous_in_use, 0);
  assertEquals(budget.held_by_address("192.0.2.1"), 0);
});

Deno.test({
  name:
    "anonymous budget: ten trickling anonymous sign-ins announcing 8 MB do not starve keyed /generate calls",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // The default budget (64 MiB), which the ten announced bodies fill when
    // held for their declared length. Rendering on the request thread: no
    // worker start-up on a busy machine.
    const server = await start_test_server({ env: { RENDER_WORKERS: "0" } });
    let attack: ReturnType<typeof start_trickle_attack> | undefined;
    try {
      const { key } = await server.create_account({ plan: "team" });
      const invoice = (number: number) => ({
        ...invoice_with_items(10),
        invoice_number: `ANON-${number}`,
      });
      // The renderer is loaded before the attack starts.
      const warm = await server.generate(key, invoice(0));
      assertEquals(warm.status, 200);
      await warm.body?.cancel();
      attack = start_trickle_attack(server, {
        lengths: [
          ...Array(7).fill(MIB),
          900_000,
          70_000,
          70_000,
        ],
        // One space every 5 s in the report; every second here.
        interval_ms: 1_000,
      });
      // All ten hold something before the keyed calls start.
      await until(
        async () =>
          (await metric(server, "request_memory_bytes")) >=
            10 * REQUEST_OVERHEAD_BYTES,
        "the ten anonymous bodies to be held",
      );
      const statuses: number[] = [];
      for (let call = 0; call < 5; call++) {
        const response = await server.generate(key, invoice(call + 1));
        const bytes = await response.bytes();
        statuses.push(response.status);
        if (response.status !== 200) {
          console.error(new TextDecoder().decode(bytes).slice(0, 300));
        }
        await sleep(400);
      }
      assertEquals(statuses, [200, 200, 200, 200, 200]);
      // The trickles were cut for their rate (never refused for memory).
      assert(
        attack.statuses.every((status) => status === 408),
        String(attack.statuses),
      );
      const anonymous = await metric(server, "request_memory_anonymous_bytes");
      const limit = await metric(
        server,
        "request_memory_anonymous_limit_bytes",
      );
      assertEquals(limit, 8 * MIB);
      assert(anonymous <= limit, `anonymous ${anonymous}`);
      await attack.stop();
      attack = undefined;
      await until(
        async () => (await metric(server, "request_memory_bytes")) === 0,
        "every byte to be given back",
      );
    } finally {
      await attack?.stop();
      await server.close();
    }
  },
});

Deno.test({
  name:
    "anonymous budget: a /generate with an unknown key gets its 401 without its body being read or held",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await start_test_server({ env: { RENDER_WORKERS: "0" } });
    const requests: RawConnection[] = [];
    try {
      for (const bearer of ["ink_live_" + "A".repeat(43), "garbage"]) {
        // 1 MB announced, one byte sent: a body never read cannot keep the
        // answer waiting.
        const request = await open_upload(server.url, {
          path: "/generate",
          headers: { Authorization: `Bearer ${bearer}` },
          length: 1_000_000,
          first: "{",
        });
        requests.push(request);
        const answer = await request.answer();
        const text = new TextDecoder().decode(answer?.body);
        assertEquals(answer?.status, 401, text);
        assertMatch(text, /"code":"unauthorized"/);
      }
      assertEquals(await metric(server, "request_memory_peak_bytes"), 0);
    } finally {
      for (const request of requests) request.close();
      await server.close();
    }
  },
});

Deno.test({
  name:
    "anonymous budget: JSON bodies of requests without credentials are limited to 16 KiB as they arrive",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await start_test_server({ env: { RENDER_WORKERS: "0" } });
    try {
      const sign_in = (password: string) =>
        fetch(`${server.url}/trpc/auth.sign_in`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ email: "someone@example.com", password }),
        });
      const large = await sign_in("x".repeat(20_000));
      assertEquals(large.status, 413);
      const body = await large.json();
      assertEquals(body.error.code, "payload_too_large");
      assertMatch(body.error.message, /larger than 16384 bytes/);
      // An ordinary sign-in is unaffected (a wrong password: 401).
      const ordinary = await sign_in("correct horse battery staple");
      assertEquals(ordinary.status, 401);
      await ordinary.body?.cancel();
      // The operator's token is known before the body is read: 1 MiB.
      const admin = await server.admin("/admin/accounts", {
        body: {
          email: `big-${crypto.randomUUID().slice(0, 8)}@example.com`,
          plan: "starter",
          name: "x".repeat(100),
          padding: "x".repeat(30_000),
        },
      });
      assertEquals(admin.status, 400);
      assertMatch((await admin.json()).error.message, /padding/);
      // Over tRPC too: the body is read after the admin check.
      const trpc_admin = await fetch(
        `${server.url}/trpc/admin.create_account`,
        {
          method: "POST",
          headers: {
            Authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
            "Content-Type": "application/json",
          },
          body: JSON.stringify({
            email: "big@example.com",
            plan: "starter",
            padding: "x".repeat(30_000),
          }),
        },
      );
      assertEquals(trpc_admin.status, 400);
      assertMatch(await trpc_admin.text(), /padding/);
    } finally {
      await server.close();
    }
  },
});
