/**
 * Drizzle table definitions for the invoice service.
 *
 * Migrations under `db/migrations/` are generated from this file with
 * drizzle-kit: change the schema here, then run
 * `deno task db:generate --name=what_it_does` and commit the files it writes
 * (see `db/README.md`).
 *
 * @module
 */
import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

/** Plans an account can be on. Limits per plan live in the server layer. */
export const PLANS = ["starter", "pro", "team"] as const;
/** A plan name. */
export type Plan = typeof PLANS[number];
// The plans as an SQL list, for the check constraints.
const PLAN_LIST = sql.raw(PLANS.map((plan) => `'${plan}'`).join(", "));

/** Subscription states; only "active" accounts may generate. */
export const SUBSCRIPTION_STATUSES = ["active", "inactive"] as const;
/** A subscription status. */
export type SubscriptionStatus = typeof SUBSCRIPTION_STATUSES[number];

/**
 * Key modes: `live` keys are charged against the plan; `test` keys render
 * marked test documents, never charged, with a rate limit of their own.
 */
export const KEY_MODES = ["live", "test"] as const;
/** A key mode. */
export type KeyMode = typeof KEY_MODES[number];

/** Customer accounts. Emails are stored lower-cased so lookups are exact. */
export const accounts = pgTable("accounts", {
  id: uuid("id").primaryKey().defaultRandom(),
  email: text("email").notNull().unique(),
  name: text("name"),
  plan: text("plan", { enum: PLANS }).notNull(),
  subscription_status: text("subscription_status", {
    enum: SUBSCRIPTION_STATUSES,
  }).notNull().default("active"),
  // Nullable: API-only accounts have no dashboard password.
  password_hash: text("password_hash"),
  // Default true: accounts the operator creates, and those that existed
  // before verification, count as verified; only sign-up stores false.
  email_verified: boolean("email_verified").notNull().default(true),
  created_at: timestamp("created_at", { withTimezone: true }).notNull()
    .defaultNow(),
  updated_at: timestamp("updated_at", { withTimezone: true }).notNull()
    .defaultNow(),
}, (t) => [
  check("accounts_email_lower_case", sql`${t.email} = lower(${t.email})`),
  check("accounts_plan_valid", sql`${t.plan} in (${PLAN_LIST})`),
  check(
    "accounts_subscription_status_valid",
    sql`${t.subscription_status} in ('active', 'inactive')`,
  ),
]);

