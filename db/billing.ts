/**
 * Stripe billing state of accounts, and the webhook events already handled.
 *
 * Knows nothing of Stripe's API: the server layer reads Stripe and passes
 * plain values in.
 *
 * @module
 */
import { eq, sql } from "drizzle-orm";
import type { Database } from "./database.ts";
import { count_deleted, is_uuid } from "./_util.ts";
import {
  accounts,
  billing_accounts,
  type Plan,
  stripe_events,
  type SubscriptionStatus,
} from "./schema.ts";

/** An account's billing record. */
export interface BillingRecord {
  account_id: string;
  stripe_customer_id: string;
  stripe_subscription_id: string | null;
  stripe_status: string | null;
  stripe_price_id: string | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  pending_plan: Plan | null;
  operator_override: boolean;
  updated_at: Date;
}

const billing_columns = {
  account_id: billing_accounts.account_id,
  stripe_customer_id: billing_accounts.stripe_customer_id,
  stripe_subscription_id: billing_accounts.stripe_subscription_id,
  stripe_status: billing_accounts.stripe_status,
  stripe_price_id: billing_accounts.stripe_price_id,
  current_period_end: billing_accounts.current_period_end,
  cancel_at_period_end: billing_accounts.cancel_at_period_end,
  pending_plan: billing_accounts.pending_plan,
  operator_override: billing_accounts.operator_override,
  updated_at: billing_accounts.updated_at,
};

/** The billing record of an account, or undefined when it never paid through Stripe. */
export async function get_billing(
  database: Database,
  account_id: string,
): Promise<BillingRecord | undefined> {
  if (!is_uuid(account_id)) return undefined;
  const rows = await database.db.select(billing_columns).from(
    billing_accounts,
  ).where(eq(billing_accounts.account_id, account_id)).limit(1);
  return rows[0];
}

/** The billing record holding a Stripe customer id, or undefined. */
export async function find_billing_by_customer(
  database: Database,
  stripe_customer_id: string,
): Promise<BillingRecord | undefined> {
  const rows = await database.db.select(billing_columns).from(
    billing_accounts,
  ).where(eq(billing_accounts.stripe_customer_id, stripe_customer_id)).limit(
    1,
  );
  return rows[0];
}

/**
 * Links an account to its Stripe customer. An account keeps its first
 * customer: a second link with another id is ignored and the stored record
 * returned, so a customer is never moved between accounts.
 */
export async function link_stripe_customer(
  database: Database,
  link: { account_id: string; stripe_customer_id: string },
): Promise<BillingRecord> {
  await database.db.insert(billing_accounts).values(link)
    .onConflictDoNothing();
  const record = await get_billing(database, link.account_id);
  if (!record) throw new Error(`account ${link.account_id} does not exist`);
  return record;
}

/** A Stripe subscription's state as the service applies it. */
export interface SubscriptionState {
  account_id: string;
  stripe_subscription_id: string;
  stripe_status: string;
  stripe_price_id: string | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  pending_plan: Plan | null;
  /** The plan the price stands for; undefined leaves the plan as it is. */
  plan?: Plan;
  subscription_status: SubscriptionStatus;
}

/**
 * Stores a subscription's state and, unless an operator overrode the
 * account by hand, sets the account's plan and subscription status to match,
 * in one transaction. Returns whether the account itself was changed.
 */
export async function apply_subscription_state(
  database: Database,
  state: SubscriptionState,
): Promise<{ account_changed: boolean }> {
  return await database.db.transaction(async (tx) => {
    const updated = await tx.update(billing_accounts).set({
      stripe_subscription_id: state.stripe_subscription_id,
      stripe_status: state.stripe_status,
      stripe_price_id: state.stripe_price_id,
      current_period_end: state.current_period_end,
      cancel_at_period_end: state.cancel_at_period_end,
      pending_plan: state.pending_plan,
      updated_at: sql`now()`,
    }).where(eq(billing_accounts.account_id, state.account_id)).returning({
      operator_override: billing_accounts.operator_override,
    });
    const record = updated[0];
    if (!record || record.operator_override) return { account_changed: false };
    const changed = await tx.update(accounts).set({
      ...(state.plan ? { plan: state.plan } : {}),
      subscription_status: state.subscription_status,
      updated_at: sql`now()`,
    }).where(eq(accounts.id, state.account_id)).returning({ id: accounts.id });
    return { account_changed: changed.length > 0 };
  });
}

/** Records or clears a downgrade scheduled for the end of the period. */
export async function set_pending_plan(
  database: Database,
  account_id: string,
  pending_plan: Plan | null,
): Promise<void> {
  await database.db.update(billing_accounts).set({
    pending_plan,
    updated_at: sql`now()`,
  }).where(eq(billing_accounts.account_id, account_id));
}

/**
 * Marks (or clears) an operator's hand-made plan or status on an account with
 * Stripe billing. Without a billing record there is nothing to override and
 * nothing is stored.
 */
export async function set_operator_override(
  database: Database,
  account_id: string,
  operator_override: boolean,
): Promise<void> {
  if (!is_uuid(account_id)) return;
  await database.db.update(billing_accounts).set({
    operator_override,
    updated_at: sql`now()`,
  }).where(eq(billing_accounts.account_id, account_id));
}

/**
 * Records a webhook event id. Returns false when it was recorded before (a
 * redelivery, to be acknowledged without acting again).
 */
export async function record_stripe_event(
  database: Database,
  event: { id: string; type: string; received_at?: Date },
): Promise<boolean> {
  const rows = await database.db.insert(stripe_events).values(event)
    .onConflictDoNothing().returning({ id: stripe_events.id });
  return rows.length > 0;
}

/** Forgets an event whose handling failed, so Stripe's retry is handled anew. */
export async function forget_stripe_event(
  database: Database,
  id: string,
): Promise<void> {
  await database.db.delete(stripe_events).where(eq(stripe_events.id, id));
}

/**
 * Deletes event ids received before `before`. Stripe retries a delivery for
 * up to three days, so keep at least that long.
 */
export async function prune_stripe_events(
  database: Database,
  before: Date,
): Promise<number> {
  return await count_deleted(
    database,
    sql`delete from stripe_events
      where received_at < ${before.toISOString()} returning 1`,
  );
}
