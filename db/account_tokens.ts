/**
 * Single-use tokens sent by e-mail (password reset, address verification)
 * and the verified flag of an account's address. Only a SHA-256 of a token
 * is stored; using a token deletes it, so it works once.
 *
 * @module
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "./database.ts";
import { count_deleted, is_uuid, random_token, sha256_hex } from "./_util.ts";
import {
  account_tokens,
  accounts,
  type AccountTokenPurpose,
  sessions,
} from "./schema.ts";

/** Input for {@linkcode create_account_token}. */
export interface CreateAccountTokenInput {
  account_id: string;
  /** The address the token is mailed to; the token is void once it changes. */
  email: string;
  purpose: AccountTokenPurpose;
  ttl_seconds: number;
  now: Date;
}

/** Creates a token and returns it (the only time it exists in clear). */
export async function create_account_token(
  database: Database,
  input: CreateAccountTokenInput,
): Promise<string> {
  if (!is_uuid(input.account_id)) {
    throw new TypeError("account_id must be a UUID");
  }
  const token = random_token(32);
  await database.db.insert(account_tokens).values({
    token_hash: await sha256_hex(token),
    account_id: input.account_id,
    purpose: input.purpose,
    email: input.email,
    created_at: input.now,
    expires_at: new Date(input.now.getTime() + input.ttl_seconds * 1000),
  });
  return token;
}

/** The account a used token belonged to. */
export interface UsedAccountToken {
  account_id: string;
  /** The address the token was sent to. */
  email: string;
}

/**
 * Uses a token: deletes it and returns its account when it was live at `now`
 * and its address is still the account's. Undefined for an unknown, used,
 * expired or other-purpose token.
 */
export async function use_account_token(
  database: Database,
  input: { token: string; purpose: AccountTokenPurpose; now: Date },
): Promise<UsedAccountToken | undefined> {
  const rows = await database.db.delete(account_tokens).where(and(
    eq(account_tokens.token_hash, await sha256_hex(input.token)),
    eq(account_tokens.purpose, input.purpose),
  )).returning({
    account_id: account_tokens.account_id,
    email: account_tokens.email,
    expires_at: account_tokens.expires_at,
  });
  const row = rows[0];
  if (!row || row.expires_at.getTime() <= input.now.getTime()) return undefined;
  const current = await database.db.select({ email: accounts.email })
    .from(accounts).where(eq(accounts.id, row.account_id)).limit(1);
  if (current[0]?.email !== row.email) return undefined;
  return { account_id: row.account_id, email: row.email };
}

/** Deletes an account's tokens of one purpose (e.g. after a reset); returns how many. */
export async function delete_account_tokens(
  database: Database,
  input: { account_id: string; purpose: AccountTokenPurpose },
): Promise<number> {
  const rows = await database.db.delete(account_tokens).where(and(
    eq(account_tokens.account_id, input.account_id),
    eq(account_tokens.purpose, input.purpose),
  )).returning({ token_hash: account_tokens.token_hash });
  return rows.length;
}

/** Deletes tokens that expired before `before`; returns how many. */
export async function prune_account_tokens(
  database: Database,
  before: Date,
): Promise<number> {
  return await count_deleted(
    database,
    sql`delete from account_tokens
      where expires_at < ${before.toISOString()}::timestamptz returning 1`,
  );
}

/** Ends every dashboard session of an account; returns how many. */
export async function delete_account_sessions(
  database: Database,
  account_id: string,
): Promise<number> {
  if (!is_uuid(account_id)) return 0;
  const rows = await database.db.delete(sessions)
    .where(eq(sessions.account_id, account_id))
    .returning({ id_hash: sessions.id_hash });
  return rows.length;
}

/** Whether the account's address is verified (false for an unknown account). */
export async function is_email_verified(
  database: Database,
  account_id: string,
): Promise<boolean> {
  if (!is_uuid(account_id)) return false;
  const rows = await database.db.select({ verified: accounts.email_verified })
    .from(accounts).where(eq(accounts.id, account_id)).limit(1);
  return rows[0]?.verified ?? false;
}

/** Marks the account's address verified; false when the account is gone. */
export async function set_email_verified(
  database: Database,
  account_id: string,
): Promise<boolean> {
  const rows = await database.db.update(accounts)
    .set({ email_verified: true })
    .where(eq(accounts.id, account_id))
    .returning({ id: accounts.id });
  return rows.length > 0;
}
