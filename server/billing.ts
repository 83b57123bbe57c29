/**
 * Self-service billing through Stripe: Checkout for new subscriptions,
 * prorated upgrades, downgrades at the period end, the customer portal, and
 * the webhook (`billing_stripe.ts`) that keeps each account's plan and
 * subscription status in step with Stripe.
 *
 * @module
 */
import type Stripe from "stripe";
import {
  ApiError,
  type BillingView,
  type ChangePlanResult,
  type Plan,
  PLAN_IDS,
} from "../contract/mod.ts";
import * as store from "../db/mod.ts";

import {
  apply_subscription,
  type BillingCore,
  type BillingOptions,
  call_stripe,
  ENDED_STATUSES,
  handle_webhook,
  id_of,
  refresh_subscription,
  stripe_client,
  unavailable,
  type WebhookOutcome,
} from "./billing_stripe.ts";

export {
  type BillingOptions,
  HANDLED_EVENTS,
  type StripeConfig,
  subscription_status_of,
  WEBHOOK_FUTURE_TOLERANCE_SECONDS,
  type WebhookOutcome,
} from "./billing_stripe.ts";

/** Billing operations of the service. */
export interface Billing {
  /** The account's billing state. */
  state(account_id: string): Promise<BillingView>;
  /** Moves an account to `plan` (Checkout, upgrade now, or downgrade later). */
  change_plan(
    account: { id: string; email: string; plan: Plan },
    input: { plan: Plan; base_url: string },
  ): Promise<ChangePlanResult>;
  /** A customer-portal session URL for the account. */
  portal(account_id: string, base_url: string): Promise<{ url: string }>;
  /** Verifies and handles one webhook delivery (the raw body, exactly as sent). */
  handle_webhook(
    raw_body: Uint8Array,
    signature: string | null,
  ): Promise<WebhookOutcome>;
  /**
   * An operator set plan or status by hand (`true`), or handed the account
   * back to Stripe (`false`: the subscription is read and applied again).
   */
  set_override(account_id: string, operator_override: boolean): Promise<void>;
  /**
   * Before an account is deleted: cancels its live subscription at once (no
   * further charges; the current period is not refunded). Throws
   * `unavailable` when Stripe cannot be reached, so nothing is deleted
   * while a subscription might still bill.
   */
  cancel_for_deletion(account_id: string): Promise<{ canceled: boolean }>;
}

/** A billing view for an account without any Stripe record. */
export function empty_billing(enabled: boolean): BillingView {
  return {
    enabled,
    has_subscription: false,
    stripe_customer_id: null,
    stripe_subscription_id: null,
    stripe_status: null,
    stripe_price_id: null,
    current_period_end: null,
    cancel_at_period_end: false,
    pending_plan: null,
    operator_override: false,
  };
}

/** The billing view of a stored record. */
export function billing_view(
  record: store.BillingRecord | undefined,
  enabled: boolean,
): BillingView {
  if (!record) return empty_billing(enabled);
  return {
    enabled,
    has_subscription: record.stripe_subscription_id !== null,
    stripe_customer_id: record.stripe_customer_id,
    stripe_subscription_id: record.stripe_subscription_id,
    stripe_status: record.stripe_status,
    stripe_price_id: record.stripe_price_id,
    current_period_end: record.current_period_end?.toISOString() ?? null,
    cancel_at_period_end: record.cancel_at_period_end,
    pending_plan: record.pending_plan,
    operator_override: record.operator_override,
  };
}

async function require_record(
  core: BillingCore,
  account_id: string,
): Promise<store.BillingRecord> {
  const record = await store.get_billing(core.database, account_id);
  if (!record) {
    throw new ApiError(
      "not_found",
      "This account has no billing yet; choose a plan to subscribe first",
    );
  }
  return record;
}

/** A new subscription: Stripe Checkout, for the customer on record if any. */
async function start_checkout(
  core: BillingCore,
  account: { id: string; email: string },
  input: { plan: Plan; base_url: string },
  record: store.BillingRecord | undefined,
): Promise<ChangePlanResult> {
  const price = core.options.stripe.prices[input.plan];
  const session = await core.call_stripe((client) =>
    client.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price, quantity: 1 }],
      client_reference_id: account.id,
      metadata: { account_id: account.id },
      subscription_data: { metadata: { account_id: account.id } },
      ...(record
        ? { customer: record.stripe_customer_id }
        : { customer_email: account.email }),
      success_url:
        `${input.base_url}/dashboard/usage?billing=success&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${input.base_url}/dashboard/usage?billing=canceled`,
    })
  );
  if (!session.url) throw unavailable(new Error("no Checkout URL"));
  return {
    action: "checkout",
    url: session.url,
    plan: input.plan,
    effective_at: null,
  };
}

