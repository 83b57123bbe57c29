/**
 * Plan changes customers ask the operator for, on servers that take no
 * payments: recorded, listed for the operator, closed by the operator's
 * plan change or withdrawn by the customer. At most one request per account
 * is open at a time (a partial unique index), so a second ask finds the
 * first instead.
 *
 * @module
 */
import { and, count, desc, eq, gte, inArray, min } from "drizzle-orm";
import type { Database } from "./database.ts";
import { is_uuid } from "./_util.ts";
import {
  accounts,
  type Plan,
  upgrade_requests,
  type UpgradeRequestStatus,
} from "./schema.ts";

/** An upgrade request with the asking account's e-mail address. */
export interface UpgradeRequestRecord {
  id: string;
  account_id: string;
  account_email: string;
  /** The plan the account was on when it asked. */
  current_plan: Plan;
  requested_plan: Plan;
  message: string | null;
  status: UpgradeRequestStatus;
  created_at: Date;
  closed_at: Date | null;
  /** `admin_api` or `admin_cli`, or `customer` for a withdrawn request. */
  closed_by: string | null;
  /** The account's plan after the change that closed the request. */
  resulting_plan: Plan | null;
}

/** Input of {@link create_upgrade_request}. */
export interface CreateUpgradeRequestInput {
  account_id: string;
  current_plan: Plan;
  requested_plan: Plan;
  message?: string | null;
  now: Date;
}

/** What {@link create_upgrade_request} did. */
export type CreateUpgradeRequestResult =
  | { status: "created"; request: UpgradeRequestRecord }
  /** The account already has an open request: that one, unchanged. */
  | { status: "pending"; request: UpgradeRequestRecord };

const request_columns = {
  id: upgrade_requests.id,
  account_id: upgrade_requests.account_id,
  account_email: accounts.email,
  current_plan: upgrade_requests.current_plan,
  requested_plan: upgrade_requests.requested_plan,
  message: upgrade_requests.message,
  status: upgrade_requests.status,
  created_at: upgrade_requests.created_at,
  closed_at: upgrade_requests.closed_at,
  closed_by: upgrade_requests.closed_by,
  resulting_plan: upgrade_requests.resulting_plan,
};

function select_requests(database: Database) {
  return database.db.select(request_columns).from(upgrade_requests)
    .innerJoin(accounts, eq(accounts.id, upgrade_requests.account_id));
}

/**
 * Records a request, unless the account has an open one already: then that
 * one is returned as `pending` (two concurrent asks record one request).
 */
export async function create_upgrade_request(
  database: Database,
  input: CreateUpgradeRequestInput,
): Promise<CreateUpgradeRequestResult> {
  const inserted = await database.db.insert(upgrade_requests).values({
    account_id: input.account_id,
    current_plan: input.current_plan,
    requested_plan: input.requested_plan,
    message: input.message ?? null,
    created_at: input.now,
  }).onConflictDoNothing().returning({ id: upgrade_requests.id });
  if (inserted[0]) {
    const rows = await select_requests(database).where(
      eq(upgrade_requests.id, inserted[0].id),
    );
    return { status: "created", request: rows[0] };
  }
  const open = await get_open_upgrade_request(database, input.account_id);
  if (!open) {
    // Closed between our insert and this read: the caller may ask again.
    throw new Error("upgrade request conflicted but none is open");
  }
  return { status: "pending", request: open };
}

/** The account's open request, if any. */
export async function get_open_upgrade_request(
  database: Database,
  account_id: string,
): Promise<UpgradeRequestRecord | undefined> {
  if (!is_uuid(account_id)) return undefined;
  const rows = await select_requests(database).where(and(
    eq(upgrade_requests.account_id, account_id),
    eq(upgrade_requests.status, "open"),
  )).limit(1);
  return rows[0];
}

/** The account's newest request (open or closed), if any. */
export async function get_latest_upgrade_request(
  database: Database,
  account_id: string,
): Promise<UpgradeRequestRecord | undefined> {
  if (!is_uuid(account_id)) return undefined;
  const rows = await select_requests(database).where(
    eq(upgrade_requests.account_id, account_id),
  ).orderBy(desc(upgrade_requests.created_at), desc(upgrade_requests.id))
    .limit(1);
  return rows[0];
}

