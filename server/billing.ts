/**
 * Self-service billing through Stripe: Checkout for new subscriptions,
 * prorated upgrades, downgrades at the period end, the customer portal, and
 * the webhook that keeps each account's plan and subscription status in step
 * with Stripe.
 *
 * Webhooks are verified with the signing secret, handled once per event id,
 * and order-independent: whatever the event, the subscription's current
 * state is fetched from Stripe and applied, so an old event arriving late
 * cannot undo a newer one.
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
  type SubscriptionStatus,
} from "../contract/mod.ts";
import * as store from "../db/mod.ts";

/** Stripe settings; billing is on only when all of them are set. */
export interface StripeConfig {
  secret_key: string;
  webhook_secret: string;
  /** Stripe price id of each plan's monthly subscription. */
  prices: Record<Plan, string>;
  /** Another API base (tests' stand-in, stripe-mock), e.g. `http://127.0.0.1:12111`. */
  api_url?: string;
}

/** Options of {@link create_billing}. */
export interface BillingOptions {
  stripe: StripeConfig;
  /** Injectable clock (webhook timestamp tolerance). */
  now?: () => Date;
  /** Largest accepted age of a webhook signature, in seconds (Stripe's default: 300). */
  webhook_tolerance_seconds?: number;
}

/** How far ahead of our clock a webhook's signature may be dated (clock skew). */
export const WEBHOOK_FUTURE_TOLERANCE_SECONDS = 300;

/**
 * The `t=` of a `Stripe-Signature` header, read as the `stripe` package reads
 * it (the last `t` wins), so the timestamp checked is the one that was signed.
 */
function signature_timestamp(header: string): number {
  let timestamp = -1;
  for (const item of header.split(",")) {
    const [key, value] = item.split("=");
    if (key === "t") timestamp = parseInt(value, 10);
  }
  return timestamp;
}

/** What the webhook did with an event. */
export interface WebhookOutcome {
  received: true;
  /** Why nothing was done: `duplicate` (seen before) or `unhandled_type`. */
  ignored?: "duplicate" | "unhandled_type";
}

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

/** Stripe statuses after which a subscription never bills again. */
const ENDED_STATUSES = ["canceled", "incomplete_expired"];

/** The events acted upon; every other type is acknowledged and ignored. */
export const HANDLED_EVENTS = [
  "checkout.session.completed",
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.paid",
  "invoice.payment_failed",
] as const;

/**
 * Our subscription status for Stripe's. `past_due` stays active: Stripe is
 * still retrying the payment (its grace period); when retries end Stripe
 * moves the subscription to `unpaid` or `canceled`, per the account's
 * Billing settings, and the account becomes inactive.
 */
