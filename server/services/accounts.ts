/**
 * Accounts and sessions: creating accounts (operator and sign-up), signing
 * in, passwords, address verification and change, account deletion, and an
 * account's details and usage.
 *
 * @module
 */
import {
  type AccountView,
  ApiError,
  type Services,
} from "../../contract/mod.ts";
import * as store from "../../db/mod.ts";
import { hash_password } from "../dashboard/password.ts";
import { enforce_rate_limit } from "../rate_limit.ts";
import { account_view } from "../views.ts";
import { with_database } from "../with_database.ts";
import {
  bind_services,
  type ServiceContext,
  type ServiceTable,
} from "./context.ts";

/**
 * New verification links an account may ask for in a window: enough for a
 * lost mail, too few to flood its own mailbox.
 */
export const VERIFICATION_RESEND_LIMIT = {
  per_account: 3,
  window_seconds: 15 * 60,
} as const;

async function insert_account(
  context: ServiceContext,
  input: store.CreateAccountInput,
): Promise<AccountView> {
  try {
    return account_view(await store.create_account(context.database, input));
  } catch (error) {
    if (error instanceof store.DuplicateEmailError) {
      throw new ApiError(
        "conflict",
        "An account with this e-mail already exists",
      );
    }
    throw error;
  }
}

type AccountServiceName =
  | "create_account"
  | "sign_up"
  | "mail_delivery"
  | "is_email_verified"
  | "resend_verification"
  | "request_password_reset"
  | "reset_password"
  | "verify_email"
  | "sign_in"
  | "change_password"
  | "request_email_change"
  | "delete_account"
  | "get_account"
  | "update_account"
  | "get_usage";

