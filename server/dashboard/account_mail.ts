/**
 * Mail that proves who holds an address: password reset, address
 * verification and address change. Links carry a random token (only its hash is stored), work
 * once and expire. Requests answer the same whether or not an account
 * exists, and mail is sent in the background so response times do not tell
 * either. Links point to the service's configured origin, never to one a
 * request named (its `Host` header is the client's to choose).
 *
 * @module
 */
import { ApiError } from "../../contract/mod.ts";
import * as store from "../../db/mod.ts";
import type { Mailer } from "../mail.ts";
import {
  address_bucket,
  enforce_rate_limit,
  take_rate_limit,
} from "../rate_limit.ts";
import { hash_password, type ScryptParams } from "./password.ts";

/** A reset link works for this long. */
export const PASSWORD_RESET_TTL_SECONDS = 60 * 60;

/** A verification link works for this long. */
export const VERIFY_EMAIL_TTL_SECONDS = 48 * 60 * 60;

/** An address-change link works for this long. */
export const CHANGE_EMAIL_TTL_SECONDS = 24 * 60 * 60;

/**
 * Address-change requests an account may make in any window (sliding): each mails an
 * address the account holder chose, so it must not become a way to spam.
 */
export const CHANGE_EMAIL_LIMIT = { per_account: 5, window_seconds: 60 * 60 };

/**
 * Reset requests allowed per e-mail and per client address in any window:
 * enough for a lost mail, too few to flood a mailbox.
 */
export const PASSWORD_RESET_LIMIT = {
  per_email: 3,
  per_address: 20,
  window_seconds: 15 * 60,
} as const;

/**
 * Notices to an account's owner that someone tried to sign up with its
 * address: at most this many per address in any window, so sign-up cannot
 * be used to flood a mailbox.
 */
export const SIGN_UP_NOTICE_LIMIT = {
  per_email: 1,
  window_seconds: 60 * 60,
} as const;

/** Password reset and address verification over a database and a mailer. */
export interface AccountMail {
  /** How the mail leaves: `smtp`, or `log` (no `SMTP_URL`: links go to the log). */
  readonly delivery: Mailer["kind"];
  /** Mails a reset link if the address has an account; throws `rate_limited`. */
  request_password_reset(
    input: { email: string; client_address?: string },
  ): Promise<void>;
  /** Sets the password from a reset token and ends all the account's sessions. */
  reset_password(
    input: { token: string; password: string },
  ): Promise<store.Account>;
  /** Mails a verification link to the account's address (in the background). */
  send_verification(account: { id: string; email: string }): void;
  /**
   * Tells the owner of an existing account that someone tried to sign up
   * with its address, with links to sign in and to reset the password (in
   * the background, rate-limited per address; nothing if no account).
   */
  notify_sign_up_attempt(input: { email: string }): void;
  /**
   * Marks the address verified from a verification token, or, from an
   * address-change token, moves the account to the new (now proven) address
   * and tells the old one.
   */
  verify_email(input: { token: string }): Promise<store.Account>;
  /**
   * Starts an address change of a signed-in account whose password was
   * checked: mails a link to `new_email`. When another account already uses
   * `new_email`, its owner is told instead; the caller cannot tell the two
   * apart. Throws `rate_limited`.
   */
  request_email_change(
    input: { account: store.Account; new_email: string },
  ): Promise<void>;
  /** Tells an account's address that the account was deleted (in the background). */
  send_goodbye(email: string): void;
  /** Settles once mail started so far was handed over (tests, shutdown). */
  idle(): Promise<void>;
}

/** Options of {@link create_account_mail}. */
export interface AccountMailOptions {
  mailer: Mailer;
  now: () => Date;
  /**
   * The origin links point to: `PUBLIC_URL`, else the address the service
   * listens on (read when a mail is written).
   */
  link_origin: () => string;
  /** Named in the notice to an old address as whom to contact (`SUPPORT_EMAIL`). */
  support_email?: string;
  /** Told when a background send fails (default: `console.error`). */
  on_error?: (error: unknown) => void;
  /** Cost of new password hashes (default `DEFAULT_SCRYPT_PARAMS`). */
  scrypt_params?: ScryptParams;
}

/** What the mail flows share: the database, the options, background sends. */
interface MailCore {
  database: store.Database;
  options: AccountMailOptions;
  /** Runs a send in the background; `idle` waits for it. */
  in_background(task: () => Promise<void>): void;
  /** The full link to a dashboard page. */
  page(path: string): string;
  /** The full link to a dashboard page carrying a token. */
  link(path: string, token: string): string;
}