/** How many requests the account made at or after `since`, and the oldest's time. */
export async function count_upgrade_requests_since(
  database: Database,
  account_id: string,
  since: Date,
): Promise<{ count: number; oldest: Date | null }> {
  if (!is_uuid(account_id)) return { count: 0, oldest: null };
  const rows = await database.db.select({
    n: count(),
    oldest: min(upgrade_requests.created_at),
  }).from(upgrade_requests).where(and(
    eq(upgrade_requests.account_id, account_id),
    gte(upgrade_requests.created_at, since),
  ));
  const oldest = rows[0]?.oldest;
  return {
    count: Number(rows[0]?.n ?? 0),
    oldest: oldest ? new Date(oldest) : null,
  };
}

/** Filter of {@link list_upgrade_requests}. */
export interface ListUpgradeRequestsInput {
  /** Only requests in this state; default all. */
  status?: UpgradeRequestStatus;
  /** At most this many, newest first (default 100). */
  limit?: number;
}

/** Requests of every account, newest first. */
export async function list_upgrade_requests(
  database: Database,
  input: ListUpgradeRequestsInput = {},
): Promise<UpgradeRequestRecord[]> {
  const query = select_requests(database);
  const filtered = input.status
    ? query.where(eq(upgrade_requests.status, input.status))
    : query;
  return await filtered.orderBy(
    desc(upgrade_requests.created_at),
    desc(upgrade_requests.id),
  ).limit(input.limit ?? 100);
}

/** Input of {@link close_upgrade_requests}. */
export interface CloseUpgradeRequestsInput {
  account_id: string;
  /** Who changed the plan: `admin_api` or `admin_cli`. */
  closed_by: string;
  /** The account's plan after the change. */
  resulting_plan: Plan;
  now: Date;
}

/** Closes the account's open request(s); returns those closed. */
export async function close_upgrade_requests(
  database: Database,
  input: CloseUpgradeRequestsInput,
): Promise<UpgradeRequestRecord[]> {
  if (!is_uuid(input.account_id)) return [];
  const closed = await database.db.update(upgrade_requests).set({
    status: "closed",
    closed_at: input.now,
    closed_by: input.closed_by,
    resulting_plan: input.resulting_plan,
  }).where(and(
    eq(upgrade_requests.account_id, input.account_id),
    eq(upgrade_requests.status, "open"),
  )).returning({ id: upgrade_requests.id });
  if (closed.length === 0) return [];
  return await select_requests(database).where(
    inArray(upgrade_requests.id, closed.map((row) => row.id)),
  );
}

/** What {@link withdraw_upgrade_request} did. */
export type WithdrawUpgradeRequestResult =
  | { status: "withdrawn"; request: UpgradeRequestRecord }
  /** The account's request, no longer open: unchanged. */
  | { status: "not_open"; request: UpgradeRequestRecord }
  /** No request of this account has this id. */
  | { status: "not_found" };

/**
 * Withdraws the account's open request `id` (the customer changed their
 * mind): it leaves the open state, so a new request can be sent.
 */
export async function withdraw_upgrade_request(
  database: Database,
  input: { id: string; account_id: string; now: Date },
): Promise<WithdrawUpgradeRequestResult> {
  if (!is_uuid(input.id) || !is_uuid(input.account_id)) {
    return { status: "not_found" };
  }
  const mine = and(
    eq(upgrade_requests.id, input.id),
    eq(upgrade_requests.account_id, input.account_id),
  );
  const withdrawn = await database.db.update(upgrade_requests).set({
    status: "withdrawn",
    closed_at: input.now,
    closed_by: "customer",
  }).where(and(mine, eq(upgrade_requests.status, "open")))
    .returning({ id: upgrade_requests.id });
  const rows = await select_requests(database).where(mine);
  if (!rows[0]) return { status: "not_found" };
  return {
    status: withdrawn.length > 0 ? "withdrawn" : "not_open",
    request: rows[0],
  };
}
