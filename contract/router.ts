/**
 * The one tRPC router: every procedure of the service, defined once. The REST
 * face (trpc-to-openapi) and typed `/trpc` callers share it.
 */
import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { z } from "zod";
import {
  AccountIdSchema,
  AccountSchema,
  AccountUsageSchema,
  ApiKeySchema,
  CreateAccountSchema,
  CreatedApiKeySchema,
  CreateKeySchema,
  KeyIdSchema,
  NewKeySchema,
  UpdateAccountSchema,
} from "./accounts.ts";
import {
  AccountWithBillingSchema,
  BillingPortalSchema,
  BillingSchema,
  ChangePlanResultSchema,
  ChangePlanSchema,
} from "./billing.ts";
import {
  AccountDeletedSchema,
  ChangeEmailSchema,
  ChangePasswordSchema,
  DeleteAccountSchema,
  DELETED_ACCOUNT_RETENTION,
  EmailChangeRequestedSchema,
  EmailVerifiedSchema,
  LOGGED_LINK_MARK,
  PasswordChangedSchema,
  PasswordResetRequestedSchema,
  RequestPasswordResetSchema,
  ResetPasswordSchema,
  SessionStateSchema,
  SignedInSchema,
  SignInSchema,
  SignUpResultSchema,
  SignUpSchema,
  VerificationSentSchema,
  VerifyEmailSchema,
} from "./auth.ts";
import {
  ListUpgradeRequestsSchema,
  RequestUpgradeSchema,
  UpgradeRequestListSchema,
  UpgradeRequestSchema,
  UpgradeStateSchema,
  WithdrawUpgradeSchema,
} from "./upgrades.ts";
import type {
  Principal,
  RenderedDocument,
  ServiceContext,
  SessionControl,
} from "./context.ts";
import { OUTPUT_CONTENT_TYPES } from "./formats.ts";
import { ApiError } from "./errors.ts";
import { GenerateRequestSchema, type Invoice } from "./invoice.ts";
import { negotiate_locale } from "./locales.ts";
import { to_api_error, to_trpc_error } from "./trpc_errors.ts";

const t = initTRPC.context<ServiceContext>().meta<OpenApiMeta>().create({
  errorFormatter({ shape, error }) {
    // tRPC clients need tRPC's envelope (numeric code); our code, details and
    // HTTP status travel in `data`. Stack traces never leave the server.
    const api_error = to_api_error(error);
    return {
      code: shape.code,
      message: api_error.message,
      data: {
        code: api_error.code,
        http_status: api_error.status,
        ...(api_error.details ? { details: api_error.details } : {}),
      },
    };
  },
});

/** Every failure leaves a procedure as a `TRPCError` that carries our `ApiError`. */
const base = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw to_trpc_error(to_api_error(result.error));
  return result;
});

// POST /generate: a key that checked out lately is checked by the service
// in the statement that charges the quota (one database round trip per
// invoice); any other key is checked here. Either way the body is read
// only afterwards, when the input is parsed. A request refused before its
// key was looked at (a 400 for the body or a header) has it checked then,
// so 401, 403 and 429 still come before 400 and the rate limit counts the
// request.
const generate_procedure = base.use(async ({ ctx, next }) => {
  const api_key = await ctx.services.begin_generate_key_check(
    ctx.authorization,
    ctx.response,
  );
  ctx.credentials_checked?.();
  const result = await next({ ctx: { api_key } });
  if (!result.ok && !api_key.checked) {
    await ctx.services.authenticate_api_key(ctx.authorization, ctx.response);
  }
  return result;
});

const session_procedure = base.use(({ ctx, next }) => {
  if (!ctx.session) {
    throw new ApiError("unauthorized", "Sign in to the dashboard first");
  }
  return next({ ctx: { principal: ctx.session as Principal } });
});

const admin_procedure = base.use(({ ctx, next }) => {
  ctx.services.authenticate_admin(ctx.authorization);
  ctx.credentials_checked?.();
  return next();
});

function session_control_of(ctx: ServiceContext): SessionControl {
  if (!ctx.session_control) {
    throw new ApiError("not_found", "This server has no dashboard sign-in");
  }
  return ctx.session_control;
}

/**
 * Without a `locale` in the body, the request's `Accept-Language` picks a
 * supported one; without both the invoice gets the default output.
 */
function with_negotiated_locale(
  invoice: Invoice,
  ctx: ServiceContext,
): Invoice {
  if (invoice.locale !== undefined) return invoice;
  const locale = negotiate_locale(ctx.accept_language);
  return locale ? { ...invoice, locale } : invoice;
}