/** API keys. Only a SHA-256 (hex) of the full key is stored. */
export const api_keys = pgTable("api_keys", {
  id: uuid("id").primaryKey().defaultRandom(),
  account_id: uuid("account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  name: text("name").notNull(),
  // Non-secret: shown in listings so users can tell keys apart.
  prefix: text("prefix").notNull(),
  secret_hash: text("secret_hash").notNull(),
  mode: text("mode", { enum: KEY_MODES }).notNull().default("live"),
  created_at: timestamp("created_at", { withTimezone: true }).notNull()
    .defaultNow(),
  last_used_at: timestamp("last_used_at", { withTimezone: true }),
  revoked_at: timestamp("revoked_at", { withTimezone: true }),
}, (t) => [
  uniqueIndex("api_keys_secret_hash_key").on(t.secret_hash),
  index("api_keys_account_id_idx").on(t.account_id),
  check("api_keys_mode_valid", sql`${t.mode} in ('live', 'test')`),
]);

/** Generations counted per account and calendar month ("YYYY-MM"). */
export const usage_monthly = pgTable("usage_monthly", {
  account_id: uuid("account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  month: text("month").notNull(),
  count: integer("count").notNull().default(0),
  // Calls with test keys: shown apart, never counted against the plan.
  test_count: integer("test_count").notNull().default(0),
}, (t) => [
  primaryKey({ columns: [t.account_id, t.month] }),
  check("usage_monthly_month_format", sql`${t.month} ~ '^[0-9]{4}-[0-9]{2}$'`),
  check("usage_monthly_count_non_negative", sql`${t.count} >= 0`),
  check("usage_monthly_test_count_non_negative", sql`${t.test_count} >= 0`),
]);

/** Generations counted per account and day; counts only, for a chart. */
export const usage_daily = pgTable("usage_daily", {
  account_id: uuid("account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  day: date("day", { mode: "string" }).notNull(),
  count: integer("count").notNull().default(0),
}, (t) => [
  primaryKey({ columns: [t.account_id, t.day] }),
  check("usage_daily_count_non_negative", sql`${t.count} >= 0`),
]);

/**
 * Generations per API key and calendar month ("YYYY-MM"), counts only: for
 * live keys the charged invoices, for test keys their (never charged) calls.
 * Kept for revoked keys, so a month's breakdown still adds up.
 */
export const usage_by_key = pgTable("usage_by_key", {
  key_id: uuid("key_id").notNull().references(() => api_keys.id, {
    onDelete: "cascade",
  }),
  month: text("month").notNull(),
  count: integer("count").notNull().default(0),
}, (t) => [
  primaryKey({ columns: [t.key_id, t.month] }),
  check("usage_by_key_month_format", sql`${t.month} ~ '^[0-9]{4}-[0-9]{2}$'`),
  check("usage_by_key_count_non_negative", sql`${t.count} >= 0`),
]);

/**
 * One row per generation of a month: a hash of the canonical request body,
 * never its content. A settled row is a delivered, charged document (an
 * identical retry in the same month is free); an unsettled one is a
 * reservation, which holds a unit of the month until `expires_at`.
 */
export const generation_receipts = pgTable("generation_receipts", {
  account_id: uuid("account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  month: text("month").notNull(),
  request_hash: text("request_hash").notNull(),
  created_at: timestamp("created_at", { withTimezone: true }).notNull()
    .defaultNow(),
  /** Delivered and charged; false while only reserved. */
  settled: boolean("settled").notNull().default(true),
  /** When an unsettled reservation stops holding its unit. */
  expires_at: timestamp("expires_at", { withTimezone: true }),
}, (t) => [
  primaryKey({ columns: [t.account_id, t.month, t.request_hash] }),
  // Pruning deletes whole old months.
  index("generation_receipts_month_idx").on(t.month),
  // Open reservations, counted against the limit and swept once expired.
  index("generation_receipts_open_idx").on(t.account_id, t.month)
    .where(sql`not ${t.settled}`),
]);

/** States of an `Idempotency-Key`: its first request running, or done. */
export const IDEMPOTENCY_STATES = ["running", "done"] as const;

/**
 * `Idempotency-Key`s of `POST /generate`, kept 24 hours: hashes of the key
 * and of the request only, never invoice content.
 */
export const idempotency_keys = pgTable("idempotency_keys", {
  account_id: uuid("account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  key_hash: text("key_hash").notNull(),
  request_hash: text("request_hash").notNull(),
  state: text("state", { enum: IDEMPOTENCY_STATES }).notNull(),
  created_at: timestamp("created_at", { withTimezone: true }).notNull()
    .defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.account_id, t.key_hash] }),
  // Pruning deletes by age.
  index("idempotency_keys_created_at_idx").on(t.created_at),
  check("idempotency_keys_state_valid", sql`${t.state} in ('running', 'done')`),
]);

/** Rate-limit counters per bucket and fixed window; two adjacent ones make a sliding window. */
export const rate_limit_windows = pgTable("rate_limit_windows", {
  bucket: text("bucket").notNull(),
  window_start: timestamp("window_start", { withTimezone: true }).notNull(),
  count: integer("count").notNull().default(0),
}, (t) => [
  primaryKey({ columns: [t.bucket, t.window_start] }),
  // Pruning deletes by age across all buckets.
  index("rate_limit_windows_window_start_idx").on(t.window_start),
]);

/** Dashboard sessions. Only a SHA-256 (hex) of the cookie value is stored. */
export const sessions = pgTable("sessions", {
  id_hash: text("id_hash").primaryKey(),
  account_id: uuid("account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  csrf_token: text("csrf_token").notNull(),
  created_at: timestamp("created_at", { withTimezone: true }).notNull()
    .defaultNow(),
  expires_at: timestamp("expires_at", { withTimezone: true }).notNull(),
}, (t) => [
  index("sessions_account_id_idx").on(t.account_id),
  index("sessions_expires_at_idx").on(t.expires_at),
]);

/**
 * An account's Stripe billing, when it has one: Stripe's ids and the last
 * subscription state we applied. Nothing about cards is stored.
 */
export const billing_accounts = pgTable("billing_accounts", {
  account_id: uuid("account_id").primaryKey().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  stripe_customer_id: text("stripe_customer_id").notNull(),
  stripe_subscription_id: text("stripe_subscription_id"),
  /** Stripe's own subscription status, e.g. `active`, `past_due`, `canceled`. */
  stripe_status: text("stripe_status"),
  stripe_price_id: text("stripe_price_id"),
  current_period_end: timestamp("current_period_end", { withTimezone: true }),
  cancel_at_period_end: boolean("cancel_at_period_end").notNull().default(
    false,
  ),
  /** A downgrade scheduled for the end of the period. */
  pending_plan: text("pending_plan", { enum: PLANS }),
  /** An operator changed plan or status by hand; Stripe events then leave them alone. */
  operator_override: boolean("operator_override").notNull().default(false),
  updated_at: timestamp("updated_at", { withTimezone: true }).notNull()
    .defaultNow(),
}, (t) => [
  uniqueIndex("billing_accounts_stripe_customer_id_key").on(
    t.stripe_customer_id,
  ),
  index("billing_accounts_stripe_subscription_id_idx").on(
    t.stripe_subscription_id,
  ),
]);

/** Stripe webhook events already handled, by id, so a redelivery is a no-op. */
export const stripe_events = pgTable("stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  received_at: timestamp("received_at", { withTimezone: true }).notNull()
    .defaultNow(),
}, (t) => [index("stripe_events_received_at_idx").on(t.received_at)]);

/** What an account token proves when it comes back from the mailbox. */
export const ACCOUNT_TOKEN_PURPOSES = [
  "password_reset",
  "verify_email",
  "change_email",
] as const;
/** A purpose of an account token. */
export type AccountTokenPurpose = typeof ACCOUNT_TOKEN_PURPOSES[number];

/**
 * Single-use tokens sent by e-mail (password reset, address verification).
 * Only a SHA-256 (hex) of the token is stored; using one deletes its row.
 */
export const account_tokens = pgTable("account_tokens", {
  token_hash: text("token_hash").primaryKey(),
  account_id: uuid("account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  purpose: text("purpose", { enum: ACCOUNT_TOKEN_PURPOSES }).notNull(),
  // The account's address when the token was made: void once it changes.
  email: text("email").notNull(),
  // `change_email` only: the address the link was sent to, which becomes
  // the account's when the link is opened.
  new_email: text("new_email"),
  created_at: timestamp("created_at", { withTimezone: true }).notNull()
    .defaultNow(),
  expires_at: timestamp("expires_at", { withTimezone: true }).notNull(),
}, (t) => [
  index("account_tokens_account_id_idx").on(t.account_id),
  index("account_tokens_expires_at_idx").on(t.expires_at),
  check(
    "account_tokens_purpose_valid",
    sql`${t.purpose} in ('password_reset', 'verify_email', 'change_email')`,
  ),
]);

/**
 * Monthly counts of deleted accounts, summed per month with no account id,
 * e-mail or key: the operator's books keep the totals after the personal
 * data is gone.
 */
export const deleted_account_usage = pgTable("deleted_account_usage", {
  month: text("month").primaryKey(),
  count: integer("count").notNull().default(0),
  test_count: integer("test_count").notNull().default(0),
  /** How many deleted accounts' counts this month's row includes. */
  accounts: integer("accounts").notNull().default(0),
}, (t) => [
  check(
    "deleted_account_usage_month_format",
    sql`${t.month} ~ '^[0-9]{4}-[0-9]{2}$'`,
  ),
]);

/** States of an upgrade request: waiting for the operator, or handled. */
export const UPGRADE_REQUEST_STATUSES = [
  "open",
  "closed",
  "withdrawn",
] as const;
/** An upgrade request's state. */
export type UpgradeRequestStatus = typeof UPGRADE_REQUEST_STATUSES[number];

/**
 * Plan changes customers asked the operator for (servers without Stripe
 * billing). At most one open request per account; an operator's plan change
 * closes it, recording when, through what and the plan it left.
 */
export const upgrade_requests = pgTable("upgrade_requests", {
  id: uuid("id").primaryKey().defaultRandom(),
  account_id: uuid("account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  /** The plan the account was on when it asked. */
  current_plan: text("current_plan", { enum: PLANS }).notNull(),
  requested_plan: text("requested_plan", { enum: PLANS }).notNull(),
  message: text("message"),
  status: text("status", { enum: UPGRADE_REQUEST_STATUSES }).notNull()
    .default("open"),
  created_at: timestamp("created_at", { withTimezone: true }).notNull()
    .defaultNow(),
  closed_at: timestamp("closed_at", { withTimezone: true }),
  /** Who closed it: `admin_api` or `admin_cli`. */
  closed_by: text("closed_by"),
  /** The account's plan after the change that closed it. */
  resulting_plan: text("resulting_plan", { enum: PLANS }),
}, (t) => [
  uniqueIndex("upgrade_requests_one_open_per_account").on(t.account_id).where(
    sql`${t.status} = 'open'`,
  ),
  index("upgrade_requests_account_id_created_at_idx").on(
    t.account_id,
    t.created_at,
  ),
  index("upgrade_requests_created_at_idx").on(t.created_at),
  check(
    "upgrade_requests_status_valid",
    sql`${t.status} in ('open', 'closed', 'withdrawn')`,
  ),
  check(
    "upgrade_requests_requested_plan_valid",
    sql`${t.requested_plan} in (${PLAN_LIST})`,
  ),
]);
