/**
 * The connection guard (server/connection_guard.ts) on its own, with a
 * small handler: answers of every size pass whole; at the connection cap
 * the connection waiting longest is closed first and busy ones never are;
 * failed accepts are survived, logged at most once a second and retried;
 * shutdown answers every request already received with `Connection:
 * close`. Deadlines over the whole service are tested in
 * tests/http/connection_timeouts.test.ts, floods in tests/process/connection_flood.test.ts.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  type ConnectionGuard,
  type ConnectionGuardOptions,
  DRAIN_WAIT_MS,
  start_connection_guard,
} from "../../server/connection_guard.ts";
import { RawConnection } from "../helpers/raw_http.ts";

const GET = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: guard.test\r\n\r\n`;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function pattern(length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  for (let index = 0; index < length; index++) bytes[index] = index * 31;
  return bytes;
}

/**
 * A guard whose handler answers `/sized/N` with N bytes, `/echo` with the
 * body, and holds `/slow/NAME` until `release(NAME)`.
 */
function start(options: Partial<ConnectionGuardOptions> = {}) {
  const held = new Map<string, () => void>();
  const started = new Set<string>();
  const guard: ConnectionGuard = start_connection_guard(async (request) => {
    const path = new URL(request.url).pathname;
    const sized = /^\/sized\/(\d+)$/.exec(path);
    if (sized) return new Response(pattern(Number(sized[1])));
    if (path === "/echo") return new Response(await request.arrayBuffer());
    const slow = /^\/slow\/(\w+)$/.exec(path);
    if (slow) {
      started.add(slow[1]);
      await new Promise<void>((resolve) => held.set(slow[1], resolve));
    }
    return new Response(`answer ${path}`);
  }, {
    hostname: "127.0.0.1",
    port: 0,
    header_timeout_ms: 60_000,
    keep_alive_timeout_ms: 60_000,
    max_connections: 1_000,
    ...options,
  });
  return {
    guard,
    port: guard.address.port,
    /** Waits until the handler holds `/slow/NAME`. */
    async holding(name: string): Promise<void> {
      while (!started.has(name)) await sleep(5);
    },
    release(name: string): void {
      held.get(name)?.();
    },
  };
}

