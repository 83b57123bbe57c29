/**
 * Database layer: schema, migrations, connection handling and repositories
 * for accounts, API keys, quotas, rate limits and dashboard sessions.
 *
 * This layer knows nothing of plans' limits or HTTP; callers pass limits in.
 *
 * @example
 * ```ts
 * import { open_database, create_account } from "./db/mod.ts";
 * const database = await open_database({ data_dir: "memory://" });
 * await create_account(database, { email: "a@example.com", plan: "pro" });
 * await database.close();
 * ```
 *
 * @module
 */
export {
  type Database,
  database_open_failure,
  database_refusal_of,
  type DatabaseRefusal,
  DatabaseUnavailableError,
  DataDirError,
  type Db,
  is_database_unavailable,
  observe_statements,
  open_database,
  type OpenDatabaseOptions,
  type PreparedStatement,
  type StatementParam,
  unavailable_public_message,
} from "./database.ts";
export {
  type Account,
  create_account,
  type CreateAccountInput,
  delete_account,
  type DeletedAccount,
  DuplicateEmailError,
  find_account_by_email,
  get_account,
  get_password_hash,
  list_deleted_account_usage,
  normalize_email,
  update_account,
  type UpdateAccountInput,
} from "./accounts.ts";
export {
  authenticate_and_reserve,
  type AuthenticateAndReserveInput,
  type AuthenticateAndReserveResult,
} from "./generate_request.ts";
export {
  API_KEY_DISPLAY_PREFIX_LENGTH,
  API_KEY_PREFIX,
  API_KEY_RATE_WINDOW_SECONDS,
  type ApiKey,
  type AuthAccount,
  authenticate_api_key,
  type AuthenticateInput,
  type AuthenticateResult,
  create_api_key,
  type CreatedApiKey,
  get_api_key,
  hash_api_key,
  list_api_keys,
  looks_like_api_key,
  type RateLimits,
  revoke_all_api_keys,
  revoke_api_key,
  TEST_API_KEY_PREFIX,
} from "./api_keys.ts";
export {
  previous_window_weight,
  prune_rate_limit_windows,
  sliding_window_remaining,
  sliding_window_used,
  sliding_window_wait_ms,
  type SlidingWindow,
  type SlidingWindowTake,
  take_sliding_window,
  type TakeSlidingWindowInput,
  window_start_of,
} from "./rate_limits.ts";
export {
  charge_generation,
  type ChargeFields,
  DEFAULT_RESERVATION_TTL_MS,
  get_daily_usage,
  get_open_reservations,
  get_test_calls,
  get_usage,
  get_usage_by_key,
  type KeyUsage,
  prune_receipts,
  release_generation,
  release_test_generation,
  type ReleaseGenerationInput,
  reserve_generation,
  reserve_test_generation,
  type ReserveGenerationInput,
  type ReserveResult,
  type ReserveTestGenerationInput,
  settle_generation,
  sweep_reservations,
  type TestReservation,
} from "./usage.ts";
export { open_postgres_client, postgres_target } from "./postgres_url.ts";
export { settle_generations } from "./settle_batch.ts";
export { vacuum_embedded } from "./vacuum.ts";
export {
  claim_idempotency_key,
  complete_idempotency_key,
  type IdempotencyClaim,
  type IdempotencyKeyInput,
  prune_idempotency_keys,
  release_idempotency_key,
} from "./idempotency.ts";
export {
  change_account_email,
  create_account_token,
  type CreateAccountTokenInput,
  delete_account_sessions,
  delete_account_tokens,
  type EmailChange,
  is_email_verified,
  prune_account_tokens,
  set_email_verified,
  use_account_token,
  type UsedAccountToken,
} from "./account_tokens.ts";
export {
  create_session,
  type CreatedSession,
  delete_other_sessions,
  delete_session,
  get_session,
  prune_sessions,
  type SessionInfo,
} from "./sessions.ts";
export * as schema from "./schema.ts";
export {
  KEY_MODES,
  type KeyMode,
  type Plan,
  PLANS,
  SUBSCRIPTION_STATUSES,
  type SubscriptionStatus,
  UPGRADE_REQUEST_STATUSES,
  type UpgradeRequestStatus,
} from "./schema.ts";
export {
  apply_subscription_state,
  type BillingRecord,
  find_billing_by_customer,
  forget_stripe_event,
  get_billing,
  link_stripe_customer,
  prune_stripe_events,
  record_stripe_event,
  set_operator_override,
  set_pending_plan,
  type SubscriptionState,
} from "./billing.ts";
export {
  close_upgrade_requests,
  type CloseUpgradeRequestsInput,
  count_upgrade_requests_since,
  create_upgrade_request,
  type CreateUpgradeRequestInput,
  type CreateUpgradeRequestResult,
  get_latest_upgrade_request,
  get_open_upgrade_request,
  list_upgrade_requests,
  type ListUpgradeRequestsInput,
  type UpgradeRequestRecord,
  withdraw_upgrade_request,
  type WithdrawUpgradeRequestResult,
} from "./upgrade_requests.ts";
