/**
 * Monthly quota accounting: a generation reserves a unit of the month and
 * is charged once its document was delivered.
 *
 * A reservation is an unsettled receipt (hash of the canonical request) that
 * holds one unit until it expires; the limit counts settled units and live
 * reservations, so concurrent requests on any number of app instances can
 * never exceed it. Settling marks the receipt settled and charges the month,
 * the day and the key, once. A settled receipt makes an identical retry in
 * the month free. Both run in database functions (migration 0010) under a
 * lock per account and month.
 *
 * @module
 */
import { and, asc, desc, eq, gt, gte, isNull, lt, or, sql } from "drizzle-orm";
import type { Database, PreparedStatement } from "./database.ts";
import { count_deleted, is_uuid, query_rows, to_number } from "./_util.ts";
import {
  api_keys,
  usage_by_key,
  usage_daily,
  usage_monthly,
} from "./schema.ts";

/** How long a reservation holds its unit unless settled (default). */
export const DEFAULT_RESERVATION_TTL_MS = 30_000;

/** What a charge is recorded under. */
export interface ChargeFields {
  /** Account being charged. */
  account_id: string;
  /** Quota month, "YYYY-MM". */
  month: string;
  /** Day for the per-day chart, "YYYY-MM-DD", inside `month`. */
  day: string;
  /** Hash of the canonical request body; never the body itself. */
  request_hash: string;
  /** The API key charged, counted per key as well (absent: the account only). */
  key_id?: string;
}

/** Input for {@linkcode reserve_generation}. */
export interface ReserveGenerationInput extends ChargeFields {
  /** Generations allowed in `month` (from the account's plan). */
  limit: number;
  /** The same request's hash in its legacy form, looked up as well. */
  legacy_hash?: string;
  /** The reservation's clock (default: now). */
  now?: Date;
  /** How long the reservation holds its unit (default 30 s). */
  ttl_ms?: number;
}

/** Input for {@linkcode release_generation}. */
export type ReleaseGenerationInput = Omit<ChargeFields, "day" | "key_id">;

/** Outcome of {@linkcode reserve_generation}. */
export type ReserveResult =
  /** A unit is reserved: settle it on delivery, or release it. */
  | { status: "reserved"; used: number }
  /**
   * The same request holds a live reservation (it is in flight, or its
   * instance died): serve it and settle on delivery; charged once.
   */
  | { status: "pending"; used: number }
  /** The same request was delivered this month: free, nothing to settle. */
  | { status: "replay"; used: number }
  /** Settled units and live reservations fill the month; nothing recorded. */
  | { status: "exhausted"; used: number };

const STATUSES = new Set(["reserved", "pending", "replay", "exhausted"]);

const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;
const DAY_PATTERN = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

function check_month(month: string): void {
  if (!MONTH_PATTERN.test(month)) {
    throw new RangeError(`month must be YYYY-MM, got ${JSON.stringify(month)}`);
  }
}

/** Throws unless `account_id` is a UUID (every charge names its account). */
export function check_account(account_id: string): void {
  if (!is_uuid(account_id)) {
    throw new TypeError("account_id must be a UUID");
  }
}

/**
 * Checks what a charge is recorded under (month, day, request hash, key),
 * for reservations and settlements, and for the statement of
 * `POST /generate`, which learns the account only from the key.
 */
export function check_charge_fields(
  input: Omit<ChargeFields, "account_id">,
): void {
  check_month(input.month);
  if (!DAY_PATTERN.test(input.day) || !input.day.startsWith(input.month)) {
    throw new RangeError(
      `day must be YYYY-MM-DD within ${input.month}, got ${
        JSON.stringify(input.day)
      }`,
    );
  }
  if (input.request_hash.length === 0) {
    throw new RangeError("request_hash must not be empty");
  }
  check_key_id(input.key_id);
}

function check_key_id(key_id: string | undefined): void {
  if (key_id !== undefined && !is_uuid(key_id)) {
    throw new TypeError("key_id must be a UUID");
  }
}

function check_limit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 0) {
    throw new RangeError("limit must be a non-negative integer");
  }
}

/** The reservation's TTL in milliseconds, checked. */
export function reservation_ttl_of(ttl_ms: number | undefined): number {
  const ttl = ttl_ms ?? DEFAULT_RESERVATION_TTL_MS;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > 2_147_483_647) {
    throw new RangeError("ttl_ms must be a positive integer");
  }
  return ttl;
}

