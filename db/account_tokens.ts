/**
 * Single-use tokens sent by e-mail (password reset, address verification,
 * address change) and the verified flag of an account's address. Only a SHA-256 of a token
 * is stored; using a token deletes it, so it works once.
 *
 * @module
 */
import { and, eq, inArray, sql } from "drizzle-orm";
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
  /** The account's address now; the token is void once it changes. */
  email: string;
  purpose: AccountTokenPurpose;
  /** `change_email`: the address the account moves to when the token is used. */
  new_email?: string;
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
    new_email: input.new_email ?? null,
    created_at: input.now,
    expires_at: new Date(input.now.getTime() + input.ttl_seconds * 1000),
  });
  return token;
}

/** The account a used token belonged to. */
export interface UsedAccountToken {
  account_id: string;
  /** The account's address when the token was made (still its address). */
  email: string;
  purpose: AccountTokenPurpose;
  /** `change_email`: the address to move to. */
  new_email: string | null;
}

/**
 * Uses a token: deletes it and returns its account when it was live at `now`
 * and its address is still the account's. Undefined for an unknown, used,
 * expired or other-purpose token. `purpose` may list several purposes.
 */
export async function use_account_token(
  database: Database,
  input: {
    token: string;
    purpose: AccountTokenPurpose | readonly AccountTokenPurpose[];
    now: Date;
  },
): Promise<UsedAccountToken | undefined> {
  const purposes = typeof input.purpose === "string"
    ? [input.purpose]
    : [...input.purpose];
  const rows = await database.db.delete(account_tokens).where(and(
    eq(account_tokens.token_hash, await sha256_hex(input.token)),
    inArray(account_tokens.purpose, purposes),
  )).returning({
    account_id: account_tokens.account_id,
    email: account_tokens.email,
    purpose: account_tokens.purpose,
    new_email: account_tokens.new_email,
    expires_at: account_tokens.expires_at,
  });
  const row = rows[0];
  if (!row || row.expires_at.getTime() <= input.now.getTime()) return undefined;
  const current = await database.db.select({ email: accounts.email })
    .from(accounts).where(eq(accounts.id, row.account_id)).limit(1);
  if (current[0]?.email !== row.email) return undefined;
  return {
    account_id: row.account_id,
    email: row.email,
    purpose: row.purpose,
    new_email: row.new_email,
  };
}

/** Outcome of {@linkcode change_account_email}. */
export type EmailChange = "changed" | "taken" | "gone";

/**
 * Moves an account from address `from` to `to` and marks it verified (the
 * link reached `to`). `taken` when another account has `to` by now, `gone`
 * when the account no longer has `from`. Pending tokens of the account die:
 * they were bound to the old address.
 */
export async function change_account_email(
  database: Database,
  input: { account_id: string; from: string; to: string },
): Promise<EmailChange> {
  if (!is_uuid(input.account_id)) return "gone";
  return await database.db.transaction(async (tx) => {
    const taken = await tx.select({ id: accounts.id }).from(accounts)
      .where(eq(accounts.email, input.to)).limit(1);
    if (taken.length > 0) return "taken";
    const rows = await tx.update(accounts).set({
      email: input.to,
      email_verified: true,
      updated_at: sql`now()`,
    }).where(and(
      eq(accounts.id, input.account_id),
      eq(accounts.email, input.from),
    )).returning({ id: accounts.id });
    if (rows.length === 0) return "gone";
    await tx.delete(account_tokens).where(
      eq(account_tokens.account_id, input.account_id),
    );
    return "changed";
  });
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
