/**
 * A loopback TCP proxy that can be stopped and restarted on the same port,
 * to simulate a database outage without touching the shared server. Two
 * kinds of outage: `stop()` refuses connections (the listener is closed and
 * every proxied connection cut); `stall()` holds every connection open,
 * old and new, and forwards nothing (a network that drops packets).
 *
 * @module
 */

/** A running (or stopped) proxy. */
export interface TcpProxy {
  /** Port the proxy listens on (kept across restarts). */
  port: number;
  /** Closes the listener and every proxied or held connection. */
  stop(): Promise<void>;
  /** Listens again on the same port (after `stop`), forwarding new connections. */
  start(): void;
  /**
   * From now on forwards nothing: connections already open stay open but
   * silent, new ones are accepted and held without reaching the target.
   */
  stall(): void;
  /**
   * Forwards new connections again. The connections held during the stall
   * stay silent until `stop()`, as if the network had lost them.
   */
  resume(): void;
}

/** Starts a proxy on 127.0.0.1 forwarding to `target_host:target_port`. */
export function start_tcp_proxy(
  target_host: string,
  target_port: number,
): TcpProxy {
  let listener: Deno.Listener | undefined;
  let accepting: Promise<void> = Promise.resolve();
  const conns = new Set<Deno.Conn>();
  const pipes = new Set<Promise<void>>();
  // Connections that forward nothing any more (opened before or during a stall).
  const silenced = new Set<Deno.Conn>();
  let stalled = false;
  let port = 0;

  function close_quietly(conn: Deno.Conn): void {
    try {
      conn.close();
    } catch {
      // Already closed.
    }
  }

  async function pipe(from: Deno.Conn, to: Deno.Conn): Promise<void> {
    const buffer = new Uint8Array(64 * 1024);
    try {
      while (true) {
        const n = await from.read(buffer);
        if (n === null) break;
        // A silenced connection swallows what it reads: nothing is forwarded.
        if (silenced.has(from)) continue;
        let written = 0;
        while (written < n) {
          written += await to.write(buffer.subarray(written, n));
        }
      }
    } catch {
      // Either side closed: the other is closed below.
    }
    for (const conn of [from, to]) {
      silenced.delete(conn);
      if (conns.delete(conn)) close_quietly(conn);
    }
  }

  function track(promise: Promise<void>): void {
    pipes.add(promise);
    promise.finally(() => pipes.delete(promise));
  }

  // A connection accepted during a stall: held open, read and ignored.
  async function hold(client: Deno.Conn): Promise<void> {
    const buffer = new Uint8Array(16 * 1024);
    try {
      while ((await client.read(buffer)) !== null) {
        // Swallowed.
      }
    } catch {
      // Closed by stop().
    }
    silenced.delete(client);
    if (conns.delete(client)) close_quietly(client);
  }

  async function accept_loop(current: Deno.Listener): Promise<void> {
    for await (const client of current) {
      if (stalled) {
        conns.add(client);
        silenced.add(client);
        track(hold(client));
        continue;
      }
      let upstream: Deno.Conn;
      try {
        upstream = await Deno.connect({
          hostname: target_host,
          port: target_port,
        });
      } catch {
        client.close();
        continue;
      }
      conns.add(client);
      conns.add(upstream);
      track(pipe(client, upstream));
      track(pipe(upstream, client));
    }
  }

  function start(): void {
    stalled = false;
    listener = Deno.listen({ hostname: "127.0.0.1", port });
    port = (listener.addr as Deno.NetAddr).port;
    accepting = accept_loop(listener).catch(() => {});
  }

  async function stop(): Promise<void> {
    listener?.close();
    listener = undefined;
    await accepting;
    for (const conn of conns) close_quietly(conn);
    conns.clear();
    silenced.clear();
    await Promise.all([...pipes]);
  }

  function stall(): void {
    stalled = true;
    for (const conn of conns) silenced.add(conn);
  }

  function resume(): void {
    stalled = false;
  }

  start();
  return {
    get port() {
      return port;
    },
    stop,
    start,
    stall,
    resume,
  };
}