// The statement of reserve_generation, on every charged request: prepared.
// $1 account, $2 month, $3 request hash, $4 legacy hash (or null), $5 limit,
// $6 now, $7 TTL in ms. Commits without waiting for the WAL flush, as every
// per-request statement (see db/README.md, Durability): a database crash
// can only lose a reservation, which frees its unit.
const RESERVE_STATEMENT: PreparedStatement = {
  name: "ink_reserve_generation",
  types: ["uuid", "text", "text", "text", "int", "timestamptz", "int"],
  text: `
    select r.status, r.used,
           set_config('synchronous_commit', 'off', true) as async_commit
    from ink_reserve_generation($1, $2, $3, $4, $5, $6, $7) r
  `,
};

// The statement of settle_generation: $1 account, $2 month, $3 request
// hash, $4 day, $5 key (or null). Commits asynchronously: a database crash
// can lose a charge (in the customer's favour), never make one twice.
const SETTLE_STATEMENT: PreparedStatement = {
  name: "ink_settle_generation",
  types: ["uuid", "text", "text", "date", "uuid"],
  text: `
    select ink_settle_generation($1, $2, $3, $4, $5) as settled,
           set_config('synchronous_commit', 'off', true) as async_commit
  `,
};

/** A reservation's row, from the reserve function. */
export interface ReservationRow {
  status: string | null;
  used: number | string | null;
}

/** What a reservation's row says. */
export function reservation_result_of(row: ReservationRow): ReserveResult {
  const status = row.status ?? "";
  if (!STATUSES.has(status)) {
    throw new Error(`unexpected reservation status ${JSON.stringify(status)}`);
  }
  return {
    status: status as ReserveResult["status"],
    used: to_number(row.used ?? 0),
  };
}

/**
 * Reserves one generation against the monthly `limit`: settled units and
 * live reservations together stay within it. A settled receipt of the same
 * request (under `request_hash` or `legacy_hash`) makes it a free replay,
 * even when the month is used up; a live reservation of the same request
 * makes it pending (served, charged once on delivery). An expired
 * reservation of the same request is taken over.
 *
 * After "reserved" or "pending", call {@linkcode settle_generation} once the
 * document was delivered; after "reserved", {@linkcode release_generation}
 * when it was not (or let the reservation expire).
 */
export async function reserve_generation(
  database: Database,
  input: ReserveGenerationInput,
): Promise<ReserveResult> {
  check_account(input.account_id);
  check_charge_fields(input);
  check_limit(input.limit);
  const rows = await database.run<ReservationRow>(RESERVE_STATEMENT, [
    input.account_id,
    input.month,
    input.request_hash,
    input.legacy_hash ?? null,
    input.limit,
    (input.now ?? new Date()).toISOString(),
    reservation_ttl_of(input.ttl_ms),
  ]);
  return reservation_result_of(rows[0]!);
}

/**
 * Charges a delivered generation: its receipt is settled and the month, the
 * day and the key counted, once. True when this call charged it; false when
 * it was settled already. Needs no live reservation: a reservation that
 * expired meanwhile is charged as well (its document was delivered).
 */
export async function settle_generation(
  database: Database,
  input: ChargeFields,
): Promise<boolean> {
  check_account(input.account_id);
  check_charge_fields(input);
  const rows = await database.run<{ settled: boolean }>(SETTLE_STATEMENT, [
    input.account_id,
    input.month,
    input.request_hash,
    input.day,
    input.key_id ?? null,
  ]);
  return rows[0]?.settled === true;
}

/**
 * Reserves and settles at once: a generation delivered as it was counted
 * (seeding usage, the operator's tools). Answers as the reservation did.
 */
export async function charge_generation(
  database: Database,
  input: ReserveGenerationInput,
): Promise<ReserveResult> {
  const reserved = await reserve_generation(database, input);
  if (reserved.status === "reserved" || reserved.status === "pending") {
    await settle_generation(database, input);
    return { ...reserved, used: reserved.used + 1 };
  }
  return reserved;
}

/**
 * Frees a reservation whose document was not delivered (render failed,
 * client gone): its unsettled receipt is deleted. A settled receipt is kept.
 * Idempotent; true when a reservation was freed.
 */
