/**
 * Dashboard sign-in, sign-up and account settings; tRPC only (no REST
 * face): API clients use keys.
 *
 * @module
 */
import { z } from "zod";
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
} from "../auth.ts";
import {
  base,
  no_store,
  session_control_of,
  session_procedure,
  t,
} from "./base.ts";

/** The `auth` procedures. */
export const auth_router = t.router({
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
});
