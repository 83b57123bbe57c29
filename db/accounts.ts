/**
 * Account repository.
 *
 * @module
 */
import { eq, sql } from "drizzle-orm";
import type { Database } from "./database.ts";
import { is_uuid } from "./_util.ts";
import { accounts, type Plan, type SubscriptionStatus } from "./schema.ts";

/** An account as the application sees it (never the password hash). */
export interface Account {
  /** UUID. */
  id: string;
  /** Lower-cased email address. */
  email: string;
  /** Display name. */
  name: string | null;
  /** Current plan. */
  plan: Plan;
  /** Whether the subscription is paid up. */
  subscription_status: SubscriptionStatus;
  /** Creation time. */
  created_at: Date;
  /** Last change through {@linkcode update_account}. */
  updated_at: Date;
}

/** Input for {@linkcode create_account}. */
export interface CreateAccountInput {
  /** Any case; stored trimmed and lower-cased. */
  email: string;
  /** Display name. */
  name?: string | null;
  /** Initial plan. */
  plan: Plan;
  /** Defaults to "active". */
  subscription_status?: SubscriptionStatus;
  /** Already-hashed dashboard password. */
  password_hash?: string | null;
  /** Default true (operator-created); sign-up passes false until the mail is answered. */
  email_verified?: boolean;
}

/** Changes accepted by {@linkcode update_account}. */
export interface UpdateAccountInput {
  /** New plan. */
  plan?: Plan;
  /** New subscription status. */
  subscription_status?: SubscriptionStatus;
  /** New display name. */
  name?: string | null;
  /** New already-hashed dashboard password. */
  password_hash?: string | null;
}

/** Thrown by {@linkcode create_account} when the email is already taken. */
export class DuplicateEmailError extends Error {
  /** The normalised email that was taken. */
  readonly email: string;
  /** Builds the error for `email`. */
  constructor(email: string) {
    super(`an account with email ${email} already exists`);
    this.name = "DuplicateEmailError";
    this.email = email;
  }
}

/** The columns of an {@linkcode Account}, for selects that return one. */
export const account_columns = {
  id: accounts.id,
  email: accounts.email,
  name: accounts.name,
  plan: accounts.plan,
  subscription_status: accounts.subscription_status,
  created_at: accounts.created_at,
  updated_at: accounts.updated_at,
};

/** Canonical form of an email address for storage and lookup. */
export function normalize_email(email: string): string {
  return email.trim().toLowerCase();
}

/** Creates an account; throws {@linkcode DuplicateEmailError} if taken. */
export async function create_account(
  database: Database,
  input: CreateAccountInput,
): Promise<Account> {
  const email = normalize_email(input.email);
  // ON CONFLICT DO NOTHING instead of catching 23505: the two drivers (and
  // drizzle's error wrapping) report unique violations differently.
  const rows = await database.db.insert(accounts).values({
    email,
    name: input.name ?? null,
    plan: input.plan,
    subscription_status: input.subscription_status ?? "active",
    password_hash: input.password_hash ?? null,
    email_verified: input.email_verified ?? true,
  }).onConflictDoNothing({ target: accounts.email }).returning(
    account_columns,
  );
  const row = rows[0];
  if (!row) throw new DuplicateEmailError(email);
  return row;
}

/** The account with `id`, or undefined (also for a malformed id). */
export async function get_account(
  database: Database,
  id: string,
): Promise<Account | undefined> {
  if (!is_uuid(id)) return undefined;
  const rows = await database.db.select(account_columns).from(accounts)
    .where(eq(accounts.id, id)).limit(1);
  return rows[0];
}

/** The account with `email` (any case), or undefined. */
export async function find_account_by_email(
  database: Database,
  email: string,
): Promise<Account | undefined> {
  const rows = await database.db.select(account_columns).from(accounts)
    .where(eq(accounts.email, normalize_email(email))).limit(1);
  return rows[0];
}

/**
 * The stored password hash of an account: undefined when the account does
 * not exist, null when it has no password. Kept out of {@linkcode Account} so
 * it cannot leak into API responses by accident.
 */
export async function get_password_hash(
  database: Database,
  account_id: string,
): Promise<string | null | undefined> {
  if (!is_uuid(account_id)) return undefined;
  const rows = await database.db.select({ hash: accounts.password_hash })
    .from(accounts).where(eq(accounts.id, account_id)).limit(1);
  return rows[0]?.hash;
}

/** Applies `changes`; returns the updated account or undefined if missing. */
export async function update_account(
  database: Database,
  id: string,
  changes: UpdateAccountInput,
): Promise<Account | undefined> {
  if (!is_uuid(id)) return undefined;
  const set: Partial<typeof accounts.$inferInsert> = {};
  if (changes.plan !== undefined) set.plan = changes.plan;
  if (changes.subscription_status !== undefined) {
    set.subscription_status = changes.subscription_status;
  }
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.password_hash !== undefined) {
    set.password_hash = changes.password_hash;
  }
  const rows = await database.db.update(accounts).set({
    ...set,
    updated_at: sql`now()`,
  }).where(eq(accounts.id, id)).returning(account_columns);
  return rows[0];
}