export async function release_generation(
  database: Database,
  input: ReleaseGenerationInput,
): Promise<boolean> {
  check_account(input.account_id);
  check_month(input.month);
  return await count_deleted(
    database,
    sql`delete from generation_receipts
      where account_id = ${input.account_id}::uuid
        and month = ${input.month}
        and request_hash = ${input.request_hash} and not settled
      returning 1`,
  ) > 0;
}

/**
 * Deletes reservations that expired before `now` (housekeeping: the limit
 * ignores them by time already). Returns how many.
 */
export async function sweep_reservations(
  database: Database,
  now: Date,
): Promise<number> {
  return await count_deleted(
    database,
    sql`delete from generation_receipts
      where not settled and expires_at <= ${now.toISOString()}::timestamptz
      returning 1`,
  );
}

/** Live reservations of an account in `month` at `now`. */
export async function get_open_reservations(
  database: Database,
  account_id: string,
  options: { month: string; now?: Date },
): Promise<number> {
  check_month(options.month);
  if (!is_uuid(account_id)) return 0;
  const now = (options.now ?? new Date()).toISOString();
  const rows = await query_rows<{ n: number | string }>(
    database,
    sql`select count(*)::int as n from generation_receipts
      where account_id = ${account_id}::uuid and month = ${options.month}
        and not settled and expires_at > ${now}::timestamptz`,
  );
  return to_number(rows[0]?.n ?? 0);
}

/** Generations counted for an account in `month` ("YYYY-MM"). */
export async function get_usage(
  database: Database,
  account_id: string,
  options: { month: string },
): Promise<number> {
  check_month(options.month);
  if (!is_uuid(account_id)) return 0;
  const rows = await database.db.select({ count: usage_monthly.count })
    .from(usage_monthly).where(
      and(
        eq(usage_monthly.account_id, account_id),
        eq(usage_monthly.month, options.month),
      ),
    );
  return rows[0]?.count ?? 0;
}

/** Input of {@linkcode reserve_test_generation}. */
export interface ReserveTestGenerationInput {
  account_id: string;
  /** Month counted in, "YYYY-MM". */
  month: string;
  /** Test documents allowed in `month`. */
  limit: number;
  /** The test key used, counted per key as well. */
  key_id?: string;
}

/** Outcome of {@linkcode reserve_test_generation}. */
export interface TestReservation {
  /** `reserved`: counted; `exhausted`: the month's test documents are used up. */
  status: "reserved" | "exhausted";
  /** The month's live count (never changed by test documents). */
  used: number;
  /** The month's test documents, this one included when reserved. */
  test_calls: number;
}

/**
 * Reserves one test-key document in `month` against `limit`, never against
 * the live quota (and per key, with `key_id`). One statement: the counter
 * moves only while it is below the limit, in the upsert itself, so
 * concurrent requests on any number of instances never pass the limit.
 * Call {@linkcode release_test_generation} if the document then fails.
 */
export async function reserve_test_generation(
  database: Database,
  input: ReserveTestGenerationInput,
): Promise<TestReservation> {
  check_month(input.month);
  check_account(input.account_id);
  check_key_id(input.key_id);
  check_limit(input.limit);
  const key_id = input.key_id ?? null;
  const rows = await query_rows<{
    used: number | string;
    test_calls: number | string;
    reserved: boolean;
  }>(
    database,
    sql`with monthly as (
        insert into usage_monthly as u (account_id, month, count, test_count)
        select ${input.account_id}::uuid, ${input.month}, 0, 1
        where ${input.limit}::int > 0
        on conflict (account_id, month)
          do update set test_count = u.test_count + 1
          where u.test_count < ${input.limit}::int
        returning u.count, u.test_count
      ),
      by_key as (
        insert into usage_by_key as k (key_id, month, count)
        select ${key_id}::uuid, ${input.month}, 1 from monthly
        where ${key_id}::uuid is not null
        on conflict (key_id, month) do update set count = k.count + 1
        returning 1
      )
      select count as used, test_count as test_calls, true as reserved
        from monthly
      union all
      select count, test_count, false from usage_monthly
        where account_id = ${input.account_id}::uuid
          and month = ${input.month}
          and not exists (select 1 from monthly)`,
  );
  const row = rows[0];
  if (row === undefined) {
    // Nothing counted yet and a limit of 0.
    return { status: "exhausted", used: 0, test_calls: 0 };
  }
  return {
    status: row.reserved ? "reserved" : "exhausted",
    used: to_number(row.used),
    test_calls: to_number(row.test_calls),
  };
}

