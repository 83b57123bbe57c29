/**
 * Self-service billing (Stripe) as the API shows it: an account's billing
 * state, plan changes and the billing portal.
 */
import { z } from "zod";
import { AccountWithUsageSchema, PlanSchema } from "./accounts.ts";

/** An account's billing as the dashboard and the operator see it. */
export const BillingSchema = z.object({
  enabled: z.boolean().describe(
    "Whether this server takes payments (Stripe configured). Off: plan changes go through the operator.",
  ),
  has_subscription: z.boolean().describe(
    "The account has a Stripe subscription (in any state).",
  ),
  stripe_customer_id: z.string().nullable(),
  stripe_subscription_id: z.string().nullable(),
  stripe_status: z.string().nullable().describe(
    "Stripe's subscription status: active, trialing, past_due, unpaid, canceled, …",
  ),
  stripe_price_id: z.string().nullable().describe(
    "The subscription's Stripe price (one of the configured STRIPE_PRICE_* ids).",
  ),
  current_period_end: z.string().nullable().describe(
    "End of the paid period, ISO 8601.",
  ),
  cancel_at_period_end: z.boolean().describe(
    "The subscription ends (and the account becomes inactive) at the period end.",
  ),
  pending_plan: PlanSchema.nullable().describe(
    "A downgrade that applies at the end of the period.",
  ),
  operator_override: z.boolean().describe(
    "An operator set plan or status by hand; Stripe events leave them alone until the override is cleared.",
  ),
}).meta({ id: "Billing" });

/** An account's billing. */
export type BillingView = z.infer<typeof BillingSchema>;

/** Body of a plan change from the dashboard. */
export const ChangePlanSchema = z.strictObject({
  plan: PlanSchema,
});

/** What a plan change did. */
export const ChangePlanResultSchema = z.object({
  action: z.enum(["checkout", "upgraded", "downgrade_scheduled", "unchanged"])
    .describe(
      "`checkout`: open `url` to pay (new subscription); `upgraded`: applied now, prorated; " +
        "`downgrade_scheduled`: applies at `effective_at`; `unchanged`: already on that plan.",
    ),
  url: z.string().nullable().describe("Stripe Checkout page, for `checkout`."),
  plan: PlanSchema,
  effective_at: z.string().nullable().describe(
    "When a scheduled downgrade applies, ISO 8601.",
  ),
}).meta({ id: "ChangePlanResult" });

/** What a plan change did. */
export type ChangePlanResult = z.infer<typeof ChangePlanResultSchema>;

/** A link into Stripe's hosted billing portal. */
export const BillingPortalSchema = z.object({
  url: z.string().describe(
    "Stripe customer portal: payment method, invoices, cancellation.",
  ),
}).meta({ id: "BillingPortal" });

/** An account with its usage and billing, as the operator sees it. */
export const AccountWithBillingSchema = AccountWithUsageSchema.extend({
  billing: BillingSchema,
}).meta({ id: "AccountWithBilling" });

/** An account with its usage and billing. */
export type AccountWithBilling = z.infer<typeof AccountWithBillingSchema>;
