/**
 * What the procedures need from the server, as interfaces: the contract
 * defines the procedures once and imports nothing of ours; `server/`
 * implements these services.
 */
import type { Invoice } from "./invoice_types.ts";
import type { DocumentContentType, InvoiceFormat } from "./formats.ts";
import type {
  AccountWithBilling,
  BillingView,
  ChangePlanResult,
} from "./billing.ts";
import type {
  AccountUsageView,
  AccountView,
  ApiKeyView,
  CreatedApiKey,
  KeyMode,
  Plan,
  SubscriptionStatus,
} from "./accounts.ts";
import type { MailDelivery } from "./auth.ts";
import type {
  UpgradeRequestStatus,
  UpgradeRequestView,
  UpgradeStateView,
} from "./upgrades.ts";

/** The account a request acts for, once its credentials were checked. */
export interface Principal {
  account: AccountView;
  /** The API key used, when the caller used one. */
  key_id?: string;
  /** That key's mode: test keys render marked documents, never charged. */
  key_mode?: KeyMode;
  /** The CSRF token of the dashboard session, when the caller used one. */
  csrf_token?: string;
}

/**
 * The API key of a `POST /generate`, as the router hands it to
 * {@linkcode Services.generate_invoice}: checked already (`principal`), or
 * left for the service to check together with the quota charge, in one
 * database statement. `checked` turns true once a statement has looked at
 * the key, whatever it found.
 */
export interface ApiKeyRequest {
  /** The request's `Authorization` header. */
  authorization: string | null;
  /** Whether a statement has looked at the key. */
  checked: boolean;
  /** The key's principal, when it was checked before the body was read. */
  principal?: Principal;
}

/**
 * The dashboard session cookie of one request. The HTTP layer implements it,
 * because only it knows the request's cookie and whether it came over HTTPS.
 */
export interface SessionControl {
  /** Starts a session for the account (replacing this request's) and sets its cookie. */
  start(account_id: string): Promise<void>;
  /** Ends this request's session server-side and clears the cookie. */
  end(): Promise<void>;
  /** Ends every other session of the account, keeping this request's; returns how many ended. */
  end_other_sessions(account_id: string): Promise<number>;
}

/**
 * What a generation does once its answer's fate is known: charged when the
 * body was handed completely to the connection, given back when it never
 * will be (the client left, the answer failed). The HTTP layer calls exactly
 * one of them, once.
 */
export interface Delivery {
  /** The body's last byte was handed to the connection. */
  delivered(): Promise<void>;
  /** The body will not be delivered. */
  undelivered(): Promise<void>;
}

/** Where procedures put response status and headers (the HTTP layer sends them). */
export interface ResponseSink {
  status?: number;
  headers: Headers;
  /** The document's bytes when the HTTP face streams them itself instead of JSON. */
  document?: Uint8Array;
  /** The account the request acted for, once known (for request logs). */
  account_id?: string;
  /** Set by a generation that settles on delivery (see {@linkcode Delivery}). */
  delivery?: Delivery;
}

/** A rendered invoice: the PDF, or an e-invoice in the requested format. */
export interface RenderedDocument {
  file_name: string;
  bytes: Uint8Array;
  /** The format's content type (`INVOICE_FORMAT_TABLE`). */
  content_type: DocumentContentType;
}