function base_url_of(ctx: ServiceContext): string {
  if (!ctx.origin) {
    throw new ApiError("not_found", "Billing needs the dashboard's web origin");
  }
  return ctx.origin;
}

const ERROR_RESPONSES = {
  400:
    "Invalid JSON or fields (`invalid_request`), with per-field details; JSON nested deeper than 64 levels (`json_too_deep`).",
  401: "Missing, malformed or unknown credentials (`unauthorized`).",
  404: "Not found, or the feature is off on this server (`not_found`).",
  403:
    "Revoked key (`key_revoked`), inactive subscription (`subscription_inactive`), monthly limit used up (`quota_exceeded`) or the test keys' monthly documents used up (`test_limit_reached`).",
  408:
    "The request body did not arrive in time, or arrived too slowly (`request_timeout`).",
  409:
    "The first request with this `Idempotency-Key` is still running (`idempotency_in_progress`); retry after `Retry-After` seconds.",
  422:
    "This `Idempotency-Key` was used with a different body (`idempotency_key_reused`); use a new key.",
  413: "Request body over 1 MiB (`payload_too_large`).",
  429: "Rate limit hit (`rate_limited`); retry after `Retry-After` seconds.",
  500: "Unexpected fault (`internal`); safe to retry.",
  503: "Temporarily unavailable (`unavailable`); retry after `Retry-After`.",
};

const UNVERIFIED_ADDRESS =
  "The account's e-mail address is not confirmed yet (`forbidden`); live keys need a confirmed address.";

const UNKNOWN_ACCOUNT =
  "No account has this id, or the server has no `ADMIN_TOKEN` (`not_found`).";

const UNKNOWN_KEY = "No API key with this id (`not_found`).";

function pick_errors(codes: (keyof typeof ERROR_RESPONSES)[]) {
  return Object.fromEntries(codes.map((code) => [code, ERROR_RESPONSES[code]]));
}

/** The `Idempotency-Key` request header: 1-255 printable ASCII characters. */
export const IdempotencyKeySchema = z.string()
  .min(1, "must not be empty")
  .max(255, "must be at most 255 characters")
  .regex(/^[\x20-\x7e]+$/, "must be printable ASCII characters only")
  .describe(
    "Makes retries safe: the same key with the same body within 24 hours returns the same PDF " +
      "(`Idempotent-Replayed: true`) and is charged once. 1-255 printable ASCII characters, " +
      "e.g. a UUID per invoice. Only hashes of the key and request are stored.",
  );

function idempotency_key_of(ctx: ServiceContext): string | undefined {
  if (ctx.idempotency_key === undefined || ctx.idempotency_key === null) {
    return undefined;
  }
  const parsed = IdempotencyKeySchema.safeParse(ctx.idempotency_key);
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? "is invalid";
    throw new ApiError(
      "invalid_request",
      `The Idempotency-Key header ${message}`,
      { details: [{ path: "Idempotency-Key", message }] },
    );
  }
  return parsed.data;
}

/** What a tRPC caller receives for a generated invoice. */
export const GeneratedDocumentSchema = z.object({
  file_name: z.string(),
  content_type: z.enum([OUTPUT_CONTENT_TYPES.pdf, OUTPUT_CONTENT_TYPES.xml]),
  byte_length: z.number().int(),
  pdf_base64: z.string().optional().describe(
    "The PDF (formats `pdf` and `factur-x`), base64-encoded (tRPC callers). The REST face streams the bytes instead.",
  ),
  xml: z.string().optional().describe(
    "The XML (XML formats), as text (tRPC callers). The REST face streams the bytes instead.",
  ),
}).meta({ id: "GeneratedDocument" });

function document_fields(
  document: RenderedDocument,
  binary: boolean,
): { pdf_base64?: string; xml?: string } {
  if (binary) return {};
  if (document.content_type === "application/pdf") {
    return { pdf_base64: encode_base64(document.bytes) };
  }
  return { xml: new TextDecoder().decode(document.bytes) };
}

