/**
 * The dashboard's session cookie and the request checks that come with it:
 * resolving the cookie to an account, CSRF protection of every
 * state-changing request, and setting or clearing the cookie.
 *
 * - The cookie holds a random token; the database keeps only its SHA-256
 *   (`db/sessions.ts`). It is `HttpOnly`, `SameSite=Lax`, `Path=/`, expires
 *   with the session, and is `Secure` whenever the request came over HTTPS.
 * - A state-changing request that carries the cookie must echo the session's
 *   CSRF token in `X-CSRF-Token` (the page reads it from `auth.session`).
 * - A state-changing request a browser sent from another site is refused
 *   outright (`Sec-Fetch-Site`, else `Origin`), which also covers sign-in and
 *   sign-up forms, where there is no session yet (login CSRF).
 * - Requests with an `Authorization` header (API keys, the admin token)
 *   never act through the cookie, so API clients need no CSRF token.
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import {
  ApiError,
  type Principal,
  type ResponseSink,
  type SessionControl,
} from "../../contract/mod.ts";
import * as store from "../../db/mod.ts";
import { account_view } from "../views.ts";
import { with_database } from "../with_database.ts";

/** Name of the session cookie. */
export const SESSION_COOKIE = "session";

/** Header that carries the session's CSRF token on state-changing requests. */
export const CSRF_HEADER = "X-CSRF-Token";

/** When the session cookie gets `Secure`: over HTTPS only, or always. */
export type CookieSecure = "auto" | "always";

/** Options of {@link create_sessions}. */
export interface SessionOptions {
  /** Session lifetime in seconds (cookie and server side alike). */
  ttl_seconds: number;
  cookie_secure: CookieSecure;
  now: () => Date;
}

/** Session handling bound to a database. */
export interface Sessions {
  /**
   * The signed-in principal of a request, or null. Throws a 403 for a
   * cross-site state-changing request or a missing or wrong CSRF token.
   */
  resolve_session(request: Request): Promise<Principal | null>;
  /** The per-request handle that sign-in and sign-out procedures use. */
  session_control(request: Request, response: ResponseSink): SessionControl;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
// Tokens are 43 base64url characters; anything else is not worth a query.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{20,128}$/;

/** The value of cookie `name` in a request, if present. */
export function read_cookie(
  request: Request,
  name: string,
): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) {
      return part.slice(index + 1).trim();
    }
  }
  return undefined;
}

/** True when the request reached us, or the TLS-terminating proxy before us, over HTTPS. */
export function is_https(request: Request): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  // Trusting this header can only add `Secure` (and HSTS), never remove it:
  // a client that forges it only breaks its own session on plain HTTP.
  const forwarded = request.headers.get("x-forwarded-proto");
  return forwarded?.split(",")[0].trim().toLowerCase() === "https";
}

function cookie_header(
  value: string,
  options: { max_age: number; secure: boolean },
): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    "Path=/",
    `Max-Age=${options.max_age}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(options.secure ? ["Secure"] : []),
  ].join("; ");
}

/** Refuses a state-changing request that a browser sent from another site. */
function require_same_origin(request: Request): void {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) {
    if (site === "same-origin" || site === "none") return;
    throw cross_site();
  }
  // Older browsers: they send Origin on cross-origin POSTs. Non-browser
  // clients send neither header and cannot be tricked into sending a cookie.
  const origin = request.headers.get("origin");
  if (origin === null) return;
  let origin_host: string;
  try {
    origin_host = new URL(origin).host;
  } catch {
    throw cross_site();
  }
  // Host, not origin: behind a TLS-terminating proxy we see http:// URLs.
  if (origin_host !== new URL(request.url).host) throw cross_site();
}

function cross_site(): ApiError {
  return new ApiError(
    "forbidden",
    "Cross-site requests cannot change anything here",
  );
}

function same_token(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function session_token(request: Request): string | undefined {
  const token = read_cookie(request, SESSION_COOKIE);
  return token && TOKEN_PATTERN.test(token) ? token : undefined;
}

/** Creates session handling over a database. */
export function create_sessions(
  database: store.Database,
  options: SessionOptions,
): Sessions {
  return {
    async resolve_session(request) {
      if (request.headers.has("authorization")) return null;
      const unsafe = !SAFE_METHODS.has(request.method);
      if (unsafe) require_same_origin(request);
      const token = session_token(request);
      if (!token) return null;
      const session = await with_database(() =>
        store.get_session(database, token, { now: options.now() })
      );
      if (!session) return null;
      if (
        unsafe &&
        !same_token(request.headers.get(CSRF_HEADER), session.csrf_token)
      ) {
        throw new ApiError(
          "forbidden",
          `Missing or wrong ${CSRF_HEADER} header; reload the page and try again`,
        );
      }
      return {
        account: account_view(session.account),
        csrf_token: session.csrf_token,
      };
    },

    session_control(request, response) {
      const secure = options.cookie_secure === "always" || is_https(request);
      const current = session_token(request);
      return {
        start(account_id) {
          return with_database(async () => {
            const now = options.now();
            // A sign-in always gets a fresh token (no session fixation), and
            // expired sessions are swept while we are here.
            if (current) await store.delete_session(database, current);
            await store.prune_sessions(database, now);
            const created = await store.create_session(database, {
              account_id,
              ttl_seconds: options.ttl_seconds,
              now,
            });
            response.headers.append(
              "Set-Cookie",
              cookie_header(created.token, {
                max_age: options.ttl_seconds,
                secure,
              }),
            );
          });
        },
        end() {
          return with_database(async () => {
            if (current) await store.delete_session(database, current);
            response.headers.append(
              "Set-Cookie",
              cookie_header("", { max_age: 0, secure }),
            );
          });
        },
        end_other_sessions(account_id) {
          return with_database(() =>
            store.delete_other_sessions(database, {
              account_id,
              keep_token: current,
            })
          );
        },
      };
    },
  };
}
