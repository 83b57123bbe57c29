/**
 * API key repository and authentication.
 *
 * A key is `ink_live_` (or, in test mode, `ink_test_`) followed by 43
 * base64url characters (32 random bytes).
 * Only its SHA-256 is stored, so a database leak does not leak usable keys,
 * and lookup by hash is constant-time with respect to the secret.
 *
 * @module
 */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Account } from "./accounts.ts";
import type {
  Database,
  PreparedStatement,
  StatementParam,
} from "./database.ts";
import { is_uuid, random_token, sha256_hex } from "./_util.ts";
import {
  api_keys,
  type KeyMode,
  type Plan,
  PLANS,
  type SubscriptionStatus,
} from "./schema.ts";
import {
  previous_window_weight,
  type SlidingWindow,
  window_start_of,
} from "./rate_limits.ts";

/** Fixed start of every live API key. */
export const API_KEY_PREFIX = "ink_live_";
/** Fixed start of every test API key. */
export const TEST_API_KEY_PREFIX = "ink_test_";
/** Length of the non-secret display prefix stored with each key. */
export const API_KEY_DISPLAY_PREFIX_LENGTH = 17;
/** Rate-limit window used by {@linkcode authenticate_api_key}. */
export const API_KEY_RATE_WINDOW_SECONDS = 60;

const API_KEY_PATTERN = /^ink_(live|test)_[A-Za-z0-9_-]{43}$/;
// last_used_at is only rewritten when older than this, so steady traffic
// does not cost a row write per request.
const LAST_USED_RESOLUTION_SECONDS = 60;

/** An API key as listed to its owner: never the secret or its hash. */
export interface ApiKey {
  /** UUID. */
  id: string;
  /** Owning account. */
  account_id: string;
  /** User-chosen label. */
  name: string;
  /** First 17 characters of the key (`ink_live_` and 8 more), for display. */
  prefix: string;
  /** `live` (charged) or `test` (marked output, never charged). */
  mode: KeyMode;
  /** Creation time. */
  created_at: Date;
  /** Coarse (about a minute) time of last successful use. */
  last_used_at: Date | null;
  /** When revoked, or null while active. */
  revoked_at: Date | null;
}

/** Returned once by {@linkcode create_api_key}; `key` is never stored. */
export interface CreatedApiKey {
  /** UUID. */
  id: string;
  /** User-chosen label. */
  name: string;
  /** First 17 characters of the key. */
  prefix: string;
  /** `live` or `test`. */
  mode: KeyMode;
  /** The full secret key; show it to the user once. */
  key: string;
  /** Creation time. */
  created_at: Date;
}

/** The account fields that authentication returns. */
export type AuthAccount = Pick<
  Account,
  "id" | "email" | "name" | "plan" | "subscription_status"
>;

/** Outcome of {@linkcode authenticate_api_key}. */
export type AuthenticateResult =
  | { status: "unknown" }
  | { status: "revoked"; account_id: string; key_id: string }
  | { status: "inactive"; account: AuthAccount; key_id: string }
  | {
    status: "ok";
    account: AuthAccount;
    key_id: string;
    /** The key's mode; test keys pass on inactive subscriptions too. */
    mode: KeyMode;
    /** False when the per-minute rate limit refused this request (not counted). */
    rate_allowed: boolean;
    /** The account's sliding rate-limit window after this request. */
    rate: SlidingWindow;
  };

/** Requests per minute and plan, for {@linkcode authenticate_api_key}. */
export type RateLimits = Record<Plan, number>;

// Without limits from the caller: as good as none.
const UNLIMITED = 2 ** 31 - 1;

const key_columns = {
  id: api_keys.id,
  account_id: api_keys.account_id,
  name: api_keys.name,
  prefix: api_keys.prefix,
  mode: api_keys.mode,
  created_at: api_keys.created_at,
  last_used_at: api_keys.last_used_at,
  revoked_at: api_keys.revoked_at,
};

