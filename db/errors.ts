/**
 * What a database error means for the caller: unreachable (answer 503 and
 * let the client retry) or a real query error.
 *
 * @module
 */

/** Thrown when the database cannot be reached (the server should answer 503). */
export class DatabaseUnavailableError extends Error {
  /**
   * What a client may be told about the outage, when there is more to say
   * than "temporarily unavailable" (e.g. the disk is full).
   */
  readonly public_message?: string;

  /** Wraps the driver's error as `cause`. */
  constructor(
    message: string,
    options?: { cause?: unknown; public_message?: string },
  ) {
    super(message, options);
    this.name = "DatabaseUnavailableError";
    this.public_message = options?.public_message;
  }
}

// Node/Deno socket errors and postgres.js's own connection error codes.
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  // SQLSTATEs: admin/crash shutdown, starting up, too many connections,
  // disk full, and statement_timeout / cancel: a query stuck past
  // DATABASE_STATEMENT_TIMEOUT_MS means the database is not serving, so
  // callers should answer 503.
  "57014",
  "53100",
  "57P01",
  "57P02",
  "57P03",
  "53300",
]);

const UNAVAILABLE_MESSAGE =
  /connection (terminated|refused|reset|closed|ended)|connect_timeout|timed? ?out|server closed the connection|the database system is (starting up|shutting down)/i;

const UNAVAILABLE_ERROR_NAMES = new Set([
  "ConnectionRefused",
  "ConnectionReset",
  "ConnectionAborted",
  "NotConnected",
  "TimedOut",
  "BrokenPipe",
]);

/** The fields of an error (ours, the driver's, the runtime's) read here. */
interface ErrorFields {
  code?: unknown;
  errno?: unknown;
  name?: unknown;
  message?: unknown;
  severity?: unknown;
  cause?: unknown;
}

/**
 * `error` and the errors of its `cause` chain (e.g. inside drizzle's
 * DrizzleQueryError), while they are objects; at most eight, so a cycle
 * ends too.
 */
function* cause_chain(error: unknown): Generator<ErrorFields> {
  let current = error;
  for (
    let depth = 0;
    depth < 8 && typeof current === "object" && current !== null;
    depth++
  ) {
    yield current as ErrorFields;
    current = (current as ErrorFields).cause;
  }
}

/**
 * True when `error` (or any error in its `cause` chain) means the database
 * is unreachable rather than that the query was wrong.
 */
export function is_database_unavailable(error: unknown): boolean {
  for (const e of cause_chain(error)) {
    if (e instanceof DatabaseUnavailableError) return true;
    const code = typeof e.code === "string" ? e.code : undefined;
    if (code !== undefined) {
      if (UNAVAILABLE_CODES.has(code)) return true;
      // SQLSTATE class 08: connection exception.
      if (/^08[0-9A-Z]{3}$/.test(code)) return true;
    }
    if (typeof e.errno === "string" && UNAVAILABLE_CODES.has(e.errno)) {
      return true;
    }
    if (typeof e.name === "string" && UNAVAILABLE_ERROR_NAMES.has(e.name)) {
      return true;
    }
    // Only trust the message for errors that carry no SQLSTATE: a query error
    // whose text happens to say "timeout" is not an outage.
    if (
      code === undefined && typeof e.message === "string" &&
      UNAVAILABLE_MESSAGE.test(e.message)
    ) {
      return true;
    }
  }
  return false;
}

/**
 * The client-facing message of the `DatabaseUnavailableError` in `error`'s
 * `cause` chain, if it has one.
 */
export function unavailable_public_message(error: unknown): string | undefined {
  for (const e of cause_chain(error)) {
    if (e instanceof DatabaseUnavailableError && e.public_message) {
      return e.public_message;
    }
  }
  return undefined;
}

// Unavailable, but answered by a server whose connections work: a statement
// cancelled by statement_timeout, a full disk.
const ANSWERED_CODES = new Set(["57014", "53100"]);

