/**
 * Account repository.
 *
 * @module
 */
import { eq, inArray, like, or, sql } from "drizzle-orm";
import type { Database } from "./database.ts";
import { is_uuid } from "./_util.ts";
import {
  accounts,
  deleted_account_usage,
  type Plan,
  rate_limit_windows,
  type SubscriptionStatus,
  usage_monthly,
} from "./schema.ts";

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

/** What {@linkcode delete_account} removed. */
export interface DeletedAccount {
  /** The account's address, for the goodbye mail. */
  email: string;
  /** Months whose counts moved to the anonymous `deleted_account_usage`. */
  months_kept: number;
}

/**
 * Deletes an account and every row that names it, in one transaction: keys
 * (so they stop working at once), sessions, mailed tokens, usage, receipts,
 * `Idempotency-Key`s, billing record, and the rate-limit counters keyed by
 * its id or address. Its monthly counts are first added to
 * `deleted_account_usage`, which keeps only month totals. Undefined when
 * there was no such account.
 */
export async function delete_account(
  database: Database,
  account_id: string,
): Promise<DeletedAccount | undefined> {
  if (!is_uuid(account_id)) return undefined;
  return await database.db.transaction(async (tx) => {
    const gone = await tx.select({ email: accounts.email }).from(accounts)
      .where(eq(accounts.id, account_id)).for("update");
    if (gone.length === 0) return undefined;
    const email = gone[0].email;
    const months = await tx.select({
      month: usage_monthly.month,
      count: usage_monthly.count,
      test_count: usage_monthly.test_count,
    }).from(usage_monthly).where(eq(usage_monthly.account_id, account_id));
    for (const month of months) {
      await tx.insert(deleted_account_usage).values({ ...month, accounts: 1 })
        .onConflictDoUpdate({
          target: deleted_account_usage.month,
          set: {
            count: sql`${deleted_account_usage.count} + ${month.count}`,
            test_count:
              sql`${deleted_account_usage.test_count} + ${month.test_count}`,
            accounts: sql`${deleted_account_usage.accounts} + 1`,
          },
        });
    }
    // Every other table references the account with ON DELETE CASCADE.
    await tx.delete(accounts).where(eq(accounts.id, account_id));
    await tx.delete(rate_limit_windows).where(or(
      like(rate_limit_windows.bucket, `%:${account_id}`),
      inArray(rate_limit_windows.bucket, [
        `signin:${email}`,
        `reset:${email}`,
        `signup-notice:${email}`,
      ]),
      // `signin-from:<client address>:<email>`; compared exactly, since an
      // address may hold LIKE's wildcards.
      sql`(${rate_limit_windows.bucket} like 'signin-from:%' and right(${rate_limit_windows.bucket}, ${
        email.length + 1
      }) = ${`:${email}`})`,
    ));
    return { email, months_kept: months.length };
  });
}

/** Month totals of deleted accounts, oldest first (the operator's books). */
export async function list_deleted_account_usage(
  database: Database,
): Promise<
  { month: string; count: number; test_count: number; accounts: number }[]
> {
  return await database.db.select().from(deleted_account_usage)
    .orderBy(deleted_account_usage.month);
}
