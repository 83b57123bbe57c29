/**
 * Upgrade requests on servers without Stripe billing (`/account/upgrade…`).
 *
 * @module
 */
import { z } from "zod";
import {
  RequestUpgradeSchema,
  UpgradeRequestSchema,
  UpgradeStateSchema,
  WithdrawUpgradeSchema,
} from "../upgrades.ts";
import { ACCOUNT_TAGS, pick_errors, session_procedure, t } from "./base.ts";

/** The `upgrade` procedures. */
export const upgrade_router = t.router({
  state: session_procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/account/upgrade",
        description:
          "On servers without Stripe billing: the plans above the account's current one and its open upgrade request, if any.",
        tags: ACCOUNT_TAGS,
        summary:
          "Upgrading the signed-in account: plans above the current one and its open request",
        errorResponses: pick_errors([401]),
      },
    })
    .input(z.void())
    .output(UpgradeStateSchema)
    .query(({ ctx }) =>
      ctx.services.get_upgrade_state(ctx.principal.account.id)
    ),
  request: session_procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/account/upgrade-requests",
        description:
          "Records a request for a higher plan for the operator to act on (servers without Stripe billing). One open request per account; a plan change or a withdrawal closes it.",
        tags: ACCOUNT_TAGS,
        summary:
          "Ask the operator for a higher plan (servers without Stripe billing); the operator is e-mailed when `OPERATOR_EMAIL` is set",
        successDescription: "The recorded request.",
        errorResponses: {
          ...pick_errors([400, 401]),
          404:
            "Billing is on (`not_found`): change the plan with `POST /account/billing/plan` instead.",
          409:
            "A request of this account is still open (`conflict`); it is closed when the operator changes the plan, " +
            "or withdrawn with `POST /account/upgrade-requests/{id}/withdraw`.",
          429:
            "Too many requests in 24 hours (`rate_limited`); retry after `Retry-After` seconds.",
        },
      },
    })
    .input(RequestUpgradeSchema)
    .output(UpgradeRequestSchema)
    .mutation(async ({ ctx, input }) => {
      const request = await ctx.services.request_upgrade(
        ctx.principal,
        input,
      );
      ctx.response.status = 201;
      return request;
    }),
  withdraw: session_procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/account/upgrade-requests/{id}/withdraw",
        description:
          "Withdraws the account's open upgrade request; afterwards a new one can be sent.",
        tags: ACCOUNT_TAGS,
        summary:
          "Withdraw the signed-in account's open upgrade request; a new one can be sent afterwards",
        successDescription: "The request, now `withdrawn`.",
        errorResponses: {
          ...pick_errors([400, 401]),
          404: "No upgrade request of this account has this id (`not_found`).",
          409:
            "The request is no longer open (`conflict`): the operator closed it or it was withdrawn.",
        },
      },
    })
    .input(WithdrawUpgradeSchema)
    .output(UpgradeRequestSchema)
    .mutation(({ ctx, input }) =>
      ctx.services.withdraw_upgrade_request(ctx.principal, input.id)
    ),
});