/** A downgrade, scheduled for the end of the period paid for. */
async function schedule_downgrade(
  core: BillingCore,
  account_id: string,
  change: {
    subscription_id: string;
    current_price: string;
    price: string;
    plan: Plan;
  },
): Promise<ChangePlanResult> {
  const schedule = await core.call_stripe((client) =>
    client.subscriptionSchedules.create({
      from_subscription: change.subscription_id,
    })
  );
  const phase = schedule.phases[0];
  await core.call_stripe((client) =>
    client.subscriptionSchedules.update(schedule.id, {
      end_behavior: "release",
      phases: [
        {
          items: [{ price: change.current_price, quantity: 1 }],
          start_date: phase.start_date,
          end_date: phase.end_date,
        },
        {
          items: [{ price: change.price, quantity: 1 }],
          proration_behavior: "none",
          duration: { interval: "month", interval_count: 1 },
        },
      ],
    })
  );
  await store.set_pending_plan(core.database, account_id, change.plan);
  return {
    action: "downgrade_scheduled",
    url: null,
    plan: change.plan,
    effective_at: new Date(phase.end_date * 1000).toISOString(),
  };
}

/** Starts Checkout, or changes the live subscription's plan. */
async function change_plan(
  core: BillingCore,
  account: { id: string; email: string; plan: Plan },
  input: { plan: Plan; base_url: string },
): Promise<ChangePlanResult> {
  const record = await store.get_billing(core.database, account.id);
  const price = core.options.stripe.prices[input.plan];
  const live = record?.stripe_subscription_id &&
    !["canceled", "incomplete_expired"].includes(
      record.stripe_status ?? "",
    );
  if (!record || !live) {
    return await start_checkout(core, account, input, record);
  }
  const subscription = await core.call_stripe((client) =>
    client.subscriptions.retrieve(record.stripe_subscription_id!)
  );
  const item = subscription.items.data[0];
  const current_plan = core.plan_of_price.get(item?.price?.id ?? "") ??
    account.plan;
  const schedule_id = id_of(subscription.schedule);
  if (current_plan === input.plan) {
    // Choosing the current plan again cancels a scheduled downgrade.
    if (schedule_id && record.pending_plan) {
      await core.call_stripe((client) =>
        client.subscriptionSchedules.release(schedule_id)
      );
      await store.set_pending_plan(core.database, account.id, null);
    }
    return {
      action: "unchanged",
      url: null,
      plan: input.plan,
      effective_at: null,
    };
  }
  if (schedule_id) {
    await core.call_stripe((client) =>
      client.subscriptionSchedules.release(schedule_id)
    );
  }
  if (
    PLAN_IDS.indexOf(input.plan) > PLAN_IDS.indexOf(current_plan)
  ) {
    // Upgrade: the new price at once, the difference invoiced now.
    const updated = await core.call_stripe((client) =>
      client.subscriptions.update(subscription.id, {
        items: [{ id: item.id, price }],
        proration_behavior: "always_invoice",
        cancel_at_period_end: false,
      })
    );
    await store.set_pending_plan(core.database, account.id, null);
    await apply_subscription(core, updated, account.id);
    return {
      action: "upgraded",
      url: null,
      plan: input.plan,
      effective_at: null,
    };
  }
  // Downgrade: the customer keeps what they paid for until the period ends.
  return await schedule_downgrade(core, account.id, {
    subscription_id: subscription.id,
    current_price: item.price.id,
    price,
    plan: input.plan,
  });
}

/** Creates the billing operations over Stripe's API and the database. */
export function create_billing(
  database: store.Database,
  options: BillingOptions,
): Billing {
  let client: Promise<Stripe> | undefined;
  const core: BillingCore = {
    database,
    options,
    stripe: () => client ??= stripe_client(options.stripe),
    now: options.now ?? (() => new Date()),
    plan_of_price: new Map(
      (Object.entries(options.stripe.prices) as [Plan, string][]).map((
        [plan, price],
      ) => [price, plan]),
    ),
    call_stripe: (operation) => call_stripe(core, operation),
  };

  return {
    async state(account_id) {
      return billing_view(
        await store.get_billing(core.database, account_id),
        true,
      );
    },

    change_plan: (account, input) => change_plan(core, account, input),

    async portal(account_id, base_url) {
      const record = await require_record(core, account_id);
      const session = await core.call_stripe((client) =>
        client.billingPortal.sessions.create({
          customer: record.stripe_customer_id,
          return_url: `${base_url}/dashboard/usage`,
        })
      );
      return { url: session.url };
    },

    handle_webhook: (raw_body, signature) =>
      handle_webhook(core, raw_body, signature),

    async cancel_for_deletion(account_id) {
      const record = await store.get_billing(core.database, account_id);
      const subscription_id = record?.stripe_subscription_id;
      if (
        !subscription_id || ENDED_STATUSES.includes(record.stripe_status ?? "")
      ) {
        return { canceled: false };
      }
      await core.call_stripe(async (client) => {
        try {
          await client.subscriptions.cancel(subscription_id, {
            invoice_now: false,
            prorate: false,
          });
        } catch (error) {
          // Already gone at Stripe: nothing left that could bill.
          const { default: Stripe } = await import("stripe");
          if (
            error instanceof Stripe.errors.StripeInvalidRequestError &&
            error.statusCode === 404
          ) return;
          throw error;
        }
      });
      return { canceled: true };
    },

    async set_override(account_id, operator_override) {
      await store.set_operator_override(
        core.database,
        account_id,
        operator_override,
      );
      if (operator_override) return;
      const record = await store.get_billing(core.database, account_id);
      if (record?.stripe_subscription_id) {
        await core.call_stripe(() =>
          refresh_subscription(
            core,
            record.stripe_subscription_id!,
            account_id,
          )
        );
      }
    },
  };
}
