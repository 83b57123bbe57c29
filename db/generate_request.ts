/**
 * The database work of a `POST /generate` in one round trip: the key
 * statement (key, account, rate limit, last use; db/api_keys.ts) and the
 * quota reservation (receipt and charges; db/usage.ts) as one statement, so
 * a request costs one database round trip and one transaction instead of
 * two. The reservation runs only for a live key on an active subscription
 * whose request the rate limit counted; its semantics are exactly those of
 * `reserve_generation`, because both are built from the same CTEs.
 *
 * @module
 */
import type { Database, PreparedStatement } from "./database.ts";
import {
  authenticate_api_key,
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
  charge_ctes,
  check_charge_fields,
  get_usage,
  is_generation_refused,
  RESERVATION_COLUMNS,
  reservation_result_of,
  reservation_seen_columns,
  type ReservationRow,
  type ReserveResult,
} from "./usage.ts";
import type { Plan } from "./schema.ts";

// $1–$8 as the key statement's; $9 month, $10 request hash, $11 monthly
// invoices by plan (jsonb), $12 day. Commits asynchronously like both halves
// (set in `found`, so only when a key was found: nothing else is written).
const GENERATE_STATEMENT: PreparedStatement = {
  name: "ink_authenticate_and_reserve",
  types: [...AUTHENTICATE_TYPES, "text", "text", "jsonb", "date"],
  text: `
    with ${AUTHENTICATE_CTES},
    charge as (
      select found.account_id, found.key_id,
             ($11::jsonb ->> found.plan)::int as monthly_limit
      from found
      where found.mode = 'live' and exists (select 1 from hit)
    ),
    seen as (
      select charge.account_id, charge.key_id, charge.monthly_limit,
             ${
    reservation_seen_columns("charge.account_id", "$9::text", "$10::text")
  }
      from charge
    ),
    ${
    charge_ctes({
      month: "$9::text",
      request_hash: "$10::text",
      day: "$12::date",
    })
  }
    select ${AUTHENTICATE_COLUMNS},
           ${RESERVATION_COLUMNS}
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
 * `reserve_generation` would. When the last invoice of the month went to a
 * concurrent request between the statement's snapshot and its charge, the
 * statement is rolled back whole; then the key statement runs alone (so the
 * request still counts against the rate limit) and the month is reported
 * used up.
 */
export async function authenticate_and_reserve(
  database: Database,
  input: AuthenticateAndReserveInput,
): Promise<AuthenticateAndReserveResult> {
  check_charge_fields(input);
  const statement = await authenticate_params(input);
  if (!statement) return { auth: { status: "unknown" } };
  let row: (AuthRow & ReservationRow) | undefined;
  try {
    const rows = await database.run<AuthRow & ReservationRow>(
      GENERATE_STATEMENT,
      [
        ...statement.params,
        input.month,
        input.request_hash,
        JSON.stringify(input.monthly_limits),
        input.day,
      ],
    );
    row = rows[0];
  } catch (error) {
    if (!is_generation_refused(error)) throw error;
    const auth = await authenticate_api_key(database, input);
    if (!is_charged(auth)) return { auth };
    const used = await get_usage(database, auth.account.id, {
      month: input.month,
    });
    return { auth, reservation: { status: "exhausted", used } };
  }
  const auth = authenticate_result_of(row, statement.window_start);
  if (!row || !is_charged(auth)) return { auth };
  return {
    auth,
    reservation: reservation_result_of(
      row,
      input.monthly_limits[auth.account.plan],
    ),
  };
}