/** Server-side operations the procedures call. */
export interface Services {
  /**
   * Checks an `Authorization` header carrying an API key, counts the request
   * against the account's rate limit and sets rate-limit headers. Throws an
   * `ApiError` (401, 403, 429, 503).
   */
  authenticate_api_key(
    authorization: string | null,
    response: ResponseSink,
  ): Promise<Principal>;
  /**
   * Starts a `POST /generate`: a key that checked out lately is left to
   * {@linkcode Services.generate_invoice}, which checks it with the quota
   * charge in one statement; any other key is checked now, as
   * `authenticate_api_key` does, before the body is read. Throws an
   * `ApiError` (401, 403, 429, 503).
   */
  begin_generate_key_check(
    authorization: string | null,
    response: ResponseSink,
  ): Promise<ApiKeyRequest>;
  /** Checks the operator's `Authorization` header. Throws an `ApiError`. */
  authenticate_admin(authorization: string | null): void;
  /**
   * Checks the key unless `api_key` was checked already, charges the monthly
   * quota, renders the PDF (or `options.format`), and releases the charge if
   * rendering fails. Sets `api_key.checked` before it looks at the key.
   */
  generate_invoice(
    api_key: ApiKeyRequest,
    invoice: Invoice,
    response: ResponseSink,
    options?: {
      format?: InvoiceFormat;
      /** A valid `Idempotency-Key` header: one charge and one answer per key. */
      idempotency_key?: string;
    },
  ): Promise<RenderedDocument>;
  /**
   * Renders without charging quota (the dashboard's preview), in
   * `options.format` (default the PDF): PDFs marked PREVIEW on every page,
   * XML marked as test output, so no preview is a usable invoice.
   */
  preview_invoice(
    principal: Principal,
    invoice: Invoice,
    options?: { format?: InvoiceFormat },
  ): Promise<RenderedDocument>;
  create_account(input: {
    email: string;
    name?: string;
    plan: Plan;
    subscription_status?: SubscriptionStatus;
  }): Promise<AccountView>;
  get_account(account_id: string): Promise<AccountWithBilling>;
  /**
   * Operator change of plan or status. On an account billed through Stripe
   * it becomes an override unless `billing_override` is false.
   */
  update_account(
    account_id: string,
    changes: {
      plan?: Plan;
      subscription_status?: SubscriptionStatus;
      billing_override?: boolean;
    },
    options?: {
      /** Through what the operator acts; recorded on upgrade requests a plan change closes. */
      by?: "admin_api" | "admin_cli";
    },
  ): Promise<AccountWithBilling>;
  /** What the signed-in account's Usage page shows about upgrading. */
  get_upgrade_state(account_id: string): Promise<UpgradeStateView>;
  /**
   * Records a request for a higher plan and mails the operator. Throws
   * `not_found` when billing is on (plans change by themselves there),
   * `invalid_request` for a plan not above the current one, `conflict` while
   * a request is open and `rate_limited` after too many requests.
   */
  request_upgrade(
    principal: Principal,
    input: {
      plan: Plan;
      message?: string;
    },
  ): Promise<UpgradeRequestView>;
  /**
   * Withdraws the account's own open request. Throws `not_found` for an id
   * that is not one of the account's requests, `conflict` when the request
   * is no longer open.
   */
  withdraw_upgrade_request(
    principal: Principal,
    request_id: string,
  ): Promise<UpgradeRequestView>;
  /** Upgrade requests of every account, newest first (the operator's list). */
  list_upgrade_requests(
    filter: { status?: UpgradeRequestStatus; limit?: number },
  ): Promise<UpgradeRequestView[]>;
  /** The account's billing state (billing may be off on this server). */
  get_billing(account_id: string): Promise<BillingView>;
  /**
   * Moves the signed-in account to `plan`: a Stripe Checkout session for a
   * new subscription, an immediate prorated upgrade, or a downgrade at the
   * period end. `base_url` is where Stripe sends the customer back.
   */
  change_plan(
    principal: Principal,
    input: { plan: Plan; base_url: string },
  ): Promise<ChangePlanResult>;
  /** A Stripe customer portal session for the signed-in account. */
  open_billing_portal(
    principal: Principal,
    input: { base_url: string },
  ): Promise<{ url: string }>;
  /** This month's usage of an account, with its breakdown by API key. */
  get_usage(account_id: string): Promise<AccountUsageView>;
  list_keys(account_id: string): Promise<ApiKeyView[]>;
  create_key(
    account_id: string,
    input: { name: string; mode?: KeyMode },
  ): Promise<CreatedApiKey>;
  /** Revokes a key; with an account id, only that account's key. */
  revoke_key(key_id: string, account_id?: string): Promise<ApiKeyView>;
  /**
   * Creates an account with a dashboard password and mails the verification
   * link; for an address that already has an account, mails its owner a
   * notice instead. Settles the same way for both (no account enumeration).
   * Throws `forbidden` when sign-up is switched off, `rate_limited`.
   */
  sign_up(
    input: {
      email: string;
      password: string;
      client_address?: string;
    },
    response: ResponseSink,
  ): Promise<void>;
  /**
   * Checks a dashboard e-mail and password, rate-limited per e-mail. Throws
   * `unauthorized` (the same for an unknown e-mail and a wrong password) or
   * `rate_limited` (with `Retry-After` set on `response`).
   */
  sign_in(
    input: { email: string; password: string; client_address?: string },
    response: ResponseSink,
  ): Promise<AccountView>;
  /**
   * Mails a password-reset link when the address has an account; answers
   * nothing either way (no account enumeration). Throws `rate_limited`.
   */
  request_password_reset(
    input: { email: string; client_address?: string },
    response: ResponseSink,
  ): Promise<void>;
  /**
   * Sets a new password from a reset token and ends every session of the
   * account. Throws `invalid_request` for an unknown, used or expired token.
   */
  reset_password(
    input: { token: string; password: string },
  ): Promise<AccountView>;
  /**
   * Marks the address verified from a verification token, or completes an
   * address change from its token (`invalid_request` when void).
   */
  verify_email(input: { token: string }): Promise<AccountView>;
  /** How account mail leaves this server: `smtp`, or `log` (no `SMTP_URL`). */
  mail_delivery(): MailDelivery;
  /** Whether the account's e-mail address is confirmed. */
  is_email_verified(account_id: string): Promise<boolean>;
  /**
   * Mails a new verification link to the signed-in account's address.
   * Throws `conflict` when the address is confirmed already, `not_found`
   * when the server sends no account mail, `rate_limited`.
   */
  resend_verification(principal: Principal): Promise<void>;
  /**
   * Sets a new password after checking the current one (rate-limited like
   * sign-in). Throws `invalid_request` naming `current_password`, or
   * `rate_limited`. The caller ends the account's other sessions.
   */
  change_password(
    input: {
      account_id: string;
      current_password: string;
      new_password: string;
      client_address?: string;
    },
    response: ResponseSink,
  ): Promise<void>;
  /**
   * Checks the current password and mails a confirmation link to
   * `new_email`; the address changes only when the link is opened. Answers
   * the same when the address belongs to another account (whose owner is
   * told instead).
   */
  request_email_change(
    input: {
      account_id: string;
      new_email: string;
      current_password: string;
      client_address?: string;
    },
    response: ResponseSink,
  ): Promise<void>;
  /**
   * Deletes the account after checking the typed e-mail and the password:
   * cancels a Stripe subscription first, then removes its keys, sessions,
   * tokens and usage rows (monthly counts kept as anonymous month totals).
   */
  delete_account(
    input: {
      account_id: string;
      email: string;
      password: string;
      client_address?: string;
    },
    response: ResponseSink,
  ): Promise<{ subscription_canceled: boolean }>;
}