/** SHA-256 of the full key as lower-case hex: the stored `secret_hash`. */
export function hash_api_key(key: string): Promise<string> {
  return sha256_hex(key);
}

/** Format check only: prefix, exact length and base64url alphabet. */
export function looks_like_api_key(key: unknown): key is string {
  return typeof key === "string" && API_KEY_PATTERN.test(key);
}

/**
 * Creates a key for `account_id` (`live` unless `mode` says `test`); the
 * returned `key` is not recoverable.
 */
export async function create_api_key(
  database: Database,
  input: { account_id: string; name: string; mode?: KeyMode },
): Promise<CreatedApiKey> {
  if (!is_uuid(input.account_id)) {
    throw new TypeError("account_id must be a UUID");
  }
  const mode = input.mode ?? "live";
  const key = (mode === "test" ? TEST_API_KEY_PREFIX : API_KEY_PREFIX) +
    random_token(32);
  const prefix = key.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH);
  const rows = await database.db.insert(api_keys).values({
    account_id: input.account_id,
    name: input.name,
    prefix,
    secret_hash: await hash_api_key(key),
    mode,
  }).returning({
    id: api_keys.id,
    name: api_keys.name,
    prefix: api_keys.prefix,
    mode: api_keys.mode,
    created_at: api_keys.created_at,
  });
  const row = rows[0]!;
  return { ...row, key };
}

/** All keys of an account, oldest first, revoked ones included. */
export async function list_api_keys(
  database: Database,
  account_id: string,
): Promise<ApiKey[]> {
  if (!is_uuid(account_id)) return [];
  return await database.db.select(key_columns).from(api_keys)
    .where(eq(api_keys.account_id, account_id))
    .orderBy(asc(api_keys.created_at), asc(api_keys.id));
}

/** One key by id, or undefined (also for a malformed id). */
export async function get_api_key(
  database: Database,
  key_id: string,
): Promise<ApiKey | undefined> {
  if (!is_uuid(key_id)) return undefined;
  const rows = await database.db.select(key_columns).from(api_keys)
    .where(eq(api_keys.id, key_id)).limit(1);
  return rows[0];
}

/**
 * Revokes a key (idempotent: an earlier revocation time is kept). With
 * `account_id`, only that account's key is touched. Returns the key, or
 * undefined when no such key (for that account) exists.
 */
export async function revoke_api_key(
  database: Database,
  input: { account_id?: string; key_id: string },
): Promise<ApiKey | undefined> {
  if (!is_uuid(input.key_id)) return undefined;
  if (input.account_id !== undefined && !is_uuid(input.account_id)) {
    return undefined;
  }
  const where = input.account_id === undefined
    ? eq(api_keys.id, input.key_id)
    : and(
      eq(api_keys.id, input.key_id),
      eq(api_keys.account_id, input.account_id),
    );
  const rows = await database.db.update(api_keys)
    .set({ revoked_at: sql`coalesce(${api_keys.revoked_at}, now())` })
    .where(where).returning(key_columns);
  return rows[0];
}

/** Revokes every active key of an account; returns how many were revoked. */
export async function revoke_all_api_keys(
  database: Database,
  account_id: string,
): Promise<number> {
  if (!is_uuid(account_id)) return 0;
  const rows = await database.db.update(api_keys)
    .set({ revoked_at: sql`now()` })
    .where(
      and(eq(api_keys.account_id, account_id), isNull(api_keys.revoked_at)),
    ).returning({ id: api_keys.id });
  return rows.length;
}

/** A row of the key statement ({@linkcode AUTHENTICATE_COLUMNS}). */
export interface AuthRow {
  key_id: string;
  account_id: string;
  revoked: boolean;
  email: string;
  name: string | null;
  plan: Plan;
  subscription_status: SubscriptionStatus;
  mode: KeyMode;
  rate_limit: number | string | null;
  /** This window's count after the hit; null when not counted. */
  hit_count: number | string | null;
  previous_count: number | string | null;
  current_count: number | string | null;
}

