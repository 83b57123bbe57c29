/**
 * A request body that arrives slower than `BODY_MIN_BYTES_PER_SECOND` (1024
 * by default, after a 2 s grace) is cut with 408 `request_timeout` long
 * before `BODY_TIMEOUT_MS`, for keyed and anonymous requests alike; a body
 * that pauses within the grace is still served.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { open_upload, type RawConnection } from "../helpers/raw_http.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends `piece` every `interval_ms` until the request is answered (at most
 * 60 s); the answer's status and body text.
 */
async function trickle(
  request: RawConnection,
  piece: string,
  interval_ms: number,
): Promise<{ status: number; text: string; seconds: number }> {
  const started = performance.now();
  let answered = false;
  const answer = request.answer(60_000).finally(() => {
    answered = true;
  });
  while (!answered) {
    await sleep(interval_ms);
    if (!answered && !(await request.send(piece))) break;
  }
  const value = await answer;
  return {
    status: value?.status ?? 0,
    text: new TextDecoder().decode(value?.body),
    seconds: (performance.now() - started) / 1000,
  };
}

Deno.test({
  name:
    "slow bodies: a body trickling in below the minimum rate gets 408 within seconds, keyed or not",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // BODY_TIMEOUT_MS stays at its 30 s; the minimum rate at its default.
    const server: TestServer = await start_test_server({
      env: { RENDER_WORKERS: "0" },
    });
    const requests: RawConnection[] = [];
    try {
      const { key } = await server.create_account({ plan: "team" });
      const cases = [
        {
          path: "/generate",
          headers: { Authorization: `Bearer ${key}` } as Record<string, string>,
        },
        { path: "/trpc/auth.sign_in", headers: {} },
      ];
      const results = await Promise.all(cases.map(async (item) => {
        const request = await open_upload(server.url, {
          path: item.path,
          headers: item.headers,
          length: 10_000,
          first: "{",
        });
        requests.push(request);
        // About 80 bytes a second.
        return await trickle(request, "          ", 125);
      }));
      for (const [index, result] of results.entries()) {
        const path = cases[index].path;
        console.log(
          `${path}: ${result.status} after ${result.seconds.toFixed(2)} s`,
        );
        // Cut after the 2 s grace, not after BODY_TIMEOUT_MS (30 s).
        assert(result.seconds < 10, `${path}: ${result.seconds} s`);
        assertEquals(result.status, 408, `${path}: ${result.text}`);
        assertMatch(result.text, /"code":"request_timeout"/);
        assertMatch(result.text, /slower than 1024 bytes a second/);
      }
    } finally {
      for (const request of requests) request.close();
      await server.close();
    }
  },
});

Deno.test({
  name:
    "slow bodies: a body that pauses within the grace and then arrives is served",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await start_test_server({ env: { RENDER_WORKERS: "0" } });
    const requests: RawConnection[] = [];
    try {
      const { key } = await server.create_account();
      const body = JSON.stringify(full_invoice());
      const half = Math.floor(body.length / 2);
      const request = await open_upload(server.url, {
        path: "/generate",
        headers: { Authorization: `Bearer ${key}` },
        length: new TextEncoder().encode(body).length,
        first: body.slice(0, half),
      });
      requests.push(request);
      await sleep(1_500);
      await request.send(body.slice(half));
      const answer = await request.answer(30_000);
      assertEquals(answer?.status, 200);
    } finally {
      for (const request of requests) request.close();
      await server.close();
    }
  },
});
