/**
 * What every service domain shares: the database, the options the server
 * was started with, the clock, and the account lookups each domain needs.
 *
 * @module
 */
import {
  type AccountView,
  ApiError,
  type BillingView,
  type Invoice,
  PLANS,
  type Services,
  TEST_DOCUMENTS_PER_MONTH,
  type UsageView,
} from "../../contract/mod.ts";
import * as store from "../../db/mod.ts";
import { type Billing, billing_view } from "../billing.ts";
import type { AccountMail } from "../dashboard/account_mail.ts";
import { PendingSettlements } from "../generate/pending_settlements.ts";
import {
  create_password_auth,
  type PasswordAuth,
  type SignupPolicy,
} from "../dashboard/auth.ts";
import type { ScryptParams } from "../dashboard/password.ts";
import type { OperatorMail } from "../operator_mail.ts";
import { month_of, next_month_start } from "./calendar.ts";
import type { HintOptions } from "./hints.ts";
import type { RenderOptions } from "../render_options.ts";

export type { RenderOptions };

/** Renders a validated invoice to PDF (or e-invoice) bytes. */
export type RenderDocument = (
  invoice: Invoice,
  options?: RenderOptions,
) => Promise<Uint8Array>;

/** What the services need. */
export interface ServicesOptions {
  render_document: RenderDocument;
  admin_token?: string;
  rate_limit_per_minute?: number;
  /** Injectable clock, for month rollover tests. */
  now?: () => Date;
  /**
   * True when a render started now would not wait (a render worker is
   * idle): generate_invoice then renders while the quota is reserved.
   * Unset: never early (an in-thread render would only block the reservation).
   */
  render_early?: () => boolean;
  /** Told how long each render took, in seconds (metrics). */
  on_render?: (seconds: number) => void;
  /** Render-seconds an account may use a minute (`RENDER_SECONDS_PER_MINUTE`). */
  render_seconds_per_minute?: number;
  /** Dashboard sign-up: open or not, and on what plan (default: open, Starter, active). */
  signup?: SignupPolicy;
  /** Stripe billing; unset: billing is off and plans change through the operator. */
  billing?: Billing;
  /** Password reset and address verification mail; unset: those answer 404. */
  account_mail?: AccountMail;
  /** Mail to the operator about upgrade requests; unset: they are only recorded. */
  operator_mail?: OperatorMail;
  /** `SUPPORT_EMAIL`, named where customers are told how to get more. */
  support_email?: string;
  /** Cost of new password hashes (default `DEFAULT_SCRYPT_PARAMS`). */
  scrypt_params?: ScryptParams;
  /**
   * How long a generation's reservation, and an `Idempotency-Key` held by a
   * request, last unless delivered (`RESERVATION_TTL_MS`, default 30 s).
   */
  reservation_ttl_ms?: number;
  /** Where settlements in flight are kept (shutdown waits for them); default: a new one. */
  settlements?: PendingSettlements;
  /** How long settlements gather into one statement, ms (default `SETTLE_BATCH_WINDOW_MS`). */
  settle_window_ms?: number;
}

/** What the service domains share, built once per `create_services`. */
export interface ServiceContext {
  database: store.Database;
  options: ServicesOptions;
  now: () => Date;
  /** What messages that say how to get more need to know. */
  hint_options: HintOptions;
  password_auth: PasswordAuth;
  /** The account, or a 404 `not_found`. */
  require_account(account_id: string): Promise<store.Account>;
  /** Settlements of delivered documents still being recorded. */
  settlements: PendingSettlements;
  /** The account's usage this month, its settlements in flight included. */
  usage_of(account: AccountView | store.Account): Promise<UsageView>;
  /** The account's billing as the API shows it. */
  billing_of(account_id: string): Promise<BillingView>;
  /** The account mail, or a 404 `not_found` when the server sends none. */
  require_account_mail(): AccountMail;
}

/** Builds the shared part of the services over an open database. */
export function create_service_context(
  database: store.Database,
  options: ServicesOptions,
): ServiceContext {
  const now = options.now ?? (() => new Date());
  const settlements = options.settlements ?? new PendingSettlements();

  async function require_account(account_id: string): Promise<store.Account> {
    const account = await store.get_account(database, account_id);
    if (!account) throw new ApiError("not_found", "No account with this id");
    return account;
  }

  async function usage_of(
    account: AccountView | store.Account,
  ): Promise<UsageView> {
    await settlements.settled(account.id);
    const at = now();
    const month = month_of(at);
    const [used, daily, test_calls] = await Promise.all([
      store.get_usage(database, account.id, { month }),
      store.get_daily_usage(database, account.id, { month }),
      store.get_test_calls(database, account.id, { month }),
    ]);
    const limit = PLANS[account.plan].monthly_invoices;
    return {
      month,
      used,
      limit,
      remaining: Math.max(0, limit - used),
      resets_at: next_month_start(at).toISOString(),
      daily,
      test_calls,
      test_limit: TEST_DOCUMENTS_PER_MONTH,
    };
  }

  async function billing_of(account_id: string) {
    return billing_view(
      await store.get_billing(database, account_id),
      options.billing !== undefined,
    );
  }

  function require_account_mail(): AccountMail {
    if (!options.account_mail) {
      throw new ApiError("not_found", "This server sends no account mail");
    }
    return options.account_mail;
  }

  return {
    database,
    options,
    now,
    hint_options: {
      billing: options.billing !== undefined,
      support_email: options.support_email,
    },
    password_auth: create_password_auth(database, {
      policy: options.signup,
      now,
      scrypt_params: options.scrypt_params,
    }),
    require_account,
    settlements,
    usage_of,
    billing_of,
    require_account_mail,
  };
}

/**
 * A domain's services as a table of functions that take the context first:
 * each one short and on its own, bound to a context by {@link bind_services}.
 */
export type ServiceTable<K extends keyof Services> = {
  [P in K]: (
    context: ServiceContext,
    ...args: Parameters<Services[P]>
  ) => ReturnType<Services[P]>;
};

/** The services of a table, bound to one context. */
export function bind_services<K extends keyof Services>(
  context: ServiceContext,
  table: ServiceTable<K>,
): Pick<Services, K> {
  const bound: Partial<Record<K, unknown>> = {};
  for (const name of Object.keys(table) as K[]) {
    const method = table[name] as (
      context: ServiceContext,
      ...args: unknown[]
    ) => unknown;
    bound[name] = (...args: unknown[]) => method(context, ...args);
  }
  return bound as Pick<Services, K>;
}
