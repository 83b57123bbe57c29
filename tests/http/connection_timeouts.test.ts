/**
 * Connection timeouts: idle keep-alive connections and request heads that
 * arrive too slowly are closed (`KEEP_ALIVE_TIMEOUT_MS`, `HEADER_TIMEOUT_MS`),
 * while busy keep-alive clients, slow bodies and long renders are not cut and
 * other clients are served meanwhile. Raw TCP sockets on loopback, small
 * timeouts.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { render_invoice_document } from "../../server/einvoice/mod.ts";

const HEADER_TIMEOUT_MS = 600;
const KEEP_ALIVE_TIMEOUT_MS = 1_000;
// Long enough that an unguarded connection is plainly still open.
const WAIT_LIMIT_MS = 5_000;
// A render that takes longer than both timeouts together.
const SLOW_RENDER_MS = 2_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function start(): Promise<TestServer> {
  return await start_test_server({
    env: {
      HEADER_TIMEOUT_MS: String(HEADER_TIMEOUT_MS),
      KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
    },
    // Every render is slow, so a long render is seen not to be cut.
    render_document: async (invoice, render) => {
      await sleep(SLOW_RENDER_MS);
      return render_invoice_document(invoice, {
        format: render?.format ?? "pdf",
        test: render?.test,
      }).bytes;
    },
  });
}

async function connect(server: TestServer): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: server.server.port,
  });
  conn.setNoDelay(true);
  return conn;
}

async function send(conn: Deno.Conn, text: string | Uint8Array): Promise<void> {
  const bytes = typeof text === "string" ? encoder.encode(text) : text;
  let written = 0;
  while (written < bytes.length) {
    written += await conn.write(bytes.subarray(written));
  }
}

/**
 * Reads until the server closes the connection or `limit_ms` passes;
 * returns what arrived and when the connection was closed (ms after the
 * call), or `undefined` if it is still open.
 */
async function read_until_closed(
  conn: Deno.Conn,
  limit_ms: number,
): Promise<{ text: string; closed_after_ms?: number }> {
  const started = Date.now();
  const buffer = new Uint8Array(64 * 1024);
  let text = "";
  while (true) {
    const left = limit_ms - (Date.now() - started);
    if (left <= 0) return { text };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = await Promise.race([
      conn.read(buffer).catch(() => null),
      new Promise<"open">((resolve) => {
        timer = setTimeout(() => resolve("open"), left);
      }),
    ]);
    clearTimeout(timer);
    if (read === "open") return { text };
    if (read === null) return { text, closed_after_ms: Date.now() - started };
    text += decoder.decode(buffer.subarray(0, read));
  }
}

/** Reads one response with a `Content-Length` or a chunked body. */
async function read_response(
  conn: Deno.Conn,
): Promise<{ status: number; head: string; body: string }> {
  const buffer = new Uint8Array(64 * 1024);
  let text = "";
  let bytes = new Uint8Array(0);
  const started = Date.now();
  while (Date.now() - started < WAIT_LIMIT_MS * 2) {
    const head_end = text.indexOf("\r\n\r\n");
    if (head_end >= 0) {
      const head = text.slice(0, head_end);
      const head_bytes = encoder.encode(text.slice(0, head_end + 4)).length;
      const chunked = /transfer-encoding: chunked/i.test(head);
      const rest = decoder.decode(bytes.subarray(head_bytes));
      if (chunked && rest.endsWith("\r\n0\r\n\r\n")) {
        return { status: Number(head.split(" ")[1]), head, body: rest };
      }
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (!chunked && bytes.length - head_bytes >= length) {
        return {
          status: Number(head.split(" ")[1]),
          head,
          body: decoder.decode(bytes.subarray(head_bytes, head_bytes + length)),
        };
      }
    }
    const read = await conn.read(buffer);
    if (read === null) throw new Error(`connection closed after ${text}`);
    bytes = new Uint8Array([...bytes, ...buffer.subarray(0, read)]);
    text = decoder.decode(bytes);
  }
  throw new Error("no complete response in time");
}

async function healthz_ok(server: TestServer): Promise<number> {
  const started = Date.now();
  const response = await fetch(`${server.url}/healthz`);
  await response.body?.cancel();
  assertEquals(response.status, 200);
  return Date.now() - started;
}

