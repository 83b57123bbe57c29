/**
 * Serves HTTP on one connection the service accepted itself, with the HTTP
 * server inside `Deno.serve` (hyper).
 *
 * `Deno.serve` only serves a listener it accepts from, so the service could
 * neither count, cap nor time out connections. Deno keeps a function that
 * serves a single accepted connection (`serveHttpOnConnection`, used by its
 * own `node:http2`), reachable only through `Deno[Deno.internal]`. This is
 * the one module that touches it; `tests/http/deno_http_connection.test.ts` pins
 * the Deno versions it was verified on and the behaviour relied on here:
 * requests are parsed and framed exactly as `Deno.serve` does, the
 * connection's descriptor is the only one it holds, aborting closes it at
 * once and a graceful close lets the answer in flight finish first.
 *
 * @module
 */

/** Deno versions this module was verified on (see the module doc). */
export const VERIFIED_DENO_VERSIONS: readonly string[] = ["2.9.6"];

/** What the handler gets besides the request. */
export interface ConnectionRequestInfo {
  /** The client's address (the TCP peer). */
  remoteAddr: Deno.Addr;
  /** Settles once the response has been written out whole (rejects if it was not). */
  completed: Promise<void>;
}

/** A request handler, as for `Deno.serve`. */
export type ConnectionHandler = (
  request: Request,
  info: ConnectionRequestInfo,
) => Response | Promise<Response>;

/** One connection being served. */
export interface ServedConnection {
  /** Resolves once the connection is closed, by either side. */
  finished: Promise<void>;
  /**
   * No further requests: the answer in flight, if any, is written out,
   * then the connection closes. There is no cutting it short afterwards.
   */
  close_after_response(): void;
  /**
   * Closes at once; a request in flight gets no answer, and an answer
   * handed over moments ago may not have been written out yet. Does
   * nothing after {@link close_after_response}.
   */
  close(): void;
}

interface DenoServer {
  finished: Promise<void>;
  shutdown(): Promise<void>;
}

type ServeHttpOnConnection = (
  connection: Deno.Conn,
  signal: AbortSignal,
  handler: (
    request: Request,
    info: { completed: Promise<void> },
  ) => Response | Promise<Response>,
  on_error: (error: unknown) => Response | Promise<Response>,
  on_listen: () => void,
) => DenoServer;

function internal_serve_on_connection(): ServeHttpOnConnection {
  const deno = Deno as unknown as Record<symbol, unknown> & {
    internal?: symbol;
  };
  const internals = deno.internal === undefined
    ? undefined
    : deno[deno.internal] as Record<string, unknown> | undefined;
  const serve = internals?.serveHttpOnConnection;
  if (typeof serve !== "function") {
    throw new Error(
      `Deno ${Deno.version.deno} has no internal serveHttpOnConnection, which ` +
        `serves each accepted connection; run the service on Deno ${
          VERIFIED_DENO_VERSIONS.join(" or ")
        }`,
    );
  }
  return serve as ServeHttpOnConnection;
}

let serve_on_connection: ServeHttpOnConnection | undefined;

/** Fails now, with a clear message, when this Deno cannot serve single connections. */
export function check_connection_serving(): void {
  serve_on_connection ??= internal_serve_on_connection();
}

// Aborting a connection whose server Deno has already released (it closed
// by itself a moment ago, or is closing gracefully) throws BadResource from
// inside Deno's abort listener, which would end the process as an uncaught
// error. Such an error, raised while this module aborts, is dropped: the
// connection is closed or closing either way.
let aborting = false;
let abort_errors_caught = false;

function catch_abort_errors(): void {
  if (abort_errors_caught) return;
  abort_errors_caught = true;
  globalThis.addEventListener("error", (event) => {
    if (aborting && event.error instanceof Deno.errors.BadResource) {
      event.preventDefault();
    }
  });
}

/** What `Deno.serve` answers when a handler throws. */
function internal_server_error(error: unknown): Response {
  console.error(error);
  return new Response("Internal Server Error", { status: 500 });
}

/**
 * Serves HTTP/1.1 on `conn` (already accepted) with `handler` until either
 * side closes it. The connection belongs to the server from now on: close
 * it through the returned object, never with `conn.close()`.
 */
export function serve_connection(
  conn: Deno.TcpConn,
  handler: ConnectionHandler,
): ServedConnection {
  check_connection_serving();
  catch_abort_errors();
  const abort = new AbortController();
  const remoteAddr = conn.remoteAddr;
  const server = serve_on_connection!(
    conn,
    abort.signal,
    (request, info) =>
      handler(request, { remoteAddr, completed: info.completed }),
    internal_server_error,
    () => {},
  );
  let graceful = false;
  // Ends with an error when the peer resets the connection: closed all the same.
  const finished = server.finished.then(() => {}, () => {});
  return {
    finished,
    close_after_response() {
      graceful = true;
      server.shutdown().catch(() => {});
    },
    close() {
      if (graceful || abort.signal.aborted) return;
      aborting = true;
      try {
        abort.abort();
      } finally {
        aborting = false;
      }
    },
  };
}
