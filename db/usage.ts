/**
 * Monthly quota accounting with free identical retries.
 *
 * A generation is "reserved" before rendering: a receipt (hash of the
 * canonical request) is stored and the month's counter moves by one, both
 * atomically in the database, so concurrent requests on any number of app
 * instances can never exceed the limit.
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

/** Input for {@linkcode reserve_generation}. */
export interface ReserveGenerationInput {
  /** Account being charged. */
  account_id: string;
  /** Quota month, "YYYY-MM". */
  month: string;
  /** Day for the per-day chart, "YYYY-MM-DD", inside `month`. */
  day: string;
  /** Generations allowed in `month` (from the account's plan). */
  limit: number;
  /** Hash of the canonical request body; never the body itself. */
  request_hash: string;
  /** The API key charged, counted per key as well (absent: the account only). */
  key_id?: string;
}

/** Input for {@linkcode release_generation}. */
export type ReleaseGenerationInput = Omit<ReserveGenerationInput, "limit">;

/** Outcome of {@linkcode reserve_generation}. */
export type ReserveResult =
  /** Counted; `used` includes this generation. */
  | { status: "reserved"; used: number }
  /** Same request already counted this month: free, counter unchanged. */
  | { status: "replay"; used: number }
  /** Over the limit; nothing was recorded. */
  | { status: "exhausted"; used: number };

const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;
const DAY_PATTERN = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

function check_month(month: string): void {
  if (!MONTH_PATTERN.test(month)) {
    throw new RangeError(`month must be YYYY-MM, got ${JSON.stringify(month)}`);
  }
}

function check_input(input: ReleaseGenerationInput): void {
  if (!is_uuid(input.account_id)) {
    throw new TypeError("account_id must be a UUID");
  }
  check_charge_fields(input);
}

/**
 * Checks what a charge is recorded under (month, day, request hash, key),
 * for reservations and releases, and for the statement of `POST /generate`,
 * which learns the account only from the key.
 */
export function check_charge_fields(
  input: Omit<ReleaseGenerationInput, "account_id">,
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

/** SQLSTATE raised by `ink_generation_refused()` (migration 0001). */
const GENERATION_REFUSED_SQLSTATE = "IQ001";

/** The columns a reservation answers with ({@linkcode ReservationRow}). */
export const RESERVATION_COLUMNS = `(select receipted from seen) as receipted,
           (select count(*) from receipt)::int as inserted,
           (select count from monthly) as new_count,
           (select coalesce(used, 0) from seen) as current,
           case when exists (select 1 from receipt)
                 and not exists (select 1 from monthly)
             then ink_generation_refused() end as refused`;

// The statement of reserve_generation, on every charged request: prepared.
// $1 account, $2 month, $3 request hash, $4 limit, $5 day, $6 key (or null).
//
// A receipt is committed only together with its charge: a new receipt whose
// charge the counter refuses (another request took the last one meanwhile)
// makes the statement fail via ink_generation_refused(), which rolls the
// receipt back. A concurrent identical request waits on that receipt's
// unique key and, once it is gone, is judged afresh, so it can be served as
// a replay only of a charged request. Receipts are only inserted when the
// statement's snapshot shows room, so a used-up month answers without error.
//
// Its commit does not wait for the WAL to reach the disk (synchronous_commit
// off for this transaction only, as for the API key statement). Receipt and
// charge still commit together, are visible to every instance at once and
// keep the limit exact while PostgreSQL runs. What a PostgreSQL crash can
// lose is the last fraction of a second of such commits (at most three
// wal_writer_delay, 600 ms by default): receipt and charge together, so an
// invoice then delivered is simply not counted (in the customer's favour)
// and its identical retry is charged once, never twice. Any later durable
// commit (an Idempotency-Key marked done, a key created or revoked) flushes
// every earlier one, since the WAL is flushed in order. The flush was the
// largest part of this statement's time and, queued behind other flushes
// on a busy disk, of the tail latency of POST /generate.
const RESERVE_STATEMENT: PreparedStatement = {
  name: "ink_reserve_generation",
  types: ["uuid", "text", "text", "int", "date", "uuid"],
  text: `
    with seen as (
      select $1::uuid as account_id, $6::uuid as key_id,
             $4::int as monthly_limit,
             ${reservation_seen_columns("$1::uuid", "$2::text", "$3::text")},
             set_config('synchronous_commit', 'off', true) as async_commit
    ),
    ${
    charge_ctes({
      month: "$2::text",
      request_hash: "$3::text",
      day: "$5::date",
    })
  }
    select ${RESERVATION_COLUMNS}
  `,
};

/**
 * What a reservation reads, for `account` in `month`: the month's count
 * (`used`) and whether `request_hash` already has a receipt (`receipted`).
 * The statement of `POST /generate` (db/generate_request.ts) reads the same.
 */
export function reservation_seen_columns(
  account: string,
  month: string,
  request_hash: string,
): string {
  return `(select count from usage_monthly
                where account_id = ${account} and month = ${month}) as used,
             exists (select 1 from generation_receipts
                where account_id = ${account} and month = ${month}
                  and request_hash = ${request_hash}) as receipted`;
}

/**
 * The receipt and the charges, as CTEs over a CTE `seen` with columns
 * `account_id`, `key_id` (or null), `monthly_limit`, `used` and `receipted`
 * (at most one row; none charges nothing). SQL expressions for the month,
 * the request hash and the day are spliced in.
 */
export function charge_ctes(
  values: { month: string; request_hash: string; day: string },
): string {
  const { month, request_hash, day } = values;
  return `receipt as (
      insert into generation_receipts (account_id, month, request_hash)
      select seen.account_id, ${month}, ${request_hash} from seen
      where not seen.receipted
        and coalesce(seen.used, 0) < seen.monthly_limit
      on conflict do nothing
      returning 1
    ),
    monthly as (
      insert into usage_monthly as u (account_id, month, count)
      select seen.account_id, ${month}, 1 from seen, receipt
      on conflict (account_id, month) do update set count = u.count + 1
      where u.count < (select monthly_limit from seen)
      returning u.count
    ),
    daily as (
      insert into usage_daily as d (account_id, day, count)
      select seen.account_id, ${day}, 1 from seen, monthly
      on conflict (account_id, day) do update set count = d.count + 1
      returning 1
    ),
    by_key as (
      insert into usage_by_key as k (key_id, month, count)
      select seen.key_id, ${month}, 1 from seen, monthly
      where seen.key_id is not null
      on conflict (key_id, month) do update set count = k.count + 1
      returning 1
    )`;
}

/** A reservation's row ({@linkcode RESERVATION_COLUMNS}). */
export interface ReservationRow {
  receipted: boolean | null;
  inserted: number | string | null;
  new_count: number | string | null;
  current: number | string | null;
}

/** What a reservation's row says, against the month's `limit`. */
export function reservation_result_of(
  row: ReservationRow,
  limit: number,
): ReserveResult {
  if (row.new_count !== null) {
    return { status: "reserved", used: to_number(row.new_count) };
  }
  // `current` comes from the statement's snapshot: good enough to report.
  const used = to_number(row.current ?? 0);
  if (row.receipted || used < limit) {
    // Receipted before, or (room, but the insert met a receipt committed
    // since the snapshot) an identical request was charged meanwhile.
    return { status: "replay", used };
  }
  return { status: "exhausted", used };
}

/** True when a reservation met `ink_generation_refused()` (rolled back). */
export function is_generation_refused(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current != null; depth++) {
    if (typeof current !== "object") return false;
    const e = current as { code?: unknown; cause?: unknown };
    if (e.code === GENERATION_REFUSED_SQLSTATE) return true;
    current = e.cause;
  }
  return false;
}

