/**
 * Why the service cannot listen on `HOST:PORT`, told to the operator in one
 * line with what to change, instead of the runtime's error and its stack.
 *
 * @module
 */

// By the runtime's error name: what the operator changes.
const LISTEN_HINTS: Record<string, string> = {
  AddrInUse:
    "another process listens there; stop it, or set PORT to a free port",
  AddrNotAvailable:
    "no network interface of this machine has that address; set HOST to one it has (127.0.0.1, or 0.0.0.0 for every interface)",
  PermissionDenied:
    "this user may not listen on that port (ports below 1024 need privileges); set PORT to 1024 or above",
  NotCapable:
    "the process is not allowed to listen (Deno's --allow-net); start it with deno task start",
};

// A name that does not resolve comes as a plain Error with this text.
const LOOKUP_FAILED = /failed to lookup address/i;

/** Thrown by the server's start when it cannot listen; the message says why and what to change. */
export class ListenError extends Error {
  constructor(host: string, port: number, cause: unknown) {
    super(
      `Cannot listen on ${host}:${port}: ${reason_of(cause)}`,
      { cause },
    );
    this.name = "ListenError";
  }
}

function reason_of(cause: unknown): string {
  const name = cause instanceof Error ? cause.name : "";
  const message = cause instanceof Error ? cause.message : String(cause);
  const hint = LISTEN_HINTS[name] ??
    (LOOKUP_FAILED.test(message)
      ? "HOST is neither an address nor a name this machine resolves; set HOST to an address (127.0.0.1, or 0.0.0.0 for every interface)"
      : undefined);
  return hint ? `${message}; ${hint}` : message;
}
