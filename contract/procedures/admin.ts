/**
 * The operator's admin API (`/admin/…`), behind the `ADMIN_TOKEN`.
 *
 * @module
 */
import { z } from "zod";
import {
  AccountIdSchema,
  AccountSchema,
  ApiKeySchema,
  CreateAccountSchema,
  CreatedApiKeySchema,
  CreateKeySchema,
  KeyIdSchema,
  UpdateAccountSchema,
} from "../accounts.ts";
import { AccountWithBillingSchema } from "../billing.ts";
import {
  ListUpgradeRequestsSchema,
  UpgradeRequestListSchema,
} from "../upgrades.ts";
import {
  admin_procedure,
  ADMIN_TAGS,
  no_store,
  pick_errors,
  t,
  UNKNOWN_ACCOUNT,
  UNKNOWN_KEY,
  UNVERIFIED_ADDRESS,
} from "./base.ts";

/** The `admin` procedures. */
export const admin_router = t.router({
  list_upgrade_requests: admin_procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/upgrade-requests",
        description:
          "The customers' upgrade requests, newest first, filtered by status (default `open`). Needs the operator's `ADMIN_TOKEN`.",
        protect: true,
        tags: ADMIN_TAGS,
        summary:
          "Customers' requests for a higher plan, newest first; a plan change (PATCH) closes them",
        errorResponses: pick_errors([400, 401]),
      },
    })
    .input(ListUpgradeRequestsSchema)
    .output(UpgradeRequestListSchema)
    .query(async ({ ctx, input }) => ({
      requests: await ctx.services.list_upgrade_requests({
        status: input.status === "all" ? undefined : input.status,
        limit: input.limit,
      }),
    })),
  create_account: admin_procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/accounts",
        description:
          "Creates a customer account with a plan and subscription status. An e-mail address that has an account already answers 409 `conflict`.",
        protect: true,
        tags: ADMIN_TAGS,
        summary: "Create an account",
        errorResponses: {
          ...pick_errors([400, 401]),
          409:
            "An account with this e-mail address exists already (`conflict`).",
        },
      },
    })
    .input(CreateAccountSchema)
    .output(AccountSchema)
    .mutation(async ({ ctx, input }) => {
      const account = await ctx.services.create_account(input);
      ctx.response.status = 201;
      return account;
    }),
  get_account: admin_procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/accounts/{id}",
        description:
          "The account with its plan, subscription, billing state and this month's usage. An unknown id answers 404.",
        protect: true,
        tags: ADMIN_TAGS,
        summary: "An account with this month's usage",
        errorResponses: {
          ...pick_errors([400, 401]),
          404: UNKNOWN_ACCOUNT,
        },
      },
    })
    .input(AccountIdSchema)
    .output(AccountWithBillingSchema)
    .query(({ ctx, input }) => ctx.services.get_account(input.id)),
  update_account: admin_procedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/admin/accounts/{id}",
        description:
          "Changes the plan or the subscription status with immediate effect; a plan change closes the account's open upgrade request. An unknown id answers 404.",
        protect: true,
        tags: ADMIN_TAGS,
        summary:
          "Change plan or subscription status (applies at once); a plan change closes the account's open upgrade request",
        errorResponses: {
          ...pick_errors([400, 401]),
          404: UNKNOWN_ACCOUNT,
        },
      },
    })
    .input(UpdateAccountSchema)
    .output(AccountWithBillingSchema)
    .mutation(({ ctx, input }) =>
      ctx.services.update_account(input.id, {
        plan: input.plan,
        subscription_status: input.subscription_status,
        billing_override: input.billing_override,
      }, { by: "admin_api" })
    ),
  list_keys: admin_procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/accounts/{id}/keys",
        description:
          "Every API key of the account with its prefix, mode and status (never the secret). An unknown id answers 404.",
        protect: true,
        tags: ADMIN_TAGS,
        summary: "List an account's API keys",
        errorResponses: {
          ...pick_errors([400, 401]),
          404: UNKNOWN_ACCOUNT,
        },
      },
    })
    .input(AccountIdSchema)
    .output(z.object({ keys: z.array(ApiKeySchema) }))
    .query(async ({ ctx, input }) => ({
      keys: await ctx.services.list_keys(input.id),
    })),
  create_key: admin_procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/accounts/{id}/keys",
        description:
          "Creates an API key for the account; the answer is the only time the full key is shown. Live keys need the account's confirmed e-mail address. An unknown id answers 404.",
        protect: true,
        tags: ADMIN_TAGS,
        summary:
          'Generate an API key for an account ("mode": "live" by default, or "test"); shown once',
        errorResponses: {
          ...pick_errors([400, 401]),
          403: UNVERIFIED_ADDRESS,
          404: UNKNOWN_ACCOUNT,
        },
      },
    })
    .input(CreateKeySchema)
    .output(CreatedApiKeySchema)
    .mutation(async ({ ctx, input }) => {
      const key = await ctx.services.create_key(input.id, {
        name: input.name,
        mode: input.mode,
      });
      no_store(ctx);
      ctx.response.status = 201;
      return key;
    }),
  revoke_key: admin_procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/keys/{id}/revoke",
        description:
          "Revokes the key at once and for good (idempotent: a revoked key answers unchanged). An unknown id answers 404.",
        protect: true,
        tags: ADMIN_TAGS,
        summary: "Revoke an API key permanently (idempotent)",
        errorResponses: {
          ...pick_errors([400, 401]),
          404: UNKNOWN_KEY,
        },
      },
    })
    .input(KeyIdSchema)
    .output(ApiKeySchema)
    .mutation(({ ctx, input }) => ctx.services.revoke_key(input.id)),
});
