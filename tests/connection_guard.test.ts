/**
 * The connection guard's relay (server/connection_guard.ts) on its own:
 * requests and answers of every size around its buffer sizes pass through
 * whole and in order on one keep-alive connection, and none is held back
 * when a read exactly fills a buffer (the next read then waits with bytes
 * already forwarded). The timeouts themselves are tested over the service in
 * http_connection_timeouts.test.ts.
 */
import { assert, assertEquals } from "./assert.ts";
import { start_connection_guard } from "../server/connection_guard.ts";
import { type HttpAnswer, HttpConnection } from "./bench/http_client.ts";

const encoder = new TextEncoder();
// Longer than any answer on loopback may take; a held-back byte shows as
// this wait running out instead of the test hanging.
const ANSWER_LIMIT_MS = 5_000;

function pattern(length: number, seed: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  for (let index = 0; index < length; index++) {
    bytes[index] = (index * 31 + seed) & 0xff;
  }
  return bytes;
}

function post(path: string, body: Uint8Array): Uint8Array {
  const head = encoder.encode(
    `POST ${path} HTTP/1.1\r\nHost: guard.test\r\n` +
      `Content-Length: ${body.length}\r\n\r\n`,
  );
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head);
  bytes.set(body, head.length);
  return bytes;
}

async function answer_in_time(
  connection: HttpConnection,
  request: Uint8Array,
): Promise<HttpAnswer> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      connection.request(request),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer in ${ANSWER_LIMIT_MS} ms`)),
          ANSWER_LIMIT_MS,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("relay: requests and answers of every size around the buffer sizes arrive whole, none held back", async () => {
  // `/echo` answers the body; `/sized/N` answers N pattern bytes for any body.
  const guard = await start_connection_guard(async (request) => {
    const body = new Uint8Array(await request.arrayBuffer());
    const sized = /^\/sized\/(\d+)$/.exec(new URL(request.url).pathname);
    return new Response(sized ? pattern(Number(sized[1]), 7) : body);
  }, {
    hostname: "127.0.0.1",
    port: 0,
    header_timeout_ms: 10_000,
    keep_alive_timeout_ms: 10_000,
  });
  const connection = await HttpConnection.open({
    hostname: "127.0.0.1",
    port: guard.address.port,
  });
  try {
    // Requests whose whole size (head and body) is 4 KiB and around it,
    // around 36 KiB (small buffer plus one large one), and much larger.
    const head_length = post("/echo", new Uint8Array(1000)).length - 1000;
    const request_sizes = [
      ...[-2, -1, 0, 1, 2].map((delta) => 4096 + delta),
      ...[-1, 0, 1].map((delta) => 4096 + 32768 + delta),
      300_000,
    ];
    for (const [seed, total] of request_sizes.entries()) {
      const body = pattern(total - head_length, seed);
      const answer = await answer_in_time(connection, post("/echo", body));
      assertEquals(answer.status, 200);
      assertEquals(answer.body, body, `request of ${total} bytes`);
    }
    // Answers whose bodies sweep past 20 KiB and 52 KiB (small buffer, and
    // small plus one large one) whatever the length of the answer's head.
    const answer_sizes = [
      ...Array.from({ length: 300 }, (_, index) => 20480 - 300 + index),
      ...Array.from({ length: 300 }, (_, index) => 53248 - 300 + index),
      1_000_000,
    ];
    for (const size of answer_sizes) {
      const answer = await answer_in_time(
        connection,
        post(`/sized/${size}`, new Uint8Array(0)),
      );
      assertEquals(answer.status, 200);
      assert(
        answer.body.length === size &&
          answer.body.every((byte, index) =>
            byte === ((index * 31 + 7) & 0xff)
          ),
        `answer of ${size} bytes arrived as ${answer.body.length}`,
      );
    }
  } finally {
    connection.close();
    await guard.shutdown();
  }
});