async function used_token(
  core: MailCore,
  token: string,
  purpose: "password_reset" | "verify_email",
): Promise<{ account: store.Account; used: store.UsedAccountToken }> {
  const { database, options } = core;
  const used = await store.use_account_token(database, {
    token,
    // A verification link confirms a sign-up's address or an address change.
    purpose: purpose === "verify_email"
      ? ["verify_email", "change_email"]
      : purpose,
    now: options.now(),
  });
  const account = used
    ? await store.get_account(database, used.account_id)
    : undefined;
  if (!used || !account) {
    const what = purpose === "password_reset"
      ? "This password reset link is invalid, used or expired; ask for a new one"
      : "This verification link is invalid, used or expired; sign in and ask for a new one";
    throw new ApiError("invalid_request", what, {
      details: [{ path: "token", message: "is invalid, used or expired" }],
    });
  }
  return { account, used };
}

/** Moves the account to the address the link reached; tells the old one. */
async function complete_email_change(
  core: MailCore,
  account: store.Account,
  new_email: string,
): Promise<store.Account> {
  const { database, options, in_background } = core;
  const outcome = await store.change_account_email(database, {
    account_id: account.id,
    from: account.email,
    to: new_email,
  });
  if (outcome !== "changed") {
    // Only the holder of `new_email`'s mailbox sees this.
    throw new ApiError(
      "conflict",
      outcome === "taken"
        ? "Another account started using this address meanwhile; the address was not changed"
        : "The account's address changed meanwhile; this link no longer applies",
    );
  }
  const support = options.support_email
    ? `contact ${options.support_email} at once`
    : "reply to the operator of this service at once";
  in_background(() =>
    options.mailer.send({
      to: account.email,
      subject: "The e-mail address of your Ink account was changed",
      text: [
        `The Ink account that used ${account.email} now uses ${new_email}.`,
        "The change was confirmed from a link mailed to the new address.",
        "",
        "Mail about the account (password resets included) now goes to the new address.",
        `If you did not ask for this, ${support}: someone may know your password.`,
      ].join("\n"),
    })
  );
  return (await store.get_account(database, account.id)) ?? account;
}

type MailOperation = Exclude<keyof AccountMail, "delivery" | "idle">;