function encode_base64(bytes: Uint8Array): string {
  let binary = "";
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

/** An answer carrying a secret (a new key, the CSRF token): no cache keeps it. */
function no_store(ctx: ServiceContext): void {
  ctx.response.headers.set("Cache-Control", "no-store");
}

const ADMIN_TAGS = ["admin"];
const ACCOUNT_TAGS = ["account"];

/** The service's router. */
export const app_router = t.router({
  // Dashboard sign-in; tRPC-only (no REST face): API clients use keys.
  auth: t.router({
    session: base
      .input(z.void())
      .output(SessionStateSchema)
      .query(async ({ ctx }) => {
        no_store(ctx);
        const account = ctx.session?.account ?? null;
        return {
          account,
          csrf_token: ctx.session?.csrf_token ?? null,
          email_verified: account
            ? await ctx.services.is_email_verified(account.id)
            : null,
          mail_delivery: ctx.services.mail_delivery(),
        };
      }),
    sign_up: base
      .input(SignUpSchema)
      .output(SignUpResultSchema)
      .mutation(async ({ ctx, input }) => {
        // The same answer, and no session, whether or not the address
        // already has an account: the mail tells the two apart.
        await ctx.services.sign_up({
          ...input,
          client_address: ctx.client_address,
        }, ctx.response);
        const mail_delivery = ctx.services.mail_delivery();
        return {
          signed_up: true as const,
          mail_delivery,
          message: mail_delivery === "smtp"
            ? "Check your inbox: we sent a mail to this address. If the address is new to us, the mail has a link to confirm it, and you can sign in now with the password you chose. If it already has an account, the mail says how to sign in or reset its password."
            : `This server sends no mail (its SMTP_URL is not set): the mail for this address, with its confirmation link, was written to the server's log instead. Whoever runs the server finds the link there, on a line starting with "${LOGGED_LINK_MARK}". You can sign in now with the password you chose.`,
        };
      }),
    sign_in: base
      .input(SignInSchema)
      .output(SignedInSchema)
      .mutation(async ({ ctx, input }) => {
        const control = session_control_of(ctx);
        const account = await ctx.services.sign_in(
          { ...input, client_address: ctx.client_address },
          ctx.response,
        );
        await control.start(account.id);
        ctx.response.account_id = account.id;
        return { account };
      }),
    request_password_reset: base
      .input(RequestPasswordResetSchema)
      .output(PasswordResetRequestedSchema)
      .mutation(async ({ ctx, input }) => {
        await ctx.services.request_password_reset(
          {
            email: input.email,
            client_address: ctx.client_address,
          },
          ctx.response,
        );
        return {
          requested: true as const,
          message:
            "If an account uses this address, a link to choose a new password is on its way. It works once, for one hour.",
        };
      }),
    reset_password: base
      .input(ResetPasswordSchema)
      .output(SignedInSchema)
      .mutation(async ({ ctx, input }) => {
        // The request carried a token: no cache may keep the answer.
        ctx.response.headers.set("Cache-Control", "no-store");
        const control = session_control_of(ctx);
        const account = await ctx.services.reset_password(input);
        await control.start(account.id);
        ctx.response.account_id = account.id;
        return { account };
      }),
    verify_email: base
      .input(VerifyEmailSchema)
      .output(EmailVerifiedSchema)
      .mutation(async ({ ctx, input }) => {
        ctx.response.headers.set("Cache-Control", "no-store");
        const account = await ctx.services.verify_email(input);
        ctx.response.account_id = account.id;
        return { verified: true as const, email: account.email };
      }),
    resend_verification: session_procedure
      .input(z.void())
      .output(VerificationSentSchema)
      .mutation(async ({ ctx }) => {
        await ctx.services.resend_verification(ctx.principal);
        const mail_delivery = ctx.services.mail_delivery();
        const email = ctx.principal.account.email;
        return {
          sent: true as const,
          mail_delivery,
          message: mail_delivery === "smtp"
            ? `A new confirmation link is on its way to ${email}. It works once, for 48 hours.`
            : `This server sends no mail: a new confirmation link for ${email} was written to the server's log, on a line starting with "${LOGGED_LINK_MARK}".`,
        };
      }),
    change_password: session_procedure
      .input(ChangePasswordSchema)
      .output(PasswordChangedSchema)
      .mutation(async ({ ctx, input }) => {
        const control = session_control_of(ctx);
        const account_id = ctx.principal.account.id;
        await ctx.services.change_password({
          account_id,
          current_password: input.current_password,
          new_password: input.new_password,
          client_address: ctx.client_address,
        }, ctx.response);
        // Whoever knew the old password is signed out everywhere else.
        const ended = await control.end_other_sessions(account_id);
        return {
          changed: true as const,
          other_sessions_ended: ended,
          message: ended === 0
            ? "Password changed. This browser stays signed in; no other browser was signed in."
            : `Password changed. This browser stays signed in; ${ended} other session${
              ended === 1 ? " was" : "s were"
            } signed out.`,
        };
      }),
    change_email: session_procedure
      .input(ChangeEmailSchema)
      .output(EmailChangeRequestedSchema)
      .mutation(async ({ ctx, input }) => {
        await ctx.services.request_email_change({
          account_id: ctx.principal.account.id,
          new_email: input.new_email,
          current_password: input.current_password,
          client_address: ctx.client_address,
        }, ctx.response);
        return {
          requested: true as const,
          message:
            `We sent a confirmation link to ${input.new_email}. The address changes when that link is opened (within 24 hours); until then you keep using ${ctx.principal.account.email}.`,
        };
      }),
    delete_account: session_procedure
      .input(DeleteAccountSchema)
      .output(AccountDeletedSchema)
      .mutation(async ({ ctx, input }) => {
        const control = session_control_of(ctx);
        const result = await ctx.services.delete_account({
          account_id: ctx.principal.account.id,
          email: input.email,
          password: input.password,
          client_address: ctx.client_address,
        }, ctx.response);
        // The session row went with the account; this clears the cookie.
        await control.end();
        return {
          deleted: true as const,
          subscription_canceled: result.subscription_canceled,
          message:
            `The account was deleted: its API keys no longer work and every session ended. ${DELETED_ACCOUNT_RETENTION}${
              result.subscription_canceled
                ? " Its subscription was canceled; nothing more will be charged."
                : ""
            }`,
        };
      }),
    sign_out: base
      .input(z.void())
      .output(z.object({ signed_out: z.literal(true) }))
      .mutation(async ({ ctx }) => {
        await session_control_of(ctx).end();
        return { signed_out: true as const };
      }),
  }),
  invoice: t.router({
    generate: generate_procedure
      .meta({
        openapi: {
          method: "POST",
          path: "/generate",
          protect: true,
          tags: ["invoices"],
          summary: "Generate an invoice PDF or e-invoice",
          description:
            "Turns invoice JSON into a PDF, streamed back as `application/pdf`, or with `format` into an " +
            "e-invoice: Factur-X (PDF/A-3 with CII XML inside), XRechnung 3.0 (CII or UBL), Peppol BIS UBL or " +
            "EN 16931 CII (`application/xml`). Nothing is stored. An identical retry (format included) in the " +
            "same month returns the same document and is not charged again. A format that needs fields the " +
            "request lacks is a 400 listing every missing field with its business term. " +
            "Send an `Idempotency-Key` header to make retries safe across months too. " +
            "With a test key (`ink_test_…`) the document is marked TEST and nothing is charged.",
          successDescription: "The PDF or XML.",
          errorResponses: pick_errors([
            400,
            401,
            403,
            408,
            409,
            413,
            422,
            429,
            500,
            503,
          ]),
        },
      })
      .input(GenerateRequestSchema)
      .output(GeneratedDocumentSchema)
      .mutation(async ({ ctx, input }) => {
        const document = await ctx.services.generate_invoice(
          ctx.api_key,
          with_negotiated_locale(input.invoice, ctx),
          ctx.response,
          {
            format: input.format,
            idempotency_key: idempotency_key_of(ctx),
          },
        );
        if (ctx.binary_document) ctx.response.document = document.bytes;
        return {
          file_name: document.file_name,
          content_type: document.content_type,
          byte_length: document.bytes.length,
          ...document_fields(document, ctx.binary_document),
        };
      }),
    // The body of `POST /generate`, `format` included; every preview is
    // marked (PREVIEW on PDF pages, TEST in e-invoice XML).
    preview: session_procedure
      .input(GenerateRequestSchema)
      .output(GeneratedDocumentSchema)
      .mutation(async ({ ctx, input }) => {
        const document = await ctx.services.preview_invoice(
          ctx.principal,
          with_negotiated_locale(input.invoice, ctx),
          { format: input.format },
        );
        return {
          file_name: document.file_name,
          content_type: document.content_type,
          byte_length: document.bytes.length,
          ...document_fields(document, false),
        };
      }),
  }),
  account: t.router({
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
  }),
  billing: t.router({
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
  }),
  upgrade: t.router({
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
            404:
              "No upgrade request of this account has this id (`not_found`).",
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
  }),
  admin: t.router({
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
  }),
});

/** The router's type, for typed tRPC clients. */
export type AppRouter = typeof app_router;

/** Creates a server-side caller (tests, the dashboard's server side). */
export const create_caller = t.createCallerFactory(app_router);
