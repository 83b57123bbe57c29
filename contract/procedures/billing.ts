/**
 * The signed-in account's Stripe billing (`/account/billing…`).
 *
 * @module
 */
import { z } from "zod";
import {
  BillingPortalSchema,
  BillingSchema,
  ChangePlanResultSchema,
  ChangePlanSchema,
} from "../billing.ts";
import type { ServiceContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { ACCOUNT_TAGS, pick_errors, session_procedure, t } from "./base.ts";

/** The dashboard's web origin, where Stripe sends the customer back. */
function base_url_of(ctx: ServiceContext): string {
  if (!ctx.origin) {
    throw new ApiError("not_found", "Billing needs the dashboard's web origin");
  }
  return ctx.origin;
}

/** The `billing` procedures. */
export const billing_router = t.router({
  state: session_procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/account/billing",
        description:
          "The account's plan, subscription status and, when Stripe billing is on, the current period and any scheduled plan change.",
        tags: ACCOUNT_TAGS,
        summary: "Billing state of the signed-in account",
        errorResponses: pick_errors([401]),
      },
    })
    .input(z.void())
    .output(BillingSchema)
    .query(({ ctx }) => ctx.services.get_billing(ctx.principal.account.id)),
  change_plan: session_procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/account/billing/plan",
        description:
          "With Stripe billing on: a new subscription answers a Checkout URL, an upgrade applies at once (prorated), a downgrade at the end of the period. Without billing: 404.",
        tags: ACCOUNT_TAGS,
        summary:
          "Change plan: Checkout for a new subscription, upgrade now (prorated) or downgrade at period end",
        errorResponses: pick_errors([400, 401, 404, 503]),
      },
    })
    .input(ChangePlanSchema)
    .output(ChangePlanResultSchema)
    .mutation(({ ctx, input }) =>
      ctx.services.change_plan(ctx.principal, {
        plan: input.plan,
        base_url: base_url_of(ctx),
      })
    ),
  portal: session_procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/account/billing/portal",
        description:
          "With Stripe billing on, answers the URL of the customer portal (payment method, invoices, cancelling). Without billing: 404.",
        tags: ACCOUNT_TAGS,
        summary:
          "Open the Stripe customer portal (payment method, invoices, cancel)",
        errorResponses: pick_errors([401, 404, 503]),
      },
    })
    .input(z.void())
    .output(BillingPortalSchema)
    .mutation(({ ctx }) =>
      ctx.services.open_billing_portal(ctx.principal, {
        base_url: base_url_of(ctx),
      })
    ),
});
