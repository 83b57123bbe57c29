/**
 * Dashboard sessions. The cookie value is a random token; only its SHA-256
 * is stored, so a database leak does not leak live sessions.
 *
 * @module
 */
import { and, eq, gt, lt, ne, sql } from "drizzle-orm";
import { type Account, account_columns } from "./accounts.ts";
import type { Database } from "./database.ts";
import { count_deleted, is_uuid, random_token, sha256_hex } from "./_util.ts";
import { accounts, sessions } from "./schema.ts";

/** Returned once by {@linkcode create_session}. */
export interface CreatedSession {
  /** Cookie value; not stored. */
  token: string;
  /** Token the dashboard must echo in state-changing requests. */
  csrf_token: string;
  /** When the session stops being valid. */
  expires_at: Date;
}

/** A live session. */
export interface SessionInfo {
  /** The signed-in account. */
  account: Account;
  /** CSRF token bound to this session. */
  csrf_token: string;
  /** When the session stops being valid. */
  expires_at: Date;
}

/** Creates a session for `account_id` valid for `ttl_seconds` from `now`. */
export async function create_session(
  database: Database,
  input: { account_id: string; ttl_seconds: number; now?: Date },
): Promise<CreatedSession> {
  if (!is_uuid(input.account_id)) {
    throw new TypeError("account_id must be a UUID");
  }
  if (!(input.ttl_seconds > 0)) {
    throw new RangeError("ttl_seconds must be positive");
  }
  const now = input.now ?? new Date();
  const token = random_token(32);
  const csrf_token = random_token(32);
  const expires_at = new Date(now.getTime() + input.ttl_seconds * 1000);
  await database.db.insert(sessions).values({
    id_hash: await sha256_hex(token),
    account_id: input.account_id,
    csrf_token,
    created_at: now,
    expires_at,
  });
  return { token, csrf_token, expires_at };
}

/** The live session for cookie `token` at `now` (default: the clock), or undefined. */
export async function get_session(
  database: Database,
  token: string,
  options: { now?: Date } = {},
): Promise<SessionInfo | undefined> {
  const now = options.now ?? new Date();
  const id_hash = await sha256_hex(token);
  const rows = await database.db.select({
    account: account_columns,
    csrf_token: sessions.csrf_token,
    expires_at: sessions.expires_at,
  }).from(sessions)
    .innerJoin(accounts, eq(accounts.id, sessions.account_id))
    .where(and(eq(sessions.id_hash, id_hash), gt(sessions.expires_at, now)))
    .limit(1);
  return rows[0];
}

/** Deletes the session for cookie `token`; true if one existed. */
export async function delete_session(
  database: Database,
  token: string,
): Promise<boolean> {
  const rows = await database.db.delete(sessions)
    .where(eq(sessions.id_hash, await sha256_hex(token)))
    .returning({ id_hash: sessions.id_hash });
  return rows.length > 0;
}

/**
 * Ends every session of an account except the one of cookie `keep_token`
 * (e.g. after a password change); returns how many ended.
 */
export async function delete_other_sessions(
  database: Database,
  input: { account_id: string; keep_token?: string },
): Promise<number> {
  if (!is_uuid(input.account_id)) return 0;
  const keep = input.keep_token === undefined
    ? undefined
    : ne(sessions.id_hash, await sha256_hex(input.keep_token));
  const rows = await database.db.delete(sessions)
    .where(and(eq(sessions.account_id, input.account_id), keep))
    .returning({ id_hash: sessions.id_hash });
  return rows.length;
}

/** Deletes sessions that expired before `before`; returns how many. */
export async function prune_sessions(
  database: Database,
  before: Date,
): Promise<number> {
  return await count_deleted(
    database,
    sql`delete from sessions where ${
      lt(sessions.expires_at, before)
    } returning 1`,
  );
}
