/**
 * Billing as the API offers it: an account's billing state, a plan change
 * through Stripe, and the Stripe customer portal.
 *
 * @module
 */
import { ApiError, type Services } from "../../contract/mod.ts";
import type { Billing } from "../billing.ts";
import { with_database } from "../with_database.ts";
import type { ServiceContext } from "./context.ts";

/** The billing services; without Stripe they answer 404. */
export function create_billing_services(
  context: ServiceContext,
): Pick<Services, "get_billing" | "change_plan" | "open_billing_portal"> {
  const { options, require_account, billing_of } = context;
  function require_billing(): Billing {
    if (!options.billing) {
      throw new ApiError(
        "not_found",
        "Billing is not set up on this server; plan changes are made by the operator",
      );
    }
    return options.billing;
  }

  return {
    get_billing(account_id: string) {
      return with_database(async () => {
        await require_account(account_id);
        return await billing_of(account_id);
      });
    },

    change_plan(principal, input) {
      return with_database(async () => {
        const billing = require_billing();
        const account = await require_account(principal.account.id);
        return await billing.change_plan(account, input);
      });
    },

    open_billing_portal(principal, input) {
      return with_database(() =>
        require_billing().portal(principal.account.id, input.base_url)
      );
    },
  };
}