// The flows, each a function of the shared core.
const mail_operations: {
  [K in MailOperation]: (
    core: MailCore,
    ...args: Parameters<AccountMail[K]>
  ) => ReturnType<AccountMail[K]>;
} = {
  async request_password_reset(core, input) {
    const { database, options, in_background, link } = core;
    const email = store.normalize_email(input.email);
    const now = options.now();
    const window_seconds = PASSWORD_RESET_LIMIT.window_seconds;
    const refusal = "Too many password reset requests";
    if (input.client_address) {
      await enforce_rate_limit(database, {
        bucket: address_bucket("reset-address", input.client_address),
        limit: PASSWORD_RESET_LIMIT.per_address,
        window_seconds,
        refusal,
      }, now);
    }
    await enforce_rate_limit(database, {
      bucket: `reset:${email}`,
      limit: PASSWORD_RESET_LIMIT.per_email,
      window_seconds,
      refusal,
    }, now);
    const account = await store.find_account_by_email(database, email);
    if (!account) return;
    in_background(async () => {
      const token = await store.create_account_token(database, {
        account_id: account.id,
        email: account.email,
        purpose: "password_reset",
        ttl_seconds: PASSWORD_RESET_TTL_SECONDS,
        now: options.now(),
      });
      await options.mailer.send({
        to: account.email,
        subject: "Reset your Ink password",
        link: link("/reset-password", token),
        text: [
          `Someone (hopefully you) asked to reset the password of the Ink account ${account.email}.`,
          "",
          "Choose a new password here (the link works once, for one hour):",
          link("/reset-password", token),
          "",
          "If you did not ask for this, ignore this mail: your password stays as it is.",
        ].join("\n"),
      });
    });
  },

  async reset_password(core, input) {
    const { database, options } = core;
    const { account } = await used_token(core, input.token, "password_reset");
    const password_hash = await hash_password(
      input.password,
      options.scrypt_params,
    );
    const updated = await store.update_account(database, account.id, {
      password_hash,
    });
    // Other reset links die with this one; every signed-in device is
    // signed out (whoever knew the old password). Receiving the link
    // also proves the address.
    await store.delete_account_tokens(database, {
      account_id: account.id,
      purpose: "password_reset",
    });
    await store.delete_account_sessions(database, account.id);
    await store.set_email_verified(database, account.id);
    return updated ?? account;
  },

  send_verification(core, account) {
    const { database, options, in_background, link } = core;
    in_background(async () => {
      const token = await store.create_account_token(database, {
        account_id: account.id,
        email: account.email,
        purpose: "verify_email",
        ttl_seconds: VERIFY_EMAIL_TTL_SECONDS,
        now: options.now(),
      });
      await options.mailer.send({
        to: account.email,
        subject: "Confirm your e-mail address for Ink",
        link: link("/verify-email", token),
        text: [
          `Welcome to Ink. Please confirm that ${account.email} is your address:`,
          link("/verify-email", token),
          "",
          "The link works once, for 48 hours. Until then you can use the dashboard and test keys; live API keys need a confirmed address.",
          "",
          "If you did not create an Ink account, ignore this mail.",
        ].join("\n"),
      });
    });
  },

  notify_sign_up_attempt(core, input) {
    const { database, options, in_background, page } = core;
    in_background(async () => {
      const email = store.normalize_email(input.email);
      const taken = await take_rate_limit(database, {
        bucket: `signup-notice:${email}`,
        limit: SIGN_UP_NOTICE_LIMIT.per_email,
        window_seconds: SIGN_UP_NOTICE_LIMIT.window_seconds,
      }, options.now());
      if (!taken.allowed) return;
      const account = await store.find_account_by_email(database, email);
      if (!account) return;
      await options.mailer.send({
        to: account.email,
        subject: "Someone tried to sign up for Ink with your address",
        text: [
          `Someone (perhaps you) tried to create a new Ink account with ${account.email}, which already has an account. No new account was created and nothing was changed.`,
          "",
          "To use your account, sign in:",
          page("/signin"),
          "",
          "If you forgot your password, choose a new one here:",
          page("/forgot-password"),
          "",
          "If it was not you, ignore this mail: your account is safe as it is.",
        ].join("\n"),
      });
    });
  },

  async verify_email(core, input) {
    const { database } = core;
    const { account, used } = await used_token(
      core,
      input.token,
      "verify_email",
    );
    if (used.purpose === "change_email" && used.new_email) {
      return await complete_email_change(core, account, used.new_email);
    }
    await store.set_email_verified(database, account.id);
    return account;
  },

  async request_email_change(core, input) {
    const { database, options, in_background, link } = core;
    const { account } = input;
    await enforce_rate_limit(database, {
      bucket: `change-email:${account.id}`,
      limit: CHANGE_EMAIL_LIMIT.per_account,
      window_seconds: CHANGE_EMAIL_LIMIT.window_seconds,
      refusal: "Too many address changes",
    }, options.now());
    const new_email = store.normalize_email(input.new_email);
    // Only the latest request's link works.
    await store.delete_account_tokens(database, {
      account_id: account.id,
      purpose: "change_email",
    });
    const owner = await store.find_account_by_email(database, new_email);
    if (owner) {
      // The answer is the same either way; the address's owner learns of it.
      in_background(() =>
        options.mailer.send({
          to: owner.email,
          subject: "Someone tried to move an Ink account to your address",
          text: [
            `Someone asked to change the address of another Ink account to ${owner.email}.`,
            "Your address already belongs to your own Ink account, so nothing was changed, and your account is untouched.",
            "",
            "If this was you, sign in with this address instead, or choose another address for the other account.",
          ].join("\n"),
        })
      );
      return;
    }
    in_background(async () => {
      const token = await store.create_account_token(database, {
        account_id: account.id,
        email: account.email,
        new_email,
        purpose: "change_email",
        ttl_seconds: CHANGE_EMAIL_TTL_SECONDS,
        now: options.now(),
      });
      await options.mailer.send({
        to: new_email,
        subject: "Confirm your new e-mail address for Ink",
        link: link("/confirm-email-change", token),
        text: [
          `Please confirm that ${new_email} should become the address of the Ink account ${account.email}:`,
          link("/confirm-email-change", token),
          "",
          `The link works once, for 24 hours. Until it is opened, the account keeps using ${account.email}.`,
          "",
          "If you did not ask for this, ignore this mail: nothing changes.",
        ].join("\n"),
      });
    });
  },

  send_goodbye(core, email) {
    const { options, in_background } = core;
    in_background(() =>
      options.mailer.send({
        to: email,
        subject: "Your Ink account was deleted",
        text: [
          `The Ink account ${email} was deleted, as asked from its dashboard.`,
          "Its API keys no longer work, and its keys, sessions and usage history are gone.",
          "",
          "Thank you for using Ink. You are welcome to sign up again at any time.",
        ].join("\n"),
      })
    );
  },
};

/** Creates the reset and verification flows. */
export function create_account_mail(
  database: store.Database,
  options: AccountMailOptions,
): AccountMail {
  const pending = new Set<Promise<void>>();
  const on_error = options.on_error ??
    ((error: unknown) =>
      console.error(
        "mail: sending failed:",
        error instanceof Error ? error.message : error,
      ));
  const page = (path: string) => `${options.link_origin()}${path}`;
  const core: MailCore = {
    database,
    options,
    in_background(task) {
      const running = task().catch(on_error).finally(() =>
        pending.delete(running)
      );
      pending.add(running);
    },
    page,
    link: (path, token) => `${page(path)}?token=${encodeURIComponent(token)}`,
  };
  const m = mail_operations;
  return {
    delivery: options.mailer.kind,
    request_password_reset: (...args) =>
      m.request_password_reset(core, ...args),
    reset_password: (...args) => m.reset_password(core, ...args),
    send_verification: (...args) => m.send_verification(core, ...args),
    notify_sign_up_attempt: (...args) =>
      m.notify_sign_up_attempt(core, ...args),
    verify_email: (...args) => m.verify_email(core, ...args),
    request_email_change: (...args) => m.request_email_change(core, ...args),
    send_goodbye: (...args) => m.send_goodbye(core, ...args),
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