/** The tRPC context every procedure receives. */
export interface ServiceContext {
  /** The raw `Authorization` header, if any. */
  authorization: string | null;
  /** The dashboard session's principal, resolved by the HTTP layer from its cookie. */
  session: Principal | null;
  /** Starts and ends dashboard sessions; absent where there is no dashboard. */
  session_control?: SessionControl;
  /** True when the HTTP face streams the document's bytes itself (REST `POST /generate`). */
  binary_document: boolean;
  /** The request's `Accept-Language` header: picks the locale of an invoice that names none. */
  accept_language?: string | null;
  /**
   * `PUBLIC_URL`, else the origin the client reached (its `Host`), e.g.
   * `https://invoices.example.com`: where Stripe sends this customer back.
   * Mail never uses it.
   */
  origin?: string;
  /** The raw `Idempotency-Key` header, if any (checked by the procedure). */
  idempotency_key?: string | null;
  /**
   * The address the request came from, for per-client limits: the TCP peer,
   * or behind `TRUSTED_PROXIES` the right-most untrusted `X-Forwarded-For` hop.
   */
  client_address?: string;
  /**
   * Called once the request's API key or admin token checked out, before
   * its input is read: the HTTP layer then lets the body use the memory
   * budget of known clients instead of the small anonymous share.
   */
  credentials_checked?: () => void;
  response: ResponseSink;
  services: Services;
}