/**
 * Gives back a test document reserved by {@linkcode reserve_test_generation}
 * whose render failed (never below 0).
 */
export async function release_test_generation(
  database: Database,
  input: Omit<ReserveTestGenerationInput, "limit">,
): Promise<void> {
  check_month(input.month);
  if (!is_uuid(input.account_id)) {
    throw new TypeError("account_id must be a UUID");
  }
  check_key_id(input.key_id);
  const key_id = input.key_id ?? null;
  await query_rows(
    database,
    sql`with monthly as (
        update usage_monthly set test_count = greatest(test_count - 1, 0)
        where account_id = ${input.account_id}::uuid
          and month = ${input.month}
        returning 1
      ),
      by_key as (
        update usage_by_key set count = greatest(count - 1, 0)
        where key_id = ${key_id}::uuid and month = ${input.month}
          and exists (select 1 from monthly)
        returning 1
      )
      select count(*)::int as released from monthly`,
  );
}

/** Test-key generations of an account in `month` ("YYYY-MM"). */
export async function get_test_calls(
  database: Database,
  account_id: string,
  options: { month: string },
): Promise<number> {
  check_month(options.month);
  if (!is_uuid(account_id)) return 0;
  const rows = await database.db.select({
    test_count: usage_monthly.test_count,
  })
    .from(usage_monthly).where(
      and(
        eq(usage_monthly.account_id, account_id),
        eq(usage_monthly.month, options.month),
      ),
    );
  return rows[0]?.test_count ?? 0;
}

/** One API key's use in a month, from {@linkcode get_usage_by_key}. */
export interface KeyUsage {
  key_id: string;
  name: string;
  prefix: string;
  mode: "live" | "test";
  /** When the key was revoked, or null while it is active. */
  revoked_at: Date | null;
  /** Charged invoices (live key) or test calls (test key) in the month. */
  count: number;
}

/**
 * An account's use per API key in `month` ("YYYY-MM"): every active key
 * (unused ones with 0) and every revoked key used that month, most used
 * first, then oldest first.
 */
export async function get_usage_by_key(
  database: Database,
  account_id: string,
  options: { month: string },
): Promise<KeyUsage[]> {
  check_month(options.month);
  if (!is_uuid(account_id)) return [];
  const count = sql<number | string>`coalesce(${usage_by_key.count}, 0)`;
  const rows = await database.db.select({
    key_id: api_keys.id,
    name: api_keys.name,
    prefix: api_keys.prefix,
    mode: api_keys.mode,
    revoked_at: api_keys.revoked_at,
    count,
  }).from(api_keys).leftJoin(
    usage_by_key,
    and(
      eq(usage_by_key.key_id, api_keys.id),
      eq(usage_by_key.month, options.month),
    ),
  ).where(
    and(
      eq(api_keys.account_id, account_id),
      or(isNull(api_keys.revoked_at), gt(usage_by_key.count, 0)),
    ),
  ).orderBy(desc(count), asc(api_keys.created_at), asc(api_keys.id));
  return rows.map((row) => ({ ...row, count: to_number(row.count) }));
}

/** Per-day counts of an account in `month`, ascending; days without use omitted. */
export async function get_daily_usage(
  database: Database,
  account_id: string,
  options: { month: string },
): Promise<Array<{ day: string; count: number }>> {
  check_month(options.month);
  if (!is_uuid(account_id)) return [];
  const [year, month] = options.month.split("-").map(Number) as [
    number,
    number,
  ];
  const first = `${options.month}-01`;
  const next = month === 12
    ? `${year + 1}-01-01`
    : `${year}-${String(month + 1).padStart(2, "0")}-01`;
  return await database.db.select({
    day: usage_daily.day,
    count: usage_daily.count,
  }).from(usage_daily).where(
    and(
      eq(usage_daily.account_id, account_id),
      gte(usage_daily.day, first),
      lt(usage_daily.day, next),
    ),
  ).orderBy(asc(usage_daily.day));
}

/**
 * Deletes receipts of months before `before_month` ("YYYY-MM"); they can no
 * longer make a retry free. Returns how many were deleted.
 */
export async function prune_receipts(
  database: Database,
  options: { before_month: string },
): Promise<number> {
  check_month(options.before_month);
  return await count_deleted(
    database,
    sql`delete from generation_receipts
      where month < ${options.before_month} returning 1`,
  );
}
