/**
 * Closes connections that sit idle between requests or send their request
 * headers too slowly.
 *
 * `Deno.serve` (Deno 2.9) has no idle or header timeout, and it does not let
 * us accept connections ourselves. So the public port is a thin relay: each
 * client connection is paired with a loopback connection to `Deno.serve`, and
 * bytes are copied both ways without being parsed (HTTP framing stays with
 * `Deno.serve`, so the two can never disagree about where a request ends).
 * The handler tells the relay when a request starts and when its response
 * has been delivered; the relay keeps a timer only while no request is being
 * handled:
 *
 * - from the connection's first moment, or the first byte after a finished
 *   response, until `Deno.serve` has read the whole head: `header_timeout_ms`;
 * - from a delivered response until the next byte arrives:
 *   `keep_alive_timeout_ms`.
 *
 * While a request is being handled there is no timer here: slow bodies have
 * their own 408 (`BODY_TIMEOUT_MS`) and renders `RENDER_TIMEOUT_MS`.
 *
 * @module
 */

/** Timeouts of {@link start_connection_guard}. */
export interface ConnectionGuardOptions {
  /** Public address to listen on. */
  hostname: string;
  /** Public port (0 picks a free one). */
  port: number;
  /** Longest a request head may take to arrive, in ms; 0: no limit. */
  header_timeout_ms: number;
  /** Longest a connection may sit idle between requests, in ms; 0: no limit. */
  keep_alive_timeout_ms: number;
}

/** The handler `Deno.serve` runs behind the guard. */
export type GuardedHandler = (
  request: Request,
  info: { remoteAddr: Deno.Addr },
) => Response | Promise<Response>;

/** A running guard with the server behind it. */
export interface ConnectionGuard {
  /** The public address. */
  address: Deno.NetAddr;
  /** Stops accepting, lets in-flight requests finish, closes every connection. */
  shutdown(): Promise<void>;
}

const BUFFER_BYTES = 32 * 1024;

/** What a connection is waiting for while no request is being handled. */
type Waiting = "head" | "next_request" | "response";

/** One client connection and its loopback twin. */
class GuardedConnection {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #waiting: Waiting = "head";
  #active = 0;
  #closed = false;
  // Client bytes since the last answer was delivered (or since opening).
  #heard = false;
  #draining = false;

  constructor(
    readonly client: Deno.TcpConn,
    readonly upstream: Deno.TcpConn,
    readonly options: ConnectionGuardOptions,
    readonly on_close: () => void,
  ) {
    // A connection that never sends a complete head is cut like a slow one.
    this.#wait("head", options.header_timeout_ms);
  }

  /** `Deno.serve` has read a request head on this connection. */
  request_started(): void {
    this.#active += 1;
    this.#wait("response", undefined);
  }

