// Calls the service's tRPC procedures with plain fetch, following tRPC's HTTP
// JSON protocol (no transformer): queries are GET /trpc/<name>, mutations are
// POST /trpc/<name> with the input as the JSON body. The dashboard has no
// second implementation of anything: these are the procedures every other
// client uses.

/** A failed call, in the service's terms. */
export class ApiFailure extends Error {
  /**
   * @param {number} status HTTP status (0 when the server was not reached)
   * @param {string} code the service's error code, e.g. "invalid_request"
   * @param {string} message what is wrong
   * @param {{path: string, message: string}[]} details per-field problems
   * @param {number} [retry_after] seconds to wait (the Retry-After header)
   */
  constructor(status, code, message, details, retry_after) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.retry_after = retry_after;
  }
}

/**
 * Reads an answer: tRPC's envelope (`{result: {data}}` or `{error: {message,
 * data: {code, details}}}`) or the service's own error shape
 * (`{error: {code, message, details}}`), which the HTTP layer uses for
 * refusals that happen before a procedure runs (e.g. a CSRF check).
 * @param {Response} response
 * @returns {Promise<any>}
 */
export async function read_answer(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON: handled below with the status alone.
  }
  if (response.ok && body && typeof body === "object" && "result" in body) {
    return body.result.data;
  }
  const error = body && typeof body === "object" ? body.error : undefined;
  const data = error?.data;
  const code = typeof data?.code === "string"
    ? data.code
    : typeof error?.code === "string"
    ? error.code
    : "internal";
  const retry_after = response.headers.get("retry-after");
  const details = Array.isArray(data?.details)
    ? data.details
    : Array.isArray(error?.details)
    ? error.details
    : [];
  throw new ApiFailure(
    response.status,
    code,
    typeof error?.message === "string"
      ? error.message
      : `The request failed (HTTP ${response.status})`,
    details,
    /^\d+$/.test(retry_after ?? "") ? Number(retry_after) : undefined,
  );
}

/**
 * fetch, with network failures turned into an ApiFailure.
 * @param {string} url
 * @param {RequestInit} init
 * @returns {Promise<Response>}
 */
export async function request(url, init = {}) {
  try {
    return await fetch(url, { credentials: "same-origin", ...init });
  } catch {
    throw new ApiFailure(
      0,
      "network",
      "Could not reach the server. Check your connection and try again.",
      [],
    );
  }
}

/**
 * Runs a query procedure.
 * @param {string} procedure e.g. "account.list_keys"
 * @returns {Promise<any>}
 */
export async function query(procedure) {
  const response = await request(`/trpc/${procedure}`, {
    headers: { Accept: "application/json" },
  });
  return await read_answer(response);
}

/** @type {Promise<{account: any, csrf_token: string | null}> | undefined} */
let session_promise;

/**
 * Who is signed in, and the CSRF token writes must echo (fetched once).
 * @returns {Promise<{account: any, csrf_token: string | null}>}
 */
export function load_session() {
  session_promise ??= query("auth.session").catch((error) => {
    session_promise = undefined;
    throw error;
  });
  return session_promise;
}

/**
 * Headers for a state-changing request of this session.
 * @returns {Promise<Record<string, string>>}
 */
export async function write_headers() {
  const { csrf_token } = await load_session();
  return csrf_token ? { "X-CSRF-Token": csrf_token } : {};
}

/**
 * Runs a mutation procedure.
 * @param {string} procedure e.g. "account.create_key"
 * @param {unknown} [input]
 * @returns {Promise<any>}
 */
export async function mutate(procedure, input) {
  const response = await request(`/trpc/${procedure}`, {
    method: "POST",
    headers: {
      Accept: "application/json",
      "Content-Type": "application/json",
      ...await write_headers(),
    },
    body: input === undefined ? undefined : JSON.stringify(input),
  });
  return await read_answer(response);
}
