/**
 * Stripe's side of billing: its configuration and client, what its statuses
 * mean for an account, and the webhook that keeps each account's plan and
 * subscription status in step with Stripe.
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
  type Plan,
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

/** Stripe statuses after which a subscription never bills again. */
export const ENDED_STATUSES = ["canceled", "incomplete_expired"];

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

export function id_of(
  value: string | { id: string } | null | undefined,
): string | null {
  if (!value) return null;
  return typeof value === "string" ? value : value.id;
}

/**
 * Stripe's SDK (about 2.5 MB of heap) is imported with the first call to
 * Stripe, not at start: a service without billing never loads it.
 */
export async function stripe_client(config: StripeConfig): Promise<Stripe> {
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

export function unavailable(error: unknown): ApiError {
  return new ApiError(
    "unavailable",
    "The payment provider could not be reached; try again in a minute",
    { headers: { "Retry-After": "30" }, cause: error },
  );
}

/** What the billing operations share: the database, Stripe, the clock. */
export interface BillingCore {
  database: store.Database;
  options: BillingOptions;
  stripe: () => Promise<Stripe>;
  now: () => Date;
  /** The plan of each configured price id. */
  plan_of_price: Map<string, Plan>;
  /** Runs a Stripe call; failing to reach Stripe is a 503. */
  call_stripe<T>(operation: (client: Stripe) => Promise<T>): Promise<T>;
}

export async function call_stripe<T>(
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
export async function apply_subscription(
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

export async function refresh_subscription(
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

/** Checks a webhook delivery's signature and acts on its event once. */
export async function handle_webhook(
  core: BillingCore,
  raw_body: Uint8Array,
  signature: string | null,
): Promise<WebhookOutcome> {
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
