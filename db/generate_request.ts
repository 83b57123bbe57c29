/**
 * The database work of a `POST /generate` in one round trip: the key
 * statement (key, account, rate limit, last use; db/api_keys.ts) and the
 * quota reservation (db/usage.ts) as one statement, so a request costs one
 * database round trip and one transaction instead of two. The reservation
 * runs only for a live key on an active subscription whose request the rate
 * limit counted; its semantics are exactly those of `reserve_generation`,
 * because both call the same database function.
 *
 * @module
 */
import type { Database, PreparedStatement } from "./database.ts";
import {
  AUTHENTICATE_COLUMNS,
  AUTHENTICATE_CTES,
  authenticate_params,
  authenticate_result_of,
  AUTHENTICATE_TYPES,
  type AuthenticateInput,
  type AuthenticateResult,
  type AuthRow,
} from "./api_keys.ts";
import {
  check_charge_fields,
  reservation_result_of,
  reservation_ttl_of,
  type ReservationRow,
  type ReserveResult,
} from "./usage.ts";
import type { Plan } from "./schema.ts";

// $1–$8 as the key statement's; $9 month, $10 request hash, $11 monthly
// invoices by plan (jsonb), $12 legacy hash (or null), $13 now, $14 the
// reservation's TTL in ms. Commits asynchronously like both halves (set in
// `found`, so only when a key was found).
const GENERATE_STATEMENT: PreparedStatement = {
  name: "ink_authenticate_and_reserve",
  types: [
    ...AUTHENTICATE_TYPES,
    "text",
    "text",
    "jsonb",
    "text",
    "timestamptz",
    "int",
  ],
  text: `
    with ${AUTHENTICATE_CTES},
    charge as (
      select found.account_id,
             ($11::jsonb ->> found.plan)::int as monthly_limit
      from found
      where found.mode = 'live' and exists (select 1 from hit)
    ),
    reservation as (
      select r.status, r.used from charge,
        lateral ink_reserve_generation(charge.account_id, $9::text,
          $10::text, $12::text, charge.monthly_limit, $13::timestamptz,
          $14::int) r
    )
    select ${AUTHENTICATE_COLUMNS},
           (select status from reservation) as status,
           (select used from reservation) as used
    from found
  `,
};

// Whether the statement charges for this key's request: a live key on an
// active subscription whose request the rate limit counted.
function is_charged(
  auth: AuthenticateResult,
): auth is Extract<AuthenticateResult, { status: "ok" }> {
  return auth.status === "ok" && auth.mode === "live" && auth.rate_allowed;
}

/** Input of {@linkcode authenticate_and_reserve}. */
export interface AuthenticateAndReserveInput extends AuthenticateInput {
  /** Quota month, "YYYY-MM". */
  month: string;
  /** Day for the per-day chart, "YYYY-MM-DD", inside `month`. */
  day: string;
  /** Hash of the canonical request body; never the body itself. */
  request_hash: string;
  /** Invoices a month by plan. */
  monthly_limits: Record<Plan, number>;
  /** The same request's hash in its legacy form, looked up as well. */
  legacy_hash?: string;
  /** How long the reservation holds its unit (default 30 s). */
  ttl_ms?: number;
}

/** Outcome of {@linkcode authenticate_and_reserve}. */
export interface AuthenticateAndReserveResult {
  /** What the key statement alone would have answered. */
  auth: AuthenticateResult;
  /**
   * The reservation, for a live key whose request was allowed; absent
   * otherwise (nothing was charged).
   */
  reservation?: ReserveResult;
}

/**
 * Authenticates an API key and, for a live key on an active subscription
 * within its rate limit, reserves one generation of the month, in one
 * statement. Answers as `authenticate_api_key` followed by
 * `reserve_generation` would.
 */
export async function authenticate_and_reserve(
  database: Database,
  input: AuthenticateAndReserveInput,
): Promise<AuthenticateAndReserveResult> {
  check_charge_fields(input);
  const ttl_ms = reservation_ttl_of(input.ttl_ms);
  const statement = await authenticate_params(input);
  if (!statement) return { auth: { status: "unknown" } };
  const rows = await database.run<AuthRow & ReservationRow>(
    GENERATE_STATEMENT,
    [
      ...statement.params,
      input.month,
      input.request_hash,
      JSON.stringify(input.monthly_limits),
      input.legacy_hash ?? null,
      input.now.toISOString(),
      ttl_ms,
    ],
  );
  const row = rows[0];
  const auth = authenticate_result_of(row, statement.window_start);
  if (!row || !is_charged(auth)) return { auth };
  return { auth, reservation: reservation_result_of(row) };
}
