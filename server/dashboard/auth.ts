/**
 * Dashboard accounts' passwords: who may sign up, and checking a sign-in
 * against guessing. The services wrap these with the database-outage
 * handling every service method has.
 *
 * @module
 */
import {
  ApiError,
  type Plan,
  type SubscriptionStatus,
} from "../../contract/mod.ts";
import * as store from "../../db/mod.ts";
import {
  address_bucket,
  enforce_rate_limit,
  type RateLimit,
} from "../rate_limit.ts";
import {
  hash_password,
  type ScryptParams,
  verify_password,
} from "./password.ts";

/** Who may sign up, and what a new account starts with. */
export interface SignupPolicy {
  /** Open sign-up; when false only the operator creates accounts. */
  enabled: boolean;
  plan: Plan;
  subscription_status: SubscriptionStatus;
  /** Sign-ups allowed per client address an hour (default {@link SIGN_UP_LIMIT_PER_ADDRESS}). */
  per_address_per_hour?: number;
}

/**
 * Sign-ups per client address and hour (`SIGNUPS_PER_ADDRESS_PER_HOUR`):
 * each costs a 32 MiB password hash and creates an account.
 */
export const SIGN_UP_LIMIT_PER_ADDRESS = 5;

/** The default policy: open, on Starter, with an active subscription. */
export const DEFAULT_SIGNUP_POLICY: SignupPolicy = {
  enabled: true,
  plan: "starter",
  subscription_status: "active",
};

/**
 * Password attempts (sign-in, and the password checks before account
 * changes) in any 15 minutes. Every attempt counts, successful or not, before
 * the password is checked: concurrent guesses cannot slip past the count, and
 * guessing costs the same whether or not the address exists. A refused
 * attempt is not counted.
 *
 * - `per_email_and_address`: one client guessing one account's password.
 * - `per_address`: one client guessing across many accounts. Generous,
 *   since many people can share one address (offices, NAT).
 * - `per_email`: many clients guessing one account's password. Ten times
 *   `per_email_and_address`, so strangers failing from a few addresses do not
 *   lock the owner out: it takes over 100 attempts in 15 minutes, from at
 *   least 10 addresses, to make the owner wait.
 */
export const SIGN_IN_LIMIT = {
  per_email_and_address: 10,
  per_address: 50,
  per_email: 100,
  window_seconds: 15 * 60,
} as const;

/** The same answer for an unknown e-mail and a wrong password. */
const WRONG_CREDENTIALS = "Wrong e-mail or password";

/** Password sign-up and sign-in over a database. */
export interface PasswordAuth {
  /** The account to create for a sign-up (password hashed); throws `forbidden` when closed. */
  new_account(
    input: { email: string; password: string; client_address?: string },
  ): Promise<store.CreateAccountInput>;
  /** The account whose password this is; throws `unauthorized` or `rate_limited`. */
  sign_in(
    input: { email: string; password: string; client_address?: string },
  ): Promise<store.Account>;
  /**
   * Checks a signed-in account's current password before a change to the
   * account, counted in the same limits as sign-in. Throws `invalid_request`
   * naming `current_password`, or `rate_limited`.
   */
  check_current_password(
    input: {
      account_id: string;
      password: string;
      client_address?: string;
      /** The input field that carried the password (default `current_password`). */
      field?: string;
    },
  ): Promise<store.Account>;
}

/** The refusal of a wrong current password: a field error, not a 401 (the session is fine). */
export const WRONG_CURRENT_PASSWORD = "The current password is wrong";

/** Creates the password checks for a database. */
export function create_password_auth(
  database: store.Database,
  options: {
    policy?: SignupPolicy;
    now: () => Date;
    /** Cost of new hashes (default `DEFAULT_SCRYPT_PARAMS`). */
    scrypt_params?: ScryptParams;
  },
): PasswordAuth {
  const checks: PasswordChecks = {
    database,
    policy: options.policy ?? DEFAULT_SIGNUP_POLICY,
    now: options.now,
    scrypt_params: options.scrypt_params,
  };
  return {
    new_account: (input) => new_account(checks, input),
    sign_in: (input) => sign_in(checks, input),
    check_current_password: (input) => check_current_password(checks, input),
  };
}

