/**
 * API keys and the admin token: listing, creating and revoking keys, and
 * checking `Authorization: Bearer <ADMIN_TOKEN>` on the admin API.
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import {
  ApiError,
  LOGGED_LINK_MARK,
  type Services,
} from "../../contract/mod.ts";
import * as store from "../../db/mod.ts";
import { key_view } from "../views.ts";
import { with_database } from "../with_database.ts";
import {
  bind_services,
  type ServiceContext,
  type ServiceTable,
} from "./context.ts";

/**
 * Live keys need a verified address (sign-up mails the link; operator
 * accounts and accounts older than verification count as verified).
 */
async function require_verified_address(
  context: ServiceContext,
  account_id: string,
): Promise<void> {
  if (await store.is_email_verified(context.database, account_id)) return;
  const where = context.options.account_mail?.delivery === "smtp"
    ? "open the link in the mail we sent when you signed up"
    : "this server sends no mail, so open the link from the server's log " +
      `(a line starting with "${LOGGED_LINK_MARK}")`;
  throw new ApiError(
    "forbidden",
    `Confirm your e-mail address before creating a live API key: ${where} (a password reset link also confirms it)`,
  );
}

type KeyServiceName =
  | "authenticate_admin"
  | "list_keys"
  | "create_key"
  | "revoke_key";

const key_services: ServiceTable<KeyServiceName> = {
  authenticate_admin(context, authorization: string | null) {
    const { admin_token } = context.options;
    if (!admin_token) {
      throw new ApiError(
        "not_found",
        "The admin API is disabled (ADMIN_TOKEN is not set)",
      );
    }
    const admin_digest = createHash("sha256").update(admin_token).digest();
    const match = authorization
      ? /^Bearer +(\S+) *$/i.exec(authorization)
      : null;
    const given = createHash("sha256").update(match?.[1] ?? "").digest();
    if (!match || !timingSafeEqual(given, admin_digest)) {
      throw new ApiError(
        "unauthorized",
        "Admin endpoints need `Authorization: Bearer <ADMIN_TOKEN>`",
      );
    }
  },

  list_keys(context, account_id: string) {
    const { database, require_account } = context;
    return with_database(async () => {
      await require_account(account_id);
      return (await store.list_api_keys(database, account_id)).map(key_view);
    });
  },

  create_key(context, account_id, input) {
    const { database, require_account } = context;
    return with_database(async () => {
      await require_account(account_id);
      // Live keys need a confirmed address; test keys do not.
      if ((input.mode ?? "live") === "live") {
        await require_verified_address(context, account_id);
      }
      const key = await store.create_api_key(database, {
        account_id,
        name: input.name,
        mode: input.mode,
      });
      return { ...key, created_at: key.created_at.toISOString() };
    });
  },

  revoke_key(context, key_id: string, account_id?: string) {
    const { database } = context;
    return with_database(async () => {
      const key = await store.revoke_api_key(database, {
        key_id,
        account_id,
      });
      // Another account's key reads as missing: ids of others' keys are not confirmed.
      if (!key) throw new ApiError("not_found", "No API key with this id");
      return key_view(key);
    });
  },
};

/** The key services of an account, and the admin token check. */
export function create_key_services(
  context: ServiceContext,
): Pick<Services, KeyServiceName> {
  return bind_services(context, key_services);
}