// The statement of authenticate_api_key, on every API request: prepared.
// $1 key hash, $2 current rate window start, $3 now, $4 last_used_at
// resolution (s), $5 previous rate window start, $6 the previous window's
// weight now, $7 requests per window by plan (jsonb), $8 requests per window
// of test keys.
//
// Live keys count in bucket `account:<id>` and need an active subscription;
// test keys count in `test:<id>`, whatever the subscription.
//
// The rate limit is a sliding window over two fixed windows: a request is
// counted, and allowed, only while previous × weight + current + 1 ≤ limit
// (with a tolerance for float rounding).
// The condition sits in the upsert's conflict clause, so it is checked
// against the current window's latest count, atomically across instances.
//
// Its commit does not wait for the WAL to reach the disk
// (synchronous_commit off for this transaction only): what it writes, a
// rate-limit count and a coarse last_used_at, is visible to every instance
// at once as usual, and losing the last fraction of a second of it in a
// PostgreSQL crash only forgives a few requests' rate-limit counts. The
// flush cost 3-4 ms per commit on this VM's disk (pgbench: 3.4-4.3 ms per
// synchronous upsert, 0.25-0.7 ms asynchronous). The quota statement
// (db/usage.ts) commits the same way; why that is safe for charges is told
// there.
/** Parameter types of {@linkcode AUTHENTICATE_CTES} ($1–$8). */
export const AUTHENTICATE_TYPES: readonly string[] = [
  "text",
  "timestamptz",
  "timestamptz",
  "int",
  "timestamptz",
  "float8",
  "jsonb",
  "int",
];

/**
 * The key statement's CTEs (`found`, `allowed`, `windows`, `hit`,
 * `touched`; parameters $1–$8 as above), also the first half of the
 * statement of `POST /generate` (db/generate_request.ts).
 */
export const AUTHENTICATE_CTES = `
    found as (
      select k.id as key_id, k.account_id, (k.revoked_at is not null) as revoked,
             k.mode, a.email, a.name, a.plan, a.subscription_status,
             set_config('synchronous_commit', 'off', true) as async_commit
      from api_keys k
      join accounts a on a.id = k.account_id
      where k.secret_hash = $1::text
    ),
    allowed as (
      select key_id, account_id,
             case when mode = 'test' then 'test:' else 'account:' end
               || account_id::text as bucket,
             case when mode = 'test' then $8::int
               else ($7::jsonb ->> plan)::int end as rate_limit
      from found
      where not revoked and (subscription_status = 'active' or mode = 'test')
    ),
    windows as (
      select allowed.rate_limit,
             (select count from rate_limit_windows
               where bucket = allowed.bucket and window_start = $5::timestamptz
             ) as previous_count,
             (select count from rate_limit_windows
               where bucket = allowed.bucket and window_start = $2::timestamptz
             ) as current_count
      from allowed
    ),
    hit as (
      insert into rate_limit_windows as w (bucket, window_start, count)
      select allowed.bucket, $2::timestamptz, 1 from allowed, windows
      where coalesce(windows.previous_count, 0) * $6::float8 + 1
        <= windows.rate_limit + 1e-9
      on conflict (bucket, window_start) do update set count = w.count + 1
      where (select coalesce(previous_count, 0) * $6::float8 + w.count + 1
               <= rate_limit + 1e-9 from windows)
      returning w.count
    ),
    touched as (
      update api_keys set last_used_at = $3::timestamptz
      from allowed
      where api_keys.id = allowed.key_id
        and (api_keys.last_used_at is null
          or api_keys.last_used_at < $3::timestamptz
            - make_interval(secs => $4::int))
      returning 1
    )`;

/** The key statement's columns ({@linkcode AuthRow}), read `from found`. */
export const AUTHENTICATE_COLUMNS = `
    found.key_id::text as key_id, found.account_id::text as account_id,
           found.revoked, found.mode, found.email, found.name, found.plan,
           found.subscription_status,
           (select rate_limit from windows) as rate_limit,
           (select count from hit) as hit_count,
           (select previous_count from windows) as previous_count,
           (select current_count from windows) as current_count`;

