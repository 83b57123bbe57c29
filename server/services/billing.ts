/**
 * Billing as the API offers it: an account's billing state, a plan change
 * through Stripe, and the Stripe customer portal.
 *
 * @module
 */
import { ApiError, type Services } from "../../contract/mod.ts";
import type { Billing } from "../billing.ts";
import { with_database } from "../with_database.ts";
import {
  bind_services,
  type ServiceContext,
  type ServiceTable,
} from "./context.ts";

function require_billing(context: ServiceContext): Billing {
  if (!context.options.billing) {
    throw new ApiError(
      "not_found",
      "Billing is not set up on this server; plan changes are made by the operator",
    );
  }
  return context.options.billing;
}

type BillingServiceName =
  | "get_billing"
  | "change_plan"
  | "open_billing_portal";

const billing_services: ServiceTable<BillingServiceName> = {
  get_billing(context, account_id: string) {
    const { require_account, billing_of } = context;
    return with_database(async () => {
      await require_account(account_id);
      return await billing_of(account_id);
    });
  },

  change_plan(context, principal, input) {
    const { require_account } = context;
    return with_database(async () => {
      const billing = require_billing(context);
      const account = await require_account(principal.account.id);
      return await billing.change_plan(account, input);
    });
  },

  open_billing_portal(context, principal, input) {
    return with_database(() =>
      require_billing(context).portal(principal.account.id, input.base_url)
    );
  },
};

/** The billing services; without Stripe they answer 404. */
export function create_billing_services(
  context: ServiceContext,
): Pick<Services, BillingServiceName> {
  return bind_services(context, billing_services);
}
