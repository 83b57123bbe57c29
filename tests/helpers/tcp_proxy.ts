/**
 * A loopback TCP proxy that can be stopped and restarted on the same port,
 * to simulate a database outage without touching the shared server.
 *
 * @module
 */

/** A running (or stopped) proxy. */
export interface TcpProxy {
  /** Port the proxy listens on (kept across restarts). */
  port: number;
  /** Closes the listener and every proxied connection. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): void;
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
  let port = 0;

  async function pipe(from: Deno.Conn, to: Deno.Conn): Promise<void> {
    const buffer = new Uint8Array(64 * 1024);
    try {
      while (true) {
        const n = await from.read(buffer);
        if (n === null) break;
        let written = 0;
        while (written < n) {
          written += await to.write(buffer.subarray(written, n));
        }
      }
    } catch {
      // Either side closed: the other is closed below.
    }
    for (const conn of [from, to]) {
      if (conns.delete(conn)) {
        try {
          conn.close();
        } catch {
          // Already closed.
        }
      }
    }
  }

  function track(promise: Promise<void>): void {
    pipes.add(promise);
    promise.finally(() => pipes.delete(promise));
  }

  async function accept_loop(current: Deno.Listener): Promise<void> {
    for await (const client of current) {
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
    listener = Deno.listen({ hostname: "127.0.0.1", port });
    port = (listener.addr as Deno.NetAddr).port;
    accepting = accept_loop(listener).catch(() => {});
  }

  async function stop(): Promise<void> {
    listener?.close();
    listener = undefined;
    await accepting;
    for (const conn of conns) {
      try {
        conn.close();
      } catch {
        // Already closed.
      }
    }
    conns.clear();
    await Promise.all([...pipes]);
  }

  start();
  return {
    get port() {
      return port;
    },
    stop,
    start,
  };
}