Deno.test("an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS", async () => {
  const server = await start();
  try {
    const conn = await connect(server);
    await send(conn, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const answer = await read_response(conn);
    assertEquals(answer.status, 200);
    // The answer was keep-alive: the server does not close at once.
    assertEquals(/connection: close/i.test(answer.head), false);
    // Others are served while this connection sits idle.
    await sleep(KEEP_ALIVE_TIMEOUT_MS / 2);
    assert((await healthz_ok(server)) < KEEP_ALIVE_TIMEOUT_MS);
    const { text, closed_after_ms } = await read_until_closed(
      conn,
      WAIT_LIMIT_MS,
    );
    conn.close();
    assert(
      closed_after_ms !== undefined,
      `idle connection still open ${WAIT_LIMIT_MS} ms later`,
    );
    // Closed about KEEP_ALIVE_TIMEOUT_MS after the answer, not later.
    assert(
      closed_after_ms < KEEP_ALIVE_TIMEOUT_MS,
      `closed ${closed_after_ms} ms after the check`,
    );
    assertEquals(text, "");
  } finally {
    await server.close();
  }
});

Deno.test("a stalled or dribbled request head is closed after HEADER_TIMEOUT_MS while others are served", async () => {
  const server = await start();
  try {
    // A partial head that stalls, a connection that sends nothing, and a
    // head sent a byte every 100 ms (never finished in time: the clock is
    // not restarted by each byte).
    const stalled = await connect(server);
    await send(stalled, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const silent = await connect(server);
    const dribbled = await connect(server);
    const head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " +
      "a".repeat(200);
    let dribbling = true;
    const dribble = (async () => {
      for (const char of head) {
        if (!dribbling) break;
        await send(dribbled, char).catch(() => {
          dribbling = false;
        });
        await sleep(100);
      }
    })();
    const started = Date.now();
    // The service keeps answering others while these are open.
    assert((await healthz_ok(server)) < HEADER_TIMEOUT_MS);
    const results = await Promise.all(
      [stalled, silent, dribbled].map((conn) =>
        read_until_closed(conn, WAIT_LIMIT_MS)
      ),
    );
    const waited = Date.now() - started;
    dribbling = false;
    await dribble;
    for (const conn of [stalled, silent, dribbled]) conn.close();
    for (const [index, result] of results.entries()) {
      assert(
        result.closed_after_ms !== undefined,
        `connection ${index} still open after ${waited} ms`,
      );
      assertEquals(result.text, "");
    }
    assert(waited < HEADER_TIMEOUT_MS + 1_500, `closed after ${waited} ms`);
    assert((await healthz_ok(server)) < 1_000);
  } finally {
    await server.close();
  }
});

Deno.test("a busy keep-alive client, a slow body and a long render are not cut", async () => {
  const server = await start();
  try {
    const { key } = await server.create_account({ plan: "team" });
    // A connection that only idles alongside: it must be cut meanwhile, so
    // the timeouts were live while the others were left alone.
    const idle = await connect(server);
    const idle_closed = read_until_closed(idle, WAIT_LIMIT_MS);
    // Requests every 300 ms on one connection, for as long as the slow
    // request below takes (longer than both timeouts together).
    const busy = await connect(server);
    let slow_done = false;
    let answered = 0;
    const busy_client = (async () => {
      while (!slow_done) {
        await send(busy, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        assertEquals((await read_response(busy)).status, 200);
        answered += 1;
        await sleep(300);
      }
    })();
    // A body that takes longer than both timeouts to arrive, then a render
    // that takes longer than both as well, on a keep-alive connection.
    const slow = await connect(server);
    const body = encoder.encode(JSON.stringify(full_invoice()));
    await send(
      slow,
      `POST /generate HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const pieces = 8;
    const piece = Math.ceil(body.length / pieces);
    // The render starts once the last piece is in: time it from there.
    let started = Date.now();
    for (let start = 0; start < body.length; start += piece) {
      await send(slow, body.subarray(start, start + piece));
      started = Date.now();
      await sleep((KEEP_ALIVE_TIMEOUT_MS + HEADER_TIMEOUT_MS) / pieces);
    }
    const answer = await read_response(slow);
    assertEquals(answer.status, 200, answer.body.slice(0, 300));
    assertMatch(answer.head, /content-type: application\/pdf/i);
    assert(Date.now() - started >= SLOW_RENDER_MS - 100);
    // The same connection still takes the next request.
    await send(slow, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assertEquals((await read_response(slow)).status, 200);
    slow_done = true;
    // Every request of the busy client was answered on the same connection.
    await busy_client;
    assert(answered >= 8, `only ${answered} answers`);
    const idle_result = await idle_closed;
    assert(idle_result.closed_after_ms !== undefined, "idle one not closed");
    assert(idle_result.closed_after_ms < HEADER_TIMEOUT_MS + 1_000);
    idle.close();
    busy.close();
    slow.close();
  } finally {
    await server.close();
  }
});

Deno.test("both timeouts 0: idle connections and slow heads are left to the load balancer", async () => {
  const server = await start_test_server({
    env: { HEADER_TIMEOUT_MS: "0", KEEP_ALIVE_TIMEOUT_MS: "0" },
  });
  try {
    const conn = await connect(server);
    // Longer than the guarded tests' limits: nothing here closes it.
    await send(conn, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    // A closed connection would fail the write or the read below.
    await sleep(2_500);
    await send(conn, "\r\n");
    assertEquals((await read_response(conn)).status, 200);
    conn.close();
  } finally {
    await server.close();
  }
});