  /** A response on this connection has been delivered (or given up). */
  request_finished(): void {
    this.#active -= 1;
    if (this.#active === 0) {
      this.#heard = false;
      this.#wait("next_request", this.options.keep_alive_timeout_ms);
      if (this.#draining) this.#end_requests();
    }
  }

  /**
   * Shutting down: no new request on this connection. An idle one ends now;
   * a busy one, or one whose next request is already arriving, once that
   * answer is delivered.
   */
  drain(): void {
    this.#draining = true;
    if (this.#active === 0 && !this.#heard) this.#end_requests();
  }

  // `Deno.serve` reads end-of-stream, finishes what it is writing and
  // closes; the relay forwards the rest of the answer and then closes too.
  #end_requests(): void {
    if (this.#upstream_write_ended) return;
    this.#upstream_write_ended = true;
    this.upstream.closeWrite().catch(() => this.close());
  }

  #upstream_write_ended = false;

  /** Bytes came from the client. */
  client_sent(): void {
    this.#heard = true;
    // The first byte after an idle spell starts the head clock; later bytes
    // do not restart it, so a head sent a byte at a time is still cut.
    if (this.#waiting === "next_request") {
      this.#wait("head", this.options.header_timeout_ms);
    }
  }

  #wait(waiting: Waiting, timeout_ms: number | undefined): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#waiting = waiting;
    if (timeout_ms && !this.#closed) {
      this.#timer = setTimeout(() => this.close(), timeout_ms);
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#wait("response", undefined);
    for (const conn of [this.client, this.upstream]) {
      try {
        conn.close();
      } catch {
        // Already closed by the other direction.
      }
    }
    this.on_close();
  }

  /** Copies client → server; a client that half-closes still gets its answers. */
  async pump_in(): Promise<void> {
    const buffer = new Uint8Array(BUFFER_BYTES);
    try {
      while (true) {
        const read = await this.client.read(buffer);
        if (read === null) break;
        this.client_sent();
        // Past shutdown's end of requests, new bytes are not forwarded; the
        // answer still on its way out is not cut for them.
        if (this.#upstream_write_ended) continue;
        try {
          await write_all(this.upstream, buffer.subarray(0, read));
        } catch {
          // The server stopped reading (e.g. it refused oversized headers):
          // its answer is still forwarded by pump_out, which then closes.
          this.#upstream_write_ended = true;
        }
      }
      this.#end_requests();
    } catch {
      this.close();
    }
  }

  /** Copies server → client; the server closing ends the pair. */
  async pump_out(): Promise<void> {
    const buffer = new Uint8Array(BUFFER_BYTES);
    try {
      while (true) {
        const read = await this.upstream.read(buffer);
        if (read === null) break;
        await write_all(this.client, buffer.subarray(0, read));
      }
    } catch {
      // Either side went away: close both.
    }
    this.close();
  }
}

async function write_all(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    written += await conn.write(bytes.subarray(written));
  }
}

/**
 * Starts `Deno.serve` on a private loopback port with `handler`, and the
 * guard on the public address in front of it. The handler sees each
 * request's real client address.
 */
export async function start_connection_guard(
  handler: GuardedHandler,
  options: ConnectionGuardOptions,
): Promise<ConnectionGuard> {
  if (!options.header_timeout_ms && !options.keep_alive_timeout_ms) {
    return await serve_unguarded(handler, options);
  }
  // Keyed by the local port of our loopback connection, which is the remote
  // port `Deno.serve` reports for the request.
  const connections = new Map<number, GuardedConnection>();
  const pumps = new Set<Promise<void>>();
  const accepts = new Set<Promise<void>>();
  const { promise: listening, resolve } = Promise.withResolvers<
    Deno.NetAddr
  >();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: (address) => resolve(address as Deno.NetAddr),
  }, (request, info) => {
    const remote = info.remoteAddr;
    const guarded = connections.get(remote.port);
    if (!guarded) return handler(request, { remoteAddr: remote });
    guarded.request_started();
    info.completed.then(
      () => guarded.request_finished(),
      () => guarded.request_finished(),
    );
    return handler(request, { remoteAddr: guarded.client.remoteAddr });
  });
  const upstream_address = await listening;
  const listener = Deno.listen({
    hostname: options.hostname,
    port: options.port,
  });
  const accepting = (async () => {
    for await (const client of listener) {
      const accepted = accept(client).catch(() => client.close());
      accepts.add(accepted);
      accepted.finally(() => accepts.delete(accepted));
    }
  })().catch(() => {
    // The listener was closed by shutdown.
  });

  async function accept(client: Deno.TcpConn): Promise<void> {
    client.setNoDelay(true);
    const upstream = await Deno.connect({
      hostname: upstream_address.hostname,
      port: upstream_address.port,
    });
    upstream.setNoDelay(true);
    const port = (upstream.localAddr as Deno.NetAddr).port;
    const guarded = new GuardedConnection(
      client,
      upstream,
      options,
      () => connections.delete(port),
    );
    connections.set(port, guarded);
    for (const pump of [guarded.pump_in(), guarded.pump_out()]) {
      pumps.add(pump);
      pump.finally(() => pumps.delete(pump));
    }
  }

  return {
    address: listener.addr,
    async shutdown() {
      listener.close();
      await accepting;
      await Promise.all(accepts);
      // Every pair ends by itself once its last answer is delivered (or its
      // head times out); only then is the server behind them stopped.
      for (const guarded of connections.values()) guarded.drain();
      await Promise.all(pumps);
      await server.shutdown();
    },
  };
}

// Both timeouts off (a load balancer in front enforces them): `Deno.serve`
// on the public address itself, without the relay's cost per request.
async function serve_unguarded(
  handler: GuardedHandler,
  options: ConnectionGuardOptions,
): Promise<ConnectionGuard> {
  const { promise: listening, resolve } = Promise.withResolvers<
    Deno.NetAddr
  >();
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: (address) => resolve(address as Deno.NetAddr),
  }, (request, info) => handler(request, { remoteAddr: info.remoteAddr }));
  return {
    address: await listening,
    shutdown: () => server.shutdown(),
  };
}
