/**
 * Dashboard sign-up and sign-in: inputs and outputs of the `auth.*`
 * procedures. A dashboard session never needs an API key.
 */
import { z } from "zod";
import { AccountEmailSchema, AccountSchema } from "./accounts.ts";

/** Password length rules of the dashboard. */
export const PASSWORD_LIMITS = { min: 10, max: 256 } as const;

/** A new password: long enough to resist guessing, bounded so hashing stays cheap. */
export const NewPasswordSchema = z.string()
  .min(
    PASSWORD_LIMITS.min,
    `must be at least ${PASSWORD_LIMITS.min} characters`,
  )
  .max(
    PASSWORD_LIMITS.max,
    `must be at most ${PASSWORD_LIMITS.max} characters`,
  );

/** Input of `auth.sign_up`. */
export const SignUpSchema = z.strictObject({
  email: AccountEmailSchema,
  password: NewPasswordSchema,
});

/** Input of `auth.sign_up`. */
export type SignUpInput = z.infer<typeof SignUpSchema>;

/** Input of `auth.sign_in`. No length rule: a policy change must not lock anyone out. */
export const SignInSchema = z.strictObject({
  email: AccountEmailSchema,
  password: z.string().min(1, "must not be empty").max(
    PASSWORD_LIMITS.max,
    `must be at most ${PASSWORD_LIMITS.max} characters`,
  ),
});

/** Input of `auth.sign_in`. */
export type SignInInput = z.infer<typeof SignInSchema>;

/** Output of `auth.sign_in`. */
export const SignedInSchema = z.object({
  account: AccountSchema,
});

/** How the server's account mail leaves it. */
export const MailDeliverySchema = z.enum(["smtp", "log"]).describe(
  "`smtp`: mail is sent. `log`: this server has no `SMTP_URL`; each mail, its link included, " +
    "is written to the server's log instead of being sent.",
);

/** How the server's account mail leaves it. */
export type MailDelivery = z.infer<typeof MailDeliverySchema>;

/**
 * Start of the log line that carries the link of a mail the server could not
 * send (no `SMTP_URL`); the pages tell people to look for it.
 */
export const LOGGED_LINK_MARK = "MAIL NOT SENT";

/**
 * Output of `auth.sign_up`: the same for a new address and for one that
 * already has an account (whose owner is told by mail), so sign-up does not
 * reveal which accounts exist. No session is started either way.
 */
export const SignUpResultSchema = z.object({
  signed_up: z.literal(true),
  mail_delivery: MailDeliverySchema,
  message: z.string(),
});

/** Output of `auth.session`: who is signed in, and the token writes must echo. */
export const SessionStateSchema = z.object({
  account: AccountSchema.nullable(),
  csrf_token: z.string().nullable().describe(
    "Send as `X-CSRF-Token` on every state-changing request of this session.",
  ),
  email_verified: z.boolean().nullable().describe(
    "Whether the signed-in account's address is confirmed (live keys need it); null when signed out.",
  ),
  mail_delivery: MailDeliverySchema,
});

/** Output of `auth.resend_verification`. */
export const VerificationSentSchema = z.object({
  sent: z.literal(true),
  mail_delivery: MailDeliverySchema,
  message: z.string(),
});

/** A token from a link in one of the service's mails: 43 URL-safe characters. */
const MailTokenSchema = z.string().min(1, "must not be empty").max(
  200,
  "must be at most 200 characters",
);

/** Input of `auth.request_password_reset`. */
export const RequestPasswordResetSchema = z.strictObject({
  email: AccountEmailSchema,
});

/** Output of `auth.request_password_reset`: the same whether or not the address has an account. */
export const PasswordResetRequestedSchema = z.object({
  requested: z.literal(true),
  message: z.string(),
});

/** Input of `auth.reset_password`. */
export const ResetPasswordSchema = z.strictObject({
  token: MailTokenSchema.describe(
    "The `token` of the `/reset-password?token=…` link in the mail.",
  ),
  password: NewPasswordSchema,
});

/** Input of `auth.reset_password`. */
export type ResetPasswordInput = z.infer<typeof ResetPasswordSchema>;

/** Input of `auth.verify_email`. */
export const VerifyEmailSchema = z.strictObject({
  token: MailTokenSchema.describe(
    "The `token` of the `/verify-email?token=…` link in the mail.",
  ),
});

/** Output of `auth.verify_email`. */
export const EmailVerifiedSchema = z.object({
  verified: z.literal(true),
  email: z.string(),
});

/** The account's current password, asked before changes to the account. */
const CurrentPasswordSchema = z.string().min(1, "must not be empty").max(
  PASSWORD_LIMITS.max,
  `must be at most ${PASSWORD_LIMITS.max} characters`,
).describe("The account's current password.");

/** Input of `auth.change_password`. */
export const ChangePasswordSchema = z.strictObject({
  current_password: CurrentPasswordSchema,
  new_password: NewPasswordSchema,
});

/** Output of `auth.change_password`. */
export const PasswordChangedSchema = z.object({
  changed: z.literal(true),
  other_sessions_ended: z.number().int().describe(
    "Sessions of this account on other browsers that were signed out; this one stays signed in.",
  ),
  message: z.string(),
});

/** Input of `auth.change_email`. */
export const ChangeEmailSchema = z.strictObject({
  new_email: AccountEmailSchema,
  current_password: CurrentPasswordSchema,
});

/** Output of `auth.change_email`: the same whether or not the address is free. */
export const EmailChangeRequestedSchema = z.object({
  requested: z.literal(true),
  message: z.string(),
});

/** Input of `auth.delete_account`. */
export const DeleteAccountSchema = z.strictObject({
  email: AccountEmailSchema.describe(
    "The account's e-mail address, typed again to confirm.",
  ),
  password: CurrentPasswordSchema,
});

/** Output of `auth.delete_account`. */
export const AccountDeletedSchema = z.object({
  deleted: z.literal(true),
  subscription_canceled: z.boolean().describe(
    "A Stripe subscription was canceled at once (no further charges).",
  ),
  message: z.string(),
});

/** What is kept of a deleted account: its monthly counts, summed per month with no account id. */
export const DELETED_ACCOUNT_RETENTION =
  "The account's monthly invoice counts are kept only as anonymous month totals for the operator's books (no e-mail, no key, no account id).";
