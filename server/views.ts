/**
 * Records of `db/` as the API shows them: accounts, API keys and upgrade
 * requests, with dates as ISO strings.
 *
 * @module
 */
import type {
  AccountView,
  ApiKeyView,
  UpgradeRequestView,
} from "../contract/mod.ts";
import type * as store from "../db/mod.ts";

/** An account as the API shows it. */
export function account_view(
  account: store.Account | store.AuthAccount & { created_at?: Date },
): AccountView {
  return {
    id: account.id,
    email: account.email,
    name: account.name,
    plan: account.plan,
    subscription_status: account.subscription_status,
    created_at: (account.created_at ?? new Date(0)).toISOString(),
  };
}

/** An API key as the API shows it (never its secret). */
export function key_view(key: store.ApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    status: key.revoked_at ? "revoked" : "active",
    mode: key.mode,
    created_at: key.created_at.toISOString(),
    last_used_at: key.last_used_at?.toISOString() ?? null,
    revoked_at: key.revoked_at?.toISOString() ?? null,
  };
}

/** An upgrade request as the API shows it. */
export function upgrade_request_view(
  request: store.UpgradeRequestRecord,
): UpgradeRequestView {
  return {
    id: request.id,
    account_id: request.account_id,
    account_email: request.account_email,
    current_plan: request.current_plan,
    requested_plan: request.requested_plan,
    message: request.message,
    status: request.status,
    created_at: request.created_at.toISOString(),
    closed_at: request.closed_at?.toISOString() ?? null,
    closed_by: request.closed_by === "admin_api" ||
        request.closed_by === "admin_cli" || request.closed_by === "customer"
      ? request.closed_by
      : null,
    resulting_plan: request.resulting_plan,
  };
}
