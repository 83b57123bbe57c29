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
 * has been delivered; the relay keeps a deadline only while no request is
 * being handled:
 *
 * - from the connection's first moment, or the first byte after a finished
 *   response, until `Deno.serve` has read the whole head: `header_timeout_ms`;
 * - from a delivered response until the next byte arrives:
 *   `keep_alive_timeout_ms`.
 *
 * While a request is being handled there is no deadline here: slow bodies
 * have their own 408 (`BODY_TIMEOUT_MS`) and renders `RENDER_TIMEOUT_MS`.
 * Deadlines are checked a tenth of the shorter timeout apart, at most a
 * second, so a connection is cut up to that much after its deadline.
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

// Each direction of a connection keeps only a small buffer of its own: it is
// what a read waits in while the connection is idle, which is most of its
// life. A read that fills it means more bytes are already waiting; those are
// read into a larger buffer lent from a pool shared by all connections and
// handed back as soon as a read comes back short. A connection thus holds a
// large buffer only while bytes stream through it (or while a sender stalls
// mid-message), not for its whole life. The small sizes fit a typical
// request (a few KB) and a typical answer (an invoice PDF of ~16 KB with its
// head) in one read each.
const SMALL_IN_BYTES = 4 * 1024;
const SMALL_OUT_BYTES = 20 * 1024;
const LARGE_BUFFER_BYTES = 32 * 1024;
// Large buffers kept for reuse (at most 2 MiB); more are made when all are
// lent out, and dropped again when they come back.
const POOL_KEEPS = 64;
type Buffer = Uint8Array<ArrayBuffer>;
const large_buffers: Buffer[] = [];

function borrow_large_buffer(): Buffer {
  return large_buffers.pop() ?? new Uint8Array(LARGE_BUFFER_BYTES);
}

function return_large_buffer(buffer: Buffer): void {
  if (large_buffers.length < POOL_KEEPS) large_buffers.push(buffer);
}

/** What a connection is waiting for while no request is being handled. */
type Waiting = "head" | "next_request" | "response";

/** One client connection and its loopback twin. */
class GuardedConnection {
  // When the connection is cut unless something happens first (ms since
  // the epoch); 0: not timed. Checked by the guard's sweep.
  #deadline = 0;
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

  // A deadline instead of a timer per wait: setting and clearing a timer
  // twice per request cost more than the rest of the bookkeeping.
  #wait(waiting: Waiting, timeout_ms: number | undefined): void {
    this.#waiting = waiting;
    this.#deadline = timeout_ms && !this.#closed ? Date.now() + timeout_ms : 0;
  }

  /** Closes the connection if its deadline has passed. */
  close_if_overdue(now: number): void {
    if (this.#deadline !== 0 && now >= this.#deadline) this.close();
  }

  /** {@link request_finished} for `info.completed` (one function per connection, not two per request). */
  readonly finished = (): void => this.request_finished();

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
    const small = new Uint8Array(SMALL_IN_BYTES);
    let buffer = small;
    try {
      while (true) {
        const read = await this.client.read(buffer);
        if (read === null) break;
        this.client_sent();
        // Past shutdown's end of requests, new bytes are not forwarded; the
        // answer still on its way out is not cut for them.
        if (!this.#upstream_write_ended) {
          try {
            const written = await this.upstream.write(whole(buffer, read));
            if (written < read) {
              await write_rest(this.upstream, buffer, written, read);
            }
          } catch {
            // The server stopped reading (e.g. it refused oversized headers):
            // its answer is still forwarded by pump_out, which then closes.
            this.#upstream_write_ended = true;
          }
        }
        buffer = next_buffer(buffer, read, small);
      }
      this.#end_requests();
    } catch {
      this.close();
    } finally {
      if (buffer !== small) return_large_buffer(buffer);
    }
  }

  /** Copies server → client; the server closing ends the pair. */
  async pump_out(): Promise<void> {
    const small = new Uint8Array(SMALL_OUT_BYTES);
    let buffer = small;
    try {
      while (true) {
        const read = await this.upstream.read(buffer);
        if (read === null) break;
        const written = await this.client.write(whole(buffer, read));
        if (written < read) {
          await write_rest(this.client, buffer, written, read);
        }
        buffer = next_buffer(buffer, read, small);
      }
    } catch {
      // Either side went away: close both.
    } finally {
      if (buffer !== small) return_large_buffer(buffer);
    }
    this.close();
  }
}

/**
 * The buffer for a pump's next read, after `read` bytes came into `buffer`
 * and were written on: a read that filled it means more is waiting, so the
 * next one goes into a large buffer; a short one means the sender paused, so
 * a large buffer goes back to the pool and the wait is in the small one.
 * (Everything read is written on before the next read, so no byte is held
 * back while a read waits.)
 */
function next_buffer(
  buffer: Buffer,
  read: number,
  small: Buffer,
): Buffer {
  if (read === buffer.length) {
    return buffer === small ? borrow_large_buffer() : buffer;
  }
  if (buffer !== small) return_large_buffer(buffer);
  return small;
}

/** The first `length` bytes of `buffer` (no new view when that is all of it). */
function whole(buffer: Buffer, length: number): Buffer {
  return length === buffer.length ? buffer : buffer.subarray(0, length);
}

/** Writes bytes `written` to `length` of `buffer` (after a short write). */
async function write_rest(
  conn: Deno.Conn,
  buffer: Buffer,
  written: number,
  length: number,
): Promise<void> {
  while (written < length) {
    written += await conn.write(buffer.subarray(written, length));
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
    info.completed.then(guarded.finished, guarded.finished);
    return handler(request, { remoteAddr: guarded.client.remoteAddr });
  });
  const upstream_address = await listening;
  const listener = Deno.listen({
    hostname: options.hostname,
    port: options.port,
  });
  // Deadlines are checked a tenth of the shorter timeout apart (at most a
  // second), so a connection is cut at most that much after its deadline.
  const shorter = Math.min(
    ...[options.header_timeout_ms, options.keep_alive_timeout_ms].filter(
      (timeout) => timeout > 0,
    ),
  );
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const guarded of connections.values()) guarded.close_if_overdue(now);
  }, Math.max(10, Math.min(1_000, Math.floor(shorter / 10))));
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
      clearInterval(sweep);
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