export function subscription_status_of(
  stripe_status: string,
): SubscriptionStatus {
  return ["active", "trialing", "past_due"].includes(stripe_status)
    ? "active"
    : "inactive";
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

function id_of(
  value: string | { id: string } | null | undefined,
): string | null {
  if (!value) return null;
  return typeof value === "string" ? value : value.id;
}

/**
 * Stripe's SDK (about 2.5 MB of heap) is imported with the first call to
 * Stripe, not at start: a service without billing never loads it.
 */
async function stripe_client(config: StripeConfig): Promise<Stripe> {
  const { default: Stripe } = await import("stripe");
  const base = config.api_url ? new URL(config.api_url) : undefined;
  return new Stripe(config.secret_key, {
    httpClient: Stripe.createFetchHttpClient(),
    maxNetworkRetries: 2,
    timeout: 10_000,
    ...(base
      ? {
        host: base.hostname,
        port: base.port ||
          (base.protocol === "https:" ? "443" : "80"),
        protocol: base.protocol === "http:" ? "http" : "https",
      }
      : {}),
  });
}

function unavailable(error: unknown): ApiError {
  return new ApiError(
    "unavailable",
    "The payment provider could not be reached; try again in a minute",
    { headers: { "Retry-After": "30" }, cause: error },
  );
}

/** What the billing operations share: the database, Stripe, the clock. */
interface BillingCore {
  database: store.Database;
  options: BillingOptions;
  stripe: () => Promise<Stripe>;
  now: () => Date;
  /** The plan of each configured price id. */
  plan_of_price: Map<string, Plan>;
}

async function call_stripe<T>(
  core: BillingCore,
  operation: (client: Stripe) => Promise<T>,
): Promise<T> {
  try {
    return await operation(await core.stripe());
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw unavailable(error);
  }
}

/** Applies a subscription's current state to the account it belongs to. */
async function apply_subscription(
  core: BillingCore,
  subscription: Stripe.Subscription,
  hint_account_id?: string,
): Promise<void> {
  const customer_id = id_of(subscription.customer);
  if (!customer_id) return;
  let record = await store.find_billing_by_customer(core.database, customer_id);
  const account_id = record?.account_id ?? hint_account_id ??
    subscription.metadata?.account_id;
  if (!account_id || !await store.get_account(core.database, account_id)) {
    console.error(
      `billing: subscription ${subscription.id} of customer ${customer_id} belongs to no account; ignored`,
    );
    return;
  }
  record ??= await store.link_stripe_customer(core.database, {
    account_id,
    stripe_customer_id: customer_id,
  });
  if (record.stripe_customer_id !== customer_id) return;
  // A newer subscription of the account wins over an older, ended one.
  if (
    record.stripe_subscription_id &&
    record.stripe_subscription_id !== subscription.id &&
    !["active", "trialing", "past_due", "unpaid"].includes(
      subscription.status,
    )
  ) return;
  const item = subscription.items.data[0];
  const price_id = item?.price?.id ?? null;
  const plan = price_id ? core.plan_of_price.get(price_id) : undefined;
  if (price_id && !plan) {
    console.error(
      `billing: price ${price_id} is none of the configured STRIPE_PRICE_* ids; plan left unchanged`,
    );
  }
  const period_end = item?.current_period_end;
  const pending = subscription.schedule && record.pending_plan !== plan
    ? record.pending_plan
    : null;
  await store.apply_subscription_state(core.database, {
    account_id: record.account_id,
    stripe_subscription_id: subscription.id,
    stripe_status: subscription.status,
    stripe_price_id: price_id,
    current_period_end: period_end ? new Date(period_end * 1000) : null,
    cancel_at_period_end: subscription.cancel_at_period_end ?? false,
    pending_plan: pending,
    plan,
    subscription_status: subscription_status_of(subscription.status),
  });
}

async function refresh_subscription(
  core: BillingCore,
  subscription_id: string,
  hint_account_id?: string,
): Promise<void> {
  const subscription = await (await core.stripe()).subscriptions.retrieve(
    subscription_id,
  );
  await apply_subscription(core, subscription, hint_account_id);
}

function subscription_of_invoice(invoice: Stripe.Invoice): string | null {
  return id_of(invoice.parent?.subscription_details?.subscription);
}

async function handle_event(
  core: BillingCore,
  event: Stripe.Event,
): Promise<void> {
  switch (event.type) {
    case "checkout.session.completed": {
      const session = event.data.object;
      if (session.mode !== "subscription") return;
      const account_id = session.client_reference_id ??
        session.metadata?.account_id ?? undefined;
      const customer_id = id_of(session.customer);
      if (account_id && customer_id) {
        if (await store.get_account(core.database, account_id)) {
          await store.link_stripe_customer(core.database, {
            account_id,
            stripe_customer_id: customer_id,
          });
        }
      }
      const subscription_id = id_of(session.subscription);
      if (subscription_id) {
        await refresh_subscription(core, subscription_id, account_id);
      }
      return;
    }
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      await refresh_subscription(core, event.data.object.id);
      return;
    case "invoice.paid":
    case "invoice.payment_failed": {
      const subscription_id = subscription_of_invoice(event.data.object);
      if (subscription_id) await refresh_subscription(core, subscription_id);
      return;
    }
  }
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
  const session = await call_stripe(
    core,
    (client) =>
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
      }),
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
  const schedule = await call_stripe(
    core,
    (client) =>
      client.subscriptionSchedules.create({
        from_subscription: change.subscription_id,
      }),
  );
  const phase = schedule.phases[0];
  await call_stripe(
    core,
    (client) =>
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
      }),
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
  const subscription = await call_stripe(
    core,
    (client) => client.subscriptions.retrieve(record.stripe_subscription_id!),
  );
  const item = subscription.items.data[0];
  const current_plan = core.plan_of_price.get(item?.price?.id ?? "") ??
    account.plan;
  const schedule_id = id_of(subscription.schedule);
  if (current_plan === input.plan) {
    // Choosing the current plan again cancels a scheduled downgrade.
    if (schedule_id && record.pending_plan) {
      await call_stripe(
        core,
        (client) => client.subscriptionSchedules.release(schedule_id),
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
    await call_stripe(
      core,
      (client) => client.subscriptionSchedules.release(schedule_id),
    );
  }
  if (
    PLAN_IDS.indexOf(input.plan) > PLAN_IDS.indexOf(current_plan)
  ) {
    // Upgrade: the new price at once, the difference invoiced now.
    const updated = await call_stripe(
      core,
      (client) =>
        client.subscriptions.update(subscription.id, {
          items: [{ id: item.id, price }],
          proration_behavior: "always_invoice",
          cancel_at_period_end: false,
        }),
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

/** Checks a webhook delivery's signature and acts on its event once. */
async function handle_webhook(
  core: BillingCore,
  raw_body: Uint8Array,
  signature: string | null,
): ReturnType<Billing["handle_webhook"]> {
  if (!signature) {
    throw new ApiError(
      "invalid_request",
      "Missing Stripe-Signature header",
    );
  }
  let event: Stripe.Event;
  try {
    event = await (await core.stripe()).webhooks.constructEventAsync(
      raw_body,
      signature,
      core.options.stripe.webhook_secret,
      core.options.webhook_tolerance_seconds ?? 300,
      undefined,
      core.now().getTime(), // milliseconds, despite the parameter's name
    );
  } catch (error) {
    throw new ApiError(
      "invalid_request",
      `Stripe webhook signature rejected: ${
        error instanceof Error ? error.message.split("\n")[0] : "invalid"
      }`,
    );
  }
  // Stripe's check bounds only the age; a signature dated ahead would
  // stay replayable until long after it was made.
  const signed_at = signature_timestamp(signature);
  if (
    !Number.isFinite(signed_at) ||
    signed_at - core.now().getTime() / 1000 > WEBHOOK_FUTURE_TOLERANCE_SECONDS
  ) {
    throw new ApiError(
      "invalid_request",
      `Stripe webhook signature rejected: timestamp more than ${WEBHOOK_FUTURE_TOLERANCE_SECONDS} seconds in the future`,
    );
  }
  if (!(HANDLED_EVENTS as readonly string[]).includes(event.type)) {
    return { received: true, ignored: "unhandled_type" };
  }
  const first = await store.record_stripe_event(core.database, {
    id: event.id,
    type: event.type,
    received_at: core.now(),
  });
  if (!first) return { received: true, ignored: "duplicate" };
  try {
    await handle_event(core, event);
  } catch (error) {
    // Forget it, so Stripe's retry of this delivery is handled anew.
    await store.forget_stripe_event(core.database, event.id).catch(() => {});
    throw error instanceof ApiError ? error : unavailable(error);
  }
  return { received: true };
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
      const session = await call_stripe(
        core,
        (client) =>
          client.billingPortal.sessions.create({
            customer: record.stripe_customer_id,
            return_url: `${base_url}/dashboard/usage`,
          }),
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
      await call_stripe(core, async (client) => {
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
        await call_stripe(
          core,
          () =>
            refresh_subscription(
              core,
              record.stripe_subscription_id!,
              account_id,
            ),
        );
      }
    },
  };
}