Deno.test("answers and request bodies of every size arrive whole on one keep-alive connection", async () => {
  const { guard, port } = start();
  const client = await RawConnection.open(port);
  try {
    for (const size of [0, 1, 4095, 4096, 65_537, 1_000_000]) {
      await client.send(GET(`/sized/${size}`));
      const answer = await client.answer();
      assertEquals(answer?.status, 200);
      assertEquals(answer?.body, pattern(size), `answer of ${size} bytes`);
    }
    const body = pattern(300_000);
    await client.send(
      `POST /echo HTTP/1.1\r\nHost: guard.test\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await client.send(body);
    assertEquals((await client.answer())?.body, body);
  } finally {
    client.close();
    await guard.shutdown();
  }
});

Deno.test("at MAX_CONNECTIONS the connection waiting longest is closed first, busy ones never", async () => {
  const { guard, port, holding, release } = start({ max_connections: 4 });
  const clients: RawConnection[] = [];
  const open = async () => {
    const client = await RawConnection.open(port);
    clients.push(client);
    return client;
  };
  try {
    // Oldest: idle after an answer. Next: half a head. Then one busy with
    // a slow request, and one more idle.
    const idle_first = await open();
    await idle_first.send(GET("/a"));
    assertEquals((await idle_first.answer())?.status, 200);
    await sleep(20);
    const half_head = await open();
    await half_head.send("GET /b HTTP/1.1\r\nHost: gua");
    await sleep(20);
    const busy = await open();
    await busy.send(GET("/slow/busy"));
    await holding("busy");
    const idle_last = await open();
    await idle_last.send(GET("/c"));
    assertEquals((await idle_last.answer())?.status, 200);
    assertEquals(guard.open_connections, 4);

    // A fifth client with a real request is served; the idle one that has
    // waited longest made room.
    const fifth = await open();
    await fifth.send(GET("/d"));
    assertEquals((await fifth.answer())?.status, 200);
    assert(await idle_first.closed_within(2_000), "oldest idle not closed");
    assertEquals(await half_head.closed_within(100), false);
    // The next one closes the half head, which waited longer than the
    // later idle ones.
    const sixth = await open();
    await sixth.send(GET("/e"));
    assertEquals((await sixth.answer())?.status, 200);
    assert(await half_head.closed_within(2_000), "half head not closed");
    assertEquals(await idle_last.closed_within(100), false);
    assert(guard.open_connections <= 4, `${guard.open_connections} open`);

    // All four busy: a new client waits (not accepted, not closed) until
    // one finishes, then is served.
    for (
      const [name, client] of [["x", idle_last], ["y", fifth], [
        "z",
        sixth,
      ]] as const
    ) {
      await client.send(GET(`/slow/${name}`));
      await holding(name);
    }
    const waiting = await open();
    await waiting.send(GET("/f"));
    assertEquals(await waiting.closed_within(300), false);
    assertEquals(guard.open_connections, 4);
    release("busy");
    assertEquals((await busy.answer())?.status, 200);
    assertEquals((await waiting.answer())?.status, 200);
    // The busy ones were never closed: each gets its answer.
    for (
      const [name, client] of [["x", idle_last], ["y", fifth], [
        "z",
        sixth,
      ]] as const
    ) {
      release(name);
      const answer = await client.answer();
      assertEquals(
        new TextDecoder().decode(answer?.body),
        `answer /slow/${name}`,
      );
    }
  } finally {
    for (const client of clients) client.close();
    for (const name of ["busy", "x", "y", "z"]) release(name);
    await guard.shutdown();
  }
});

Deno.test("failed accepts: logged at most once a second, the longest-waiting connection closed, accepting resumes", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  // The first accept works; later ones wait for `begin_failing`, then fail
  // as if descriptors had run out until `failing_until`.
  const { promise: failing_begun, resolve: begin_failing } = Promise
    .withResolvers<void>();
  let failing_until = 0;
  let accepts = 0;
  let failures = 0;
  const failing = {
    addr: listener.addr,
    async accept(): Promise<Deno.TcpConn> {
      accepts += 1;
      if (accepts > 1) await failing_begun;
      if (Date.now() < failing_until) {
        failures += 1;
        throw new Error("Too many open files (os error 24)");
      }
      return await listener.accept();
    },
    close: () => listener.close(),
  } as unknown as Deno.Listener<Deno.TcpConn>;
  const logged: { at: number; message: string }[] = [];
  const { guard, port } = start({
    listener: failing,
    log_error: (message) => logged.push({ at: Date.now(), message }),
  });
  const idle = await RawConnection.open(port);
  try {
    await idle.send(GET("/a"));
    assertEquals((await idle.answer())?.status, 200);
    const started = Date.now();
    failing_until = started + 2_500;
    begin_failing();
    assert(await idle.closed_within(2_000), "idle connection kept");
    // A client that connects meanwhile waits in the kernel's queue.
    const late = await RawConnection.open(port);
    await late.send(GET("/late"));
    const answer = await late.answer(10_000);
    late.close();
    assertEquals(answer?.status, 200);
    assert(Date.now() - started >= 2_000);
    // Back-off: 10 ms doubling to 1 s, so a handful of tries in 2.5 s.
    assert(failures >= 5 && failures <= 12, `${failures} failed accepts`);
    assert(logged.length >= 2 && logged.length <= 3, JSON.stringify(logged));
    for (let index = 1; index < logged.length; index++) {
      assert(logged[index].at - logged[index - 1].at >= 1_000);
    }
    assert(/Too many open files/.test(logged[0].message));
    assert(/more since the last report/.test(logged[1].message));
  } finally {
    idle.close();
    await guard.shutdown();
  }
});

Deno.test("shutdown: requests already received are answered with Connection: close, idle connections closed", async () => {
  const { guard, port, holding, release } = start();
  const busy = await RawConnection.open(port);
  const idle = await RawConnection.open(port);
  const late = await RawConnection.open(port);
  const silent = await RawConnection.open(port);
  try {
    await busy.send(GET("/slow/busy"));
    await holding("busy");
    for (const client of [idle, late]) {
      await client.send(GET("/a"));
      assertEquals((await client.answer())?.status, 200);
    }
    const started = Date.now();
    const stopped = guard.shutdown();
    // No new connections once shutdown began.
    await sleep(20);
    const refused = await RawConnection.open(port).then(
      (client) => (client.close(), false),
      () => true,
    );
    assert(refused, "a new connection was accepted during shutdown");
    // A keep-alive client's next request, sent just after shutdown began.
    await late.send(GET("/b"));
    const late_answer = await late.answer();
    assertEquals(late_answer?.status, 200);
    assertEquals(late_answer?.headers.get("connection"), "close");
    assert(await late.closed_within(1_000));
    // The request in flight is finished, with Connection: close.
    release("busy");
    const busy_answer = await busy.answer();
    assertEquals(busy_answer?.status, 200);
    assertEquals(busy_answer?.headers.get("connection"), "close");
    assert(await busy.closed_within(1_000));
    // Connections that send nothing are closed shortly after.
    for (const client of [idle, silent]) {
      assert(await client.closed_within(DRAIN_WAIT_MS + 2_000));
    }
    await stopped;
    assert(Date.now() - started < DRAIN_WAIT_MS + 2_000);
    assertEquals(guard.open_connections, 0);
  } finally {
    for (const client of [busy, idle, late, silent]) client.close();
    release("busy");
    await guard.shutdown();
  }
});