/**
 * True when `error` says the connection to the database failed (refused,
 * reset, timed out, closed, the server shutting down or out of
 * connections): a sign of an outage that opens the circuit breaker. A
 * statement timeout or a full disk is not one.
 */
export function is_connection_failure(error: unknown): boolean {
  for (const { code } of cause_chain(error)) {
    if (typeof code === "string" && ANSWERED_CODES.has(code)) return false;
  }
  return is_database_unavailable(error);
}

/** True when `error` says a write failed for want of disk space. */
export function is_disk_full(error: unknown): boolean {
  for (const e of cause_chain(error)) {
    if (e.code === "53100" || e.code === "ENOSPC") return true;
    if (
      typeof e.message === "string" &&
      /no space left on device/i.test(e.message)
    ) {
      return true;
    }
  }
  return false;
}

/**
 * Thrown when PGlite's data directory cannot be created or used; the
 * message says why and what to change (`hint`, by default: another
 * directory).
 */
export class DataDirError extends Error {
  constructor(
    data_dir: string,
    cause: unknown,
    hint = "set DATA_DIR to a directory this user can create and write",
  ) {
    super(
      `DATA_DIR ${data_dir} cannot be used: ${
        cause instanceof Error ? cause.message : String(cause)
      }; ${hint}`,
      { cause },
    );
    this.name = "DataDirError";
  }
}

/** A database server's refusal: its SQLSTATE, its words and what fixes it. */
export interface DatabaseRefusal {
  code: string;
  message: string;
  /** What the operator can change, when the SQLSTATE says. */
  hint?: string;
}

// What an operator changes for the refusals that stop a start: the URL's
// database, user, password or settings, or the user's rights (the
// migrations create tables).
const REFUSAL_HINTS: Record<string, string> = {
  "3D000": "create that database, or name an existing one in DATABASE_URL",
  "28P01": "check the user and password in DATABASE_URL",
  "28000": "check the user in DATABASE_URL and the server's pg_hba.conf",
  "42501":
    "the user in DATABASE_URL needs the right to create schemas and tables in its database, as its owner has (the migrations run at start)",
  "42704": "remove the unknown setting from DATABASE_URL's query",
  "22023": "correct the setting's value in DATABASE_URL's query",
  "53300":
    "the server has no connection left: raise its max_connections, or run fewer instances against it",
};

/**
 * The error a database server answered with, found in `error`'s `cause`
 * chain (postgres.js's `PostgresError` and PGlite's errors both carry a
 * SQLSTATE `code` and a `severity`); undefined for errors of the client
 * side (a socket, a timeout, a bug).
 */
export function database_refusal_of(
  error: unknown,
): DatabaseRefusal | undefined {
  for (const e of cause_chain(error)) {
    if (
      typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code) &&
      typeof e.severity === "string" && typeof e.message === "string"
    ) {
      return { code: e.code, message: e.message, hint: REFUSAL_HINTS[e.code] };
    }
  }
  return undefined;
}

/**
 * What an operator reads when opening the database fails for a reason
 * outside the service: the server's refusal first (its words say more than
 * "unreachable"), else the outage; undefined for anything else (a bug).
 * `database_url` is the one opened (PostgreSQL), absent for PGlite.
 */
export function database_open_failure(
  error: unknown,
  database_url: string | undefined,
): string | undefined {
  const engine = database_url ? "PostgreSQL" : "PGlite";
  if (error instanceof DataDirError) return error.message;
  const refusal = database_refusal_of(error);
  if (refusal) {
    return `${engine} refused: ${refusal.message} (SQLSTATE ${refusal.code})${
      refusal.hint ? `; ${refusal.hint}` : ""
    }`;
  }
  if (is_database_unavailable(error)) return with_causes(error as Error);
  return undefined;
}

// An error's message followed by its causes' (which name the address and
// what the socket said: "connect ECONNREFUSED 127.0.0.1:5432").
function with_causes(error: Error): string {
  const messages: string[] = [];
  for (const { message } of cause_chain(error)) {
    if (typeof message === "string" && message && !messages.includes(message)) {
      messages.push(message);
    }
  }
  return messages.join(": ");
}
