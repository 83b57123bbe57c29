/**
 * The one module that reaches into Deno's internals
 * (server/deno_http_connection.ts): pins the Deno versions it was verified
 * on and the behaviour the service relies on. When Deno is upgraded and
 * this fails, re-verify the module and add the version.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  serve_connection,
  type ServedConnection,
  VERIFIED_DENO_VERSIONS,
} from "../../server/deno_http_connection.ts";
import { RawConnection } from "../helpers/raw_http.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Describes a request as the handler sees it. */
async function describe(request: Request): Promise<Response> {
  const body = request.body ? await request.text() : "";
  return new Response(
    `${request.method} ${new URL(request.url).pathname} ${
      request.headers.get("host")
    } body=${JSON.stringify(body)}`,
  );
}

/** Serves every connection of a fresh listener with {@link serve_connection}. */
function serve_each(
  handler: (request: Request) => Response | Promise<Response>,
) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served: ServedConnection[] = [];
  const accepting = (async () => {
    for await (const conn of listener) {
      served.push(serve_connection(conn, handler));
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    served,
    async close() {
      listener.close();
      await accepting;
      for (const connection of served) connection.close();
      await Promise.all(served.map((connection) => connection.finished));
    },
  };
}

/** Everything a server answers to `bytes` until it closes or goes quiet. */
async function exchange(port: number, bytes: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(encoder.encode(bytes)).catch(() => 0);
    let text = "";
    const buffer = new Uint8Array(65536);
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const read = await Promise.race([
        conn.read(buffer).catch(() => null),
        new Promise<"quiet">((resolve) => {
          timer = setTimeout(() => resolve("quiet"), 300);
        }),
      ]);
      clearTimeout(timer);
      if (read === null || read === "quiet") break;
      text += decoder.decode(buffer.subarray(0, read));
    }
    // The date changes between the two servers' answers.
    return text.replace(/^date: .*\r\n/gim, "");
  } finally {
    conn.close();
  }
}

const FRAMING_CASES: Record<string, string> = {
  "plain": "GET /a HTTP/1.1\r\nHost: h\r\n\r\n",
  "pipelined":
    "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n",
  "Content-Length and chunked":
    "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n",
  "two Content-Lengths":
    "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde",
  "Content-Length with a sign":
    "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: +3\r\n\r\nabc",
  "unknown transfer coding":
    "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
  "chunked not last":
    "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, identity\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
  "bad chunk size":
    "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
  "chunked body":
    "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
  "space before colon":
    "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length : 3\r\n\r\nabc",
  "folded header": "GET /a HTTP/1.1\r\nHost: h\r\nX-A: a\r\n b\r\n\r\n",
  "bare LF": "GET /a HTTP/1.1\nHost: h\n\n",
  "HTTP/1.0": "GET /a HTTP/1.0\r\n\r\n",
  "absolute form": "GET http://other/a HTTP/1.1\r\nHost: h\r\n\r\n",
  "oversized head": `GET /a HTTP/1.1\r\nHost: h\r\nX-Big: ${
    "a".repeat(512 * 1024)
  }\r\n\r\n`,
};

Deno.test("the running Deno is one this module was verified on", () => {
  assert(
    VERIFIED_DENO_VERSIONS.includes(Deno.version.deno),
    `Deno ${Deno.version.deno}: re-verify server/deno_http_connection.ts (verified: ${VERIFIED_DENO_VERSIONS})`,
  );
});

Deno.test("requests are parsed and framed exactly as Deno.serve does", async () => {
  const own = serve_each(describe);
  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const reference = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => resolve(port),
  }, describe);
  const reference_port = await listening;
  try {
    for (const [name, bytes] of Object.entries(FRAMING_CASES)) {
      const expected = await exchange(reference_port, bytes);
      const actual = await exchange(own.port, bytes);
      assertEquals(actual, expected, name);
    }
    // The smuggled request is never served.
    const answer = await exchange(
      own.port,
      FRAMING_CASES["Content-Length and chunked"],
    );
    assertEquals(answer.includes("/smuggled"), false);
  } finally {
    await own.close();
    await reference.shutdown();
  }
});

Deno.test("a served connection holds one descriptor", async () => {
  const own = serve_each(describe);
  const count = () => [...Deno.readDirSync("/proc/self/fd")].length;
  const clients: RawConnection[] = [];
  try {
    const before = count();
    for (let index = 0; index < 20; index++) {
      const client = await RawConnection.open(own.port);
      await client.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\n");
      assertEquals((await client.answer())?.status, 200);
      clients.push(client);
    }
    // Twenty client sockets of this process, and twenty served ones.
    assertEquals(count() - before, 40);
  } finally {
    for (const client of clients) client.close();
    await own.close();
  }
});

Deno.test("close cuts at once; close_after_response finishes the answer first", async () => {
  let release: (() => void) | undefined;
  const own = serve_each(async (request) => {
    if (new URL(request.url).pathname === "/slow") {
      await new Promise<void>((resolve) => release = resolve);
    }
    return new Response("done");
  });
  try {
    // An idle connection and a half-sent head are closed at once.
    const idle = await RawConnection.open(own.port);
    await idle.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\n");
    assertEquals((await idle.answer())?.status, 200);
    own.served[0].close();
    assert(await idle.closed_within(1_000));
    const half = await RawConnection.open(own.port);
    await half.send("GET /a HTTP/1.1\r\nHo");
    while (own.served.length < 2) await new Promise((r) => setTimeout(r, 5));
    own.served[1].close();
    assert(await half.closed_within(1_000));
    // A request in flight is answered, then the connection closes; a cut
    // asked for afterwards changes nothing.
    const slow = await RawConnection.open(own.port);
    await slow.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
    while (!release) await new Promise((r) => setTimeout(r, 5));
    own.served[2].close_after_response();
    own.served[2].close();
    release();
    const answer = await slow.answer();
    assertEquals(decoder.decode(answer?.body), "done");
    assert(await slow.closed_within(1_000));
    // Closing a connection its client has just closed is harmless.
    for (let round = 0; round < 50; round++) {
      const client = await RawConnection.open(own.port);
      while (own.served.length < 4 + round) {
        await new Promise((r) => setTimeout(r, 1));
      }
      client.close();
      for (let tick = 0; tick < round % 10; tick++) {
        await new Promise((r) => setTimeout(r, 0));
      }
      own.served[3 + round].close();
    }
    for (const client of [idle, half, slow]) client.close();
  } finally {
    await own.close();
  }
});