/**
 * Reserves one generation against the monthly `limit`.
 *
 * One statement with data-modifying CTEs inserts the receipt (if new) and,
 * only then, increments the monthly counter if it is below `limit`, and the
 * daily counter with it; receipt and charge commit together or not at all.
 * An earlier receipt (always a charged one) means a replay, free even when
 * the month is used up. Only when another request took the last generation
 * between the statement's snapshot and its charge does a second statement
 * run, to read the counter for the answer.
 *
 * Call {@linkcode release_generation} only after a "reserved" result.
 */
export async function reserve_generation(
  database: Database,
  input: ReserveGenerationInput,
): Promise<ReserveResult> {
  check_input(input);
  if (!Number.isInteger(input.limit) || input.limit < 0) {
    throw new RangeError("limit must be a non-negative integer");
  }
  const { account_id, month, day, request_hash, limit } = input;
  let row: ReservationRow;
  try {
    const rows = await database.run<ReservationRow>(RESERVE_STATEMENT, [
      account_id,
      month,
      request_hash,
      limit,
      day,
      input.key_id ?? null,
    ]);
    row = rows[0]!;
  } catch (error) {
    if (!is_generation_refused(error)) throw error;
    return {
      status: "exhausted",
      used: await get_usage(database, account_id, { month }),
    };
  }
  return reservation_result_of(row, limit);
}

/**
 * Undoes a reservation whose render failed: deletes the receipt and, only if
 * there was one, decrements the monthly, daily and per-key counters (never
 * below 0).
 * Idempotent: a second call changes nothing.
 */
export async function release_generation(
  database: Database,
  input: ReleaseGenerationInput,
): Promise<{ released: boolean; used: number }> {
  check_input(input);
  const { account_id, month, day, request_hash } = input;
  const key_id = input.key_id ?? null;
  const rows = await query_rows<{
    released: number | string;
    used: number | string;
  }>(
    database,
    sql`
      with gone as (
        delete from generation_receipts
        where account_id = ${account_id}::uuid and month = ${month}
          and request_hash = ${request_hash}
        returning 1
      ),
      monthly as (
        update usage_monthly set count = greatest(count - 1, 0)
        where account_id = ${account_id}::uuid and month = ${month}
          and exists (select 1 from gone)
        returning count
      ),
      daily as (
        update usage_daily set count = greatest(count - 1, 0)
        where account_id = ${account_id}::uuid and day = ${day}::date
          and exists (select 1 from gone)
        returning 1
      ),
      by_key as (
        update usage_by_key set count = greatest(count - 1, 0)
        where key_id = ${key_id}::uuid and month = ${month}
          and exists (select 1 from gone)
        returning 1
      )
      select (select count(*) from gone)::int as released,
             coalesce((select count from monthly),
               (select count from usage_monthly
                 where account_id = ${account_id}::uuid and month = ${month}),
               0) as used
    `,
  );
  const row = rows[0]!;
  return { released: to_number(row.released) > 0, used: to_number(row.used) };
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
  if (!is_uuid(input.account_id)) {
    throw new TypeError("account_id must be a UUID");
  }
  check_key_id(input.key_id);
  if (!Number.isInteger(input.limit) || input.limit < 0) {
    throw new RangeError("limit must be a non-negative integer");
  }
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