/** What the password checks work with. */
interface PasswordChecks {
  database: store.Database;
  policy: SignupPolicy;
  now: () => Date;
  scrypt_params?: ScryptParams;
  /**
   * An unknown e-mail is checked against this hash so that it costs as much
   * time as a wrong password: response times do not reveal which accounts
   * exist.
   */
  decoy_hash?: Promise<string>;
}

async function new_account(
  checks: PasswordChecks,
  input: Parameters<PasswordAuth["new_account"]>[0],
): Promise<store.CreateAccountInput> {
  const { database, policy } = checks;
  if (!policy.enabled) {
    throw new ApiError(
      "forbidden",
      "Sign-up is closed on this service; ask the operator for an account",
    );
  }
  if (input.client_address) {
    await enforce_rate_limit(database, {
      bucket: address_bucket("signup-address", input.client_address),
      limit: policy.per_address_per_hour ?? SIGN_UP_LIMIT_PER_ADDRESS,
      window_seconds: 3600,
      refusal: "Too many sign-ups from this address",
    }, checks.now());
  }
  return {
    email: input.email,
    plan: policy.plan,
    subscription_status: policy.subscription_status,
    password_hash: await hash_password(input.password, checks.scrypt_params),
  };
}

async function sign_in(
  checks: PasswordChecks,
  input: Parameters<PasswordAuth["sign_in"]>[0],
): Promise<store.Account> {
  const { database } = checks;
  const email = store.normalize_email(input.email);
  await enforce_password_limits(checks, email, input.client_address);
  const account = await store.find_account_by_email(database, email);
  const stored = account
    ? await store.get_password_hash(database, account.id)
    : undefined;
  if (!account || !stored) {
    checks.decoy_hash ??= hash_password(
      crypto.randomUUID(),
      checks.scrypt_params,
    );
    await verify_password(input.password, await checks.decoy_hash);
    throw new ApiError("unauthorized", WRONG_CREDENTIALS);
  }
  if (!await verify_password(input.password, stored)) {
    throw new ApiError("unauthorized", WRONG_CREDENTIALS);
  }
  return account;
}

async function check_current_password(
  checks: PasswordChecks,
  input: Parameters<PasswordAuth["check_current_password"]>[0],
): Promise<store.Account> {
  const { database } = checks;
  const account = await store.get_account(database, input.account_id);
  if (!account) {
    throw new ApiError("unauthorized", "Sign in to the dashboard first");
  }
  await enforce_password_limits(checks, account.email, input.client_address);
  const stored = await store.get_password_hash(database, account.id);
  if (!stored || !await verify_password(input.password, stored)) {
    throw new ApiError("invalid_request", WRONG_CURRENT_PASSWORD, {
      details: [{
        path: input.field ?? "current_password",
        message: "is wrong",
      }],
    });
  }
  return account;
}

/**
 * Counts one password attempt for the e-mail from the client address, in
 * the order from the narrowest limit to the widest: an attempt refused by a
 * narrower limit never reaches a wider one, so one client cannot use up an
 * account's shared ceiling. Sign-in and the checks before account changes
 * share these counters.
 */
async function enforce_password_limits(
  checks: PasswordChecks,
  email: string,
  client_address: string | undefined,
): Promise<void> {
  const now = checks.now();
  for (const limit of password_limits(email, client_address)) {
    await enforce_rate_limit(checks.database, limit, now);
  }
}

/** The limits a password attempt counts in, narrowest first. */
function password_limits(
  email: string,
  client_address: string | undefined,
): (RateLimit & { refusal: string })[] {
  const window_seconds = SIGN_IN_LIMIT.window_seconds;
  const limits: (RateLimit & { refusal: string })[] = client_address
    ? [{
      bucket: address_bucket("signin-address", client_address),
      limit: SIGN_IN_LIMIT.per_address,
      window_seconds,
      refusal: "Too many password attempts from this address",
    }, {
      bucket: address_bucket("signin-from", client_address, email),
      limit: SIGN_IN_LIMIT.per_email_and_address,
      window_seconds,
      refusal: "Too many password attempts for this e-mail",
    }]
    : [];
  // Without a known address (in-process callers) the e-mail's own limit
  // is the narrow one.
  limits.push({
    bucket: `signin:${email}`,
    limit: client_address
      ? SIGN_IN_LIMIT.per_email
      : SIGN_IN_LIMIT.per_email_and_address,
    window_seconds,
    refusal: "Too many password attempts for this e-mail",
  });
  return limits;
}