const AUTHENTICATE_STATEMENT: PreparedStatement = {
  name: "ink_authenticate_api_key",
  types: AUTHENTICATE_TYPES,
  text: `with ${AUTHENTICATE_CTES}
    select ${AUTHENTICATE_COLUMNS}
    from found`,
};

/**
 * Authenticates an API key in one round trip.
 *
 * A single statement looks the key up by hash with its account; only for an
 * active key on an active subscription (or an active test key) does it also
 * count the request in the account's sliding one-minute rate-limit window
 * (bucket `account:<id>`, at most `rate_limits[plan]` requests; for test keys
 * `test:<id>` and `test_rate_limit`; a refused request is not counted) and
 * bump `last_used_at` when that is null or over a minute old. Answering a
 * refused request is the caller's job (`rate_allowed`).
 */
export async function authenticate_api_key(
  database: Database,
  input: AuthenticateInput,
): Promise<AuthenticateResult> {
  const statement = await authenticate_params(input);
  if (!statement) return { status: "unknown" };
  const rows = await database.run<AuthRow>(
    AUTHENTICATE_STATEMENT,
    statement.params,
  );
  return authenticate_result_of(rows[0], statement.window_start);
}

/** Input of {@linkcode authenticate_api_key}. */
export interface AuthenticateInput {
  key: string;
  now: Date;
  rate_limits?: RateLimits;
  test_rate_limit?: number;
}

/**
 * Parameters $1–$8 of {@linkcode AUTHENTICATE_CTES} for `input`, or
 * undefined for a key that cannot exist (answered as unknown without a
 * statement).
 */
export async function authenticate_params(
  input: AuthenticateInput,
): Promise<
  { params: StatementParam[]; window_start: Date } | undefined
> {
  // Hash before the format check so malformed and well-formed keys cost the
  // same and timing says nothing about which part of a key was wrong.
  const hash = await hash_api_key(
    typeof input.key === "string" ? input.key : "",
  );
  if (!looks_like_api_key(input.key)) return undefined;
  const window_start = window_start_of(input.now, API_KEY_RATE_WINDOW_SECONDS);
  const previous_start = new Date(
    window_start.getTime() - API_KEY_RATE_WINDOW_SECONDS * 1000,
  );
  const limits = input.rate_limits ??
    Object.fromEntries(PLANS.map((plan) => [plan, UNLIMITED])) as RateLimits;
  return {
    window_start,
    params: [
      hash,
      window_start.toISOString(),
      input.now.toISOString(),
      LAST_USED_RESOLUTION_SECONDS,
      previous_start.toISOString(),
      previous_window_weight(input.now, API_KEY_RATE_WINDOW_SECONDS),
      JSON.stringify(limits),
      input.test_rate_limit ?? UNLIMITED,
    ],
  };
}

/** What the key statement's row (none: no such key) says. */
export function authenticate_result_of(
  row: AuthRow | undefined,
  window_start: Date,
): AuthenticateResult {
  if (!row) return { status: "unknown" };
  if (row.revoked) {
    return {
      status: "revoked",
      account_id: row.account_id,
      key_id: row.key_id,
    };
  }
  const account: AuthAccount = {
    id: row.account_id,
    email: row.email,
    name: row.name,
    plan: row.plan,
    subscription_status: row.subscription_status,
  };
  if (row.rate_limit === null) {
    return { status: "inactive", account, key_id: row.key_id };
  }
  const rate_allowed = row.hit_count !== null;
  return {
    status: "ok",
    account,
    key_id: row.key_id,
    mode: row.mode,
    rate_allowed,
    rate: {
      limit: Number(row.rate_limit),
      previous: Number(row.previous_count ?? 0),
      current: Number(rate_allowed ? row.hit_count : row.current_count ?? 0),
      window_start,
      window_seconds: API_KEY_RATE_WINDOW_SECONDS,
    },
  };
}