const account_services: ServiceTable<AccountServiceName> = {
  create_account(context, input) {
    return with_database(() => insert_account(context, input));
  },

  sign_up(context, input) {
    const { database, options, password_auth } = context;
    return with_database(async () => {
      // The password is hashed and the insert tried for a taken address
      // too, and either way the mail goes out in the background: the
      // answer and its timing are the same (no account enumeration).
      const account_input = await password_auth.new_account(input);
      try {
        const account = await store.create_account(database, {
          ...account_input,
          // Self-service accounts prove their address by mail first.
          email_verified: options.account_mail === undefined,
        });
        options.account_mail?.send_verification(account);
      } catch (error) {
        if (!(error instanceof store.DuplicateEmailError)) throw error;
        options.account_mail?.notify_sign_up_attempt({ email: input.email });
      }
    });
  },

  mail_delivery(context) {
    const { options } = context;
    return options.account_mail?.delivery ?? "log";
  },

  is_email_verified(context, account_id) {
    const { database } = context;
    return with_database(() => store.is_email_verified(database, account_id));
  },

  resend_verification(context, principal) {
    const { database, now, require_account, require_account_mail } = context;
    return with_database(async () => {
      const account_mail = require_account_mail();
      const account = await require_account(principal.account.id);
      if (await store.is_email_verified(database, account.id)) {
        throw new ApiError(
          "conflict",
          `${account.email} is confirmed already`,
        );
      }
      await enforce_rate_limit(database, {
        bucket: `verify-resend:${account.id}`,
        limit: VERIFICATION_RESEND_LIMIT.per_account,
        window_seconds: VERIFICATION_RESEND_LIMIT.window_seconds,
        refusal: "Too many confirmation links asked for",
      }, now());
      account_mail.send_verification(account);
    });
  },

  request_password_reset(context, input) {
    const { require_account_mail } = context;
    return with_database(() =>
      require_account_mail().request_password_reset(input)
    );
  },

  reset_password(context, input) {
    const { require_account_mail } = context;
    return with_database(async () =>
      account_view(await require_account_mail().reset_password(input))
    );
  },

  verify_email(context, input) {
    const { require_account_mail } = context;
    return with_database(async () =>
      account_view(await require_account_mail().verify_email(input))
    );
  },

  sign_in(context, input) {
    const { password_auth } = context;
    return with_database(async () =>
      account_view(await password_auth.sign_in(input))
    );
  },

  change_password(context, input) {
    const { database, options, password_auth } = context;
    return with_database(async () => {
      const account = await password_auth.check_current_password({
        account_id: input.account_id,
        password: input.current_password,
        client_address: input.client_address,
      });
      await store.update_account(database, account.id, {
        password_hash: await hash_password(
          input.new_password,
          options.scrypt_params,
        ),
      });
      // Reset links mailed for the old password die with it.
      await store.delete_account_tokens(database, {
        account_id: account.id,
        purpose: "password_reset",
      });
    });
  },

  request_email_change(context, input) {
    const { password_auth, require_account_mail } = context;
    return with_database(async () => {
      const account_mail = require_account_mail();
      const account = await password_auth.check_current_password({
        account_id: input.account_id,
        password: input.current_password,
        client_address: input.client_address,
      });
      if (store.normalize_email(input.new_email) === account.email) {
        throw new ApiError(
          "invalid_request",
          "This is already the account's e-mail address",
          {
            details: [{
              path: "new_email",
              message: "is already this account's address",
            }],
          },
        );
      }
      await account_mail.request_email_change({
        account,
        new_email: input.new_email,
      });
    });
  },

  delete_account(context, input) {
    const { database, options, password_auth, require_account } = context;
    return with_database(async () => {
      const account = await require_account(input.account_id);
      if (store.normalize_email(input.email) !== account.email) {
        throw new ApiError(
          "invalid_request",
          "Type the account's e-mail address exactly to confirm the deletion",
          {
            details: [{
              path: "email",
              message: "must be this account's e-mail address",
            }],
          },
        );
      }
      await password_auth.check_current_password({
        account_id: account.id,
        password: input.password,
        client_address: input.client_address,
        field: "password",
      });
      // Stripe first: if it cannot be reached, nothing is deleted while a
      // subscription could still bill.
      const billing = options.billing
        ? await options.billing.cancel_for_deletion(account.id)
        : { canceled: false };
      const deleted = await store.delete_account(database, account.id);
      if (!deleted) {
        throw new ApiError("not_found", "No account with this id");
      }
      options.account_mail?.send_goodbye(deleted.email);
      return { subscription_canceled: billing.canceled };
    });
  },

  get_account(context, account_id: string) {
    const { require_account, usage_of, billing_of } = context;
    return with_database(async () => {
      const account = await require_account(account_id);
      return {
        ...account_view(account),
        usage: await usage_of(account),
        billing: await billing_of(account.id),
      };
    });
  },

  update_account(context, account_id, changes, update_options = {}) {
    const { database, options, now, require_account, usage_of, billing_of } =
      context;
    return with_database(async () => {
      const { billing_override, ...account_changes } = changes;
      let account = await store.update_account(
        database,
        account_id,
        account_changes,
      );
      if (!account) {
        throw new ApiError("not_found", "No account with this id");
      }
      // A hand-made plan or status on a Stripe-billed account is an
      // override, kept until the operator hands the account back.
      const by_hand = account_changes.plan !== undefined ||
        account_changes.subscription_status !== undefined;
      const override = billing_override ?? (by_hand ? true : undefined);
      if (override !== undefined) {
        if (!override && options.billing) {
          await options.billing.set_override(account_id, false);
          account = await require_account(account_id);
        } else {
          await store.set_operator_override(database, account_id, override);
        }
      }
      // An operator's plan change answers the account's open request,
      // whether it grants the plan asked for or another.
      if (account_changes.plan !== undefined) {
        await store.close_upgrade_requests(database, {
          account_id,
          closed_by: update_options.by ?? "admin_api",
          resulting_plan: account.plan,
          now: now(),
        });
      }
      return {
        ...account_view(account),
        usage: await usage_of(account),
        billing: await billing_of(account.id),
      };
    });
  },

  get_usage(context, account_id: string) {
    const { database, require_account, usage_of } = context;
    return with_database(async () => {
      const usage = await usage_of(await require_account(account_id));
      const by_key = await store.get_usage_by_key(database, account_id, {
        month: usage.month,
      });
      return {
        ...usage,
        by_key: by_key.map((key) => ({
          id: key.key_id,
          name: key.name,
          prefix: key.prefix,
          mode: key.mode,
          status: key.revoked_at ? "revoked" as const : "active" as const,
          count: key.count,
        })),
      };
    });
  },
};

/** The account and session services. */
export function create_account_services(
  context: ServiceContext,
): Pick<Services, AccountServiceName> {
  return bind_services(context, account_services);
}
