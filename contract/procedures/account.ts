/**
 * The signed-in account's usage and API keys (`/account/…`).
 *
 * @module
 */
import { z } from "zod";
import {
  AccountUsageSchema,
  ApiKeySchema,
  CreatedApiKeySchema,
  KeyIdSchema,
  NewKeySchema,
} from "../accounts.ts";
import {
  ACCOUNT_TAGS,
  no_store,
  pick_errors,
  session_procedure,
  t,
  UNKNOWN_KEY,
  UNVERIFIED_ADDRESS,
} from "./base.ts";

/** The `account` procedures. */
export const account_router = t.router({
  usage: session_procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/account/usage",
        description:
          "Invoices charged this month with the plan's limit and reset date, per day and per key, and the test documents used (signed-in dashboard session).",
        tags: ACCOUNT_TAGS,
        summary: "This month's usage of the signed-in account",
        errorResponses: pick_errors([401]),
      },
    })
    .input(z.void())
    .output(AccountUsageSchema)
    .query(({ ctx }) => ctx.services.get_usage(ctx.principal.account.id)),
  list_keys: session_procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/account/keys",
        description:
          "Every API key of the signed-in account with its prefix, mode and status; the full key is never shown again after it was created.",
        tags: ACCOUNT_TAGS,
        summary: "List the account's API keys (never their secrets)",
        errorResponses: pick_errors([401]),
      },
    })
    .input(z.void())
    .output(z.object({ keys: z.array(ApiKeySchema) }))
    .query(async ({ ctx }) => ({
      keys: await ctx.services.list_keys(ctx.principal.account.id),
    })),
  create_key: session_procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/account/keys",
        description:
          "Creates a live or test API key for the signed-in account. The answer is the only time the full key is shown; live keys need a confirmed e-mail address.",
        tags: ACCOUNT_TAGS,
        summary: "Generate a new API key; the full key is shown once",
        successDescription: "The new key, including its full value.",
        errorResponses: {
          ...pick_errors([400, 401]),
          403: UNVERIFIED_ADDRESS,
        },
      },
    })
    .input(NewKeySchema)
    .output(CreatedApiKeySchema)
    .mutation(async ({ ctx, input }) => {
      const key = await ctx.services.create_key(
        ctx.principal.account.id,
        input,
      );
      no_store(ctx);
      ctx.response.status = 201;
      return key;
    }),
  revoke_key: session_procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/account/keys/{id}/revoke",
        description:
          "Revokes one of the signed-in account's keys at once and for good; requests with it answer 403 `key_revoked`. Revoking a revoked key answers it unchanged. A key of another account, or an unknown id, answers 404.",
        tags: ACCOUNT_TAGS,
        summary: "Revoke an API key permanently",
        errorResponses: {
          ...pick_errors([400, 401]),
          404: UNKNOWN_KEY,
        },
      },
    })
    .input(KeyIdSchema)
    .output(ApiKeySchema)
    .mutation(({ ctx, input }) =>
      ctx.services.revoke_key(input.id, ctx.principal.account.id)
    ),
});
