/**
 * The per-minute rate limit is a sliding window, so it does not double across a
 * minute boundary, and `Retry-After` is the true wait, equal to
 * `RateLimit-Reset` on a 429. Driven by an injected clock.
 */
import { assert, assertEquals } from "../assert.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";

interface Answer {
  status: number;
  remaining: string | null;
  reset: string | null;
  retry_after: string | null;
}

// An empty body is authenticated and counted, then refused with a 400: no
// render is needed to exercise the limit.
async function call_once(server: TestServer, key: string): Promise<Answer> {
  const response = await server.generate(key, {});
  await response.body?.cancel();
  return {
    status: response.status,
    remaining: response.headers.get("ratelimit-remaining"),
    reset: response.headers.get("ratelimit-reset"),
    retry_after: response.headers.get("retry-after"),
  };
}

Deno.test("rate limit: a burst across a minute boundary passes about 60, not 120, and Retry-After is the true wait", async () => {
  let clock = new Date("2030-01-01T10:00:58.000Z");
  const server = await start_test_server({ now: () => clock });
  try {
    // Starter: 60 requests a minute.
    const { key } = await server.create_account({ plan: "starter" });
    const call = () => call_once(server, key);
    const burst = async (count: number) => {
      const answers: Answer[] = [];
      for (let i = 0; i < count; i++) answers.push(await call());
      return answers;
    };
    const passed = (answers: Answer[]) =>
      answers.filter((a) => a.status !== 429).length;

    const first = await burst(61);
    assertEquals(passed(first), 60);
    assertEquals(first[0]!.status, 400);
    assertEquals(first[0]!.remaining, "59");
    assertEquals(first[59]!.remaining, "0");
    const refused = first[60]!;
    assertEquals(refused.status, 429);
    assertEquals(refused.remaining, "0");
    // The 60 requests of 10:00:58 weigh fully until 10:01:00, then one in 60
    // frees each second: the next request fits at 10:01:01, 3 s later.
    assertEquals(refused.retry_after, "3");
    assertEquals(refused.reset, refused.retry_after);

    // Across the boundary: 10:01:00 to 10:01:04, 120 more attempts.
    const across: Answer[] = [];
    for (const at of ["10:01:00", "10:01:02", "10:01:04"]) {
      clock = new Date(`2030-01-01T${at}.000Z`);
      across.push(...await burst(40));
    }
    // 0 at 10:01:00, 2 at 10:01:02, 2 more at 10:01:04; never 60 more.
    assertEquals(passed(across), 4);
    for (const answer of across.filter((a) => a.status === 429)) {
      assertEquals(answer.reset, answer.retry_after);
      assert(
        Number(answer.retry_after) >= 1 && Number(answer.retry_after) < 60,
      );
    }

    // Retry-After is the true wait: refused just before it, served after it.
    const last = across.at(-1)!;
    assertEquals(last.status, 429);
    const wait = Number(last.retry_after);
    assertEquals(wait, 1);
    clock = new Date(clock.getTime() + wait * 1000 - 100);
    assertEquals((await call()).status, 429);
    clock = new Date(clock.getTime() + 100);
    assertEquals((await call()).status, 400);
  } finally {
    await server.close();
  }
});

Deno.test("rate limit: refused requests are not counted, so a client that keeps calling recovers", async () => {
  let clock = new Date("2030-01-01T10:00:30.000Z");
  const server = await start_test_server({
    now: () => clock,
    env: { RATE_LIMIT_PER_MINUTE: "5" },
  });
  try {
    const { key } = await server.create_account({ plan: "starter" });
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const response = await server.generate(key, {});
      await response.body?.cancel();
      statuses.push(response.status);
    }
    assertEquals(statuses.filter((s) => s !== 429).length, 5);
    // 10:01:30: the previous window (5 counted) weighs half: 2.5 + 1 ≤ 5.
    clock = new Date("2030-01-01T10:01:30.000Z");
    const later = await server.generate(key, {});
    await later.body?.cancel();
    assertEquals(later.status, 400);
    assertEquals(later.headers.get("ratelimit-remaining"), "1");
  } finally {
    await server.close();
  }
});
