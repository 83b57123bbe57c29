/**
 * The server's implementation of the contract's `Services`: generation
 * (keys checked, quota charged, documents rendered) here, and the other
 * domains composed from `services/`: keys, accounts and sessions, billing,
 * upgrades.
 */
import { createHash } from "node:crypto";
import {
  ApiError,
  type ApiKeyRequest,
  type Invoice,
  INVOICE_FORMAT_TABLE,
  type InvoiceFormat,
  is_pdf_format,
  type KeyMode,
  type Plan,
  PLANS,
  type Principal,
  type RenderedDocument,
  type ResponseSink,
  type Services,
  TEST_DOCUMENTS_PER_MONTH,
  TEST_KEY_REQUESTS_PER_MINUTE,
} from "../contract/mod.ts";
import * as store from "../db/mod.ts";
import {
  check_page_budget,
  estimate_document,
  EXPENSIVE_RENDER_MS,
  PageLimitError,
} from "./pdf/page_budget.ts";
import { RenderBudget } from "./render_budget.ts";
import { RenderTimeoutError } from "./render_pool.ts";
import { enforce_rate_limit } from "./rate_limit.ts";
import { create_account_services } from "./services/accounts.ts";
import { create_billing_services } from "./services/billing.ts";
import { day_of, month_of, next_month_start } from "./services/calendar.ts";
import {
  create_service_context,
  type RenderOptions,
  type ServicesOptions,
} from "./services/context.ts";
import { more_invoices_hint, reactivate_hint } from "./services/hints.ts";
import { create_key_services } from "./services/keys.ts";
import { create_upgrade_services } from "./services/upgrades.ts";
import { account_view } from "./views.ts";
import { with_database } from "./with_database.ts";
import { delivery_of, type DeliveryTasks } from "./generate/delivery.ts";
import {
  legacy_request_hash,
  request_hash as live_request_hash,
} from "./generate/request_hash.ts";

export type {
  RenderDocument,
  RenderOptions,
  ServicesOptions,
} from "./services/context.ts";

// After a reservation finds an account's month used up, its requests wait
// for the quota before rendering for this long (see generate_invoice).
const NO_EARLY_RENDER_AFTER_EXHAUSTED_MS = 60_000;
// Bound on that memory (accounts whose month was found used up); past it,
// it is forgotten (only costs early renders).
const RECENTLY_EXHAUSTED_LIMIT = 10_000;
// Bound on the warm keys remembered; past it, they are forgotten (their
// next request checks the key in its own statement again).
const WARM_KEYS_LIMIT = 10_000;
// Bound on the timed-out documents remembered; past it, they and the
// accounts' timeout counts are forgotten.
const TIMED_OUT_DOCUMENTS_LIMIT = 10_000;
// A key that checked out is "warm" this long: its next /generate checks it
// in the same statement as the charge (one round trip) and may start the
// render before that statement. A key that fails a check is forgotten.
const WARM_KEY_MS = 60_000;
/** Free previews (dashboard "Try it") an account may render a minute. */
export const PREVIEWS_PER_MINUTE = 30;
/** How long an `Idempotency-Key` is remembered. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a timed-out render is remembered. */
const TIMEOUT_MEMORY_MS = 60 * 60 * 1000;
/**
 * Distinct documents of one account that may time out (on warm workers) in
 * an hour before its renders pause.
 */
export const TIMEOUTS_PER_HOUR = 3;
/** Default render-seconds an account may use a minute. */
export const RENDER_SECONDS_PER_MINUTE = 30;
/** Free previews an account may render a day (UTC). */
export const PREVIEWS_PER_DAY = 50;

function page_limit_error(error: PageLimitError): ApiError {
  return new ApiError("invalid_request", error.message, {
    details: [{ path: "items", message: error.message }],
  });
}

/** Refuses (400) an invoice whose pages surely exceed the limit, before any work. */
function check_document_cost(invoice: Invoice): void {
  try {
    check_page_budget(invoice);
  } catch (error) {
    if (error instanceof PageLimitError) throw page_limit_error(error);
    throw error;
  }
}

function sha256_hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Monthly invoices of each plan, as the quota statement takes them. */
const MONTHLY_INVOICES = Object.fromEntries(
  Object.entries(PLANS).map((
    [plan, limits],
  ) => [plan, limits.monthly_invoices]),
) as Record<Plan, number>;

// How a live or test key's request is generated, once the key checked out.
interface GenerateState {
  at: Date;
  render_options: RenderOptions;
  /** Reserved already, by the statement that checked the key. */
  reserved?: store.ReserveResult;
  /** The hash it was reserved under (see live_request_hash). */
  request_hash?: string;
  /** The render, started before the key statement (see WARM_KEY_MS). */
  early?: Promise<RenderedDocument>;
  /** What runs once the answer was delivered, or was not. */
  delivery: DeliveryTasks;
}

// How a key's invoice is rendered: marked as test for a test key.
function render_options_of(
  account_id: string,
  mode: KeyMode,
  format: InvoiceFormat,
): RenderOptions {
  return { format, account_id, ...(mode === "test" ? { test: true } : {}) };
}

/**
 * A file name safe in any header or file system, from the invoice number:
 * `.pdf` for the PDF and Factur-X, `.xml` for the XML formats.
 */
export function document_file_name(
  invoice_number: string,
  format: InvoiceFormat = "pdf",
): string {
  const safe = invoice_number.normalize("NFKD").replace(
    /[^A-Za-z0-9._-]+/g,
    "_",
  )
    .replace(/^[._]+|[._]+$/g, "").slice(0, 80);
  return `invoice-${safe || "document"}.${
    INVOICE_FORMAT_TABLE[format].extension
  }`;
}

// An API key from the Authorization header, with the SHA-256 that
// `warm_keys` is keyed by: parsed and hashed once per request.
interface BearerKey {
  key: string;
  key_hash: string;
}

function bearer_key(authorization: string | null): BearerKey {
  const key = parse_bearer(authorization);
  return { key, key_hash: sha256_hex(key) };
}

function parse_bearer(authorization: string | null): string {
  if (!authorization) {
    throw new ApiError(
      "unauthorized",
      "Missing Authorization header; send `Authorization: Bearer <API key>`",
    );
  }
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  if (!match) {
    throw new ApiError(
      "unauthorized",
      "Authorization header must use the Bearer scheme: `Bearer <API key>`",
    );
  }
  return match[1];
}

/** Creates the services over an open database. */
export function create_services(
  database: store.Database,
  options: ServicesOptions,
): Services {
  const context = create_service_context(database, options);
  const { now, hint_options, require_account } = context;
  const reservation_ttl_ms = options.reservation_ttl_ms ??
    store.DEFAULT_RESERVATION_TTL_MS;

  const rate_limits = Object.fromEntries(
    Object.entries(PLANS).map((
      [plan, limits],
    ) => [plan, options.rate_limit_per_minute ?? limits.requests_per_minute]),
  ) as store.RateLimits;

  // `account_id:month` → until when (clock ms) not to render early.
  const recently_exhausted = new Map<string, number>();

  function exhausted_key_of(account_id: string, at: Date): string {
    return `${account_id}:${month_of(at)}`;
  }

  // A render may start before the quota answers: a worker is idle, and the
  // account's month was not just found used up (so calling past the limit
  // does not cost a render each time).
  function may_render_early(account_id: string, at: Date): boolean {
    return (options.render_early?.() ?? false) &&
      (recently_exhausted.get(exhausted_key_of(account_id, at)) ?? 0) <
        at.getTime();
  }

  // What begin_generate_key_check parsed and hashed, for generate_invoice.
  const bearer_keys = new WeakMap<ApiKeyRequest, BearerKey>();
  // SHA-256 of an API key that checked out → its account and mode, until.
  const warm_keys = new Map<
    string,
    {
      account_id: string;
      mode: KeyMode;
      until: number;
      /** Requests the rate limit still allowed after its last one. */
      rate_remaining: number;
    }
  >();

  // Every render's own time counts against its account's budget of
  // render-seconds a minute, however it ended.
  const render_budget = new RenderBudget(
    options.render_seconds_per_minute ?? RENDER_SECONDS_PER_MINUTE,
    () => now().getTime(),
  );

  // Timed-out renders are not charged, so they must not be free to repeat:
  // a document whose render timed out on a warm worker is refused for an
  // hour, and an account whose distinct documents timed out
  // TIMEOUTS_PER_HOUR times renders nothing for the rest of that hour. A
  // timeout on a cold worker (its first render) pauses nothing: that is the
  // service's slowness, not the document's (the render budget still counts
  // its time). Kept per instance (a timeout costs the instance that ran it).
  const timed_out_documents = new Map<string, number>();
  // Per account: when each distinct document last timed out.
  const account_timeouts = new Map<string, Map<string, number>>();

  function recent_timeouts(account: string, at: number): Map<string, number> {
    const documents = account_timeouts.get(account) ?? new Map();
    for (const [key, when] of documents) {
      if (when <= at - TIMEOUT_MEMORY_MS) documents.delete(key);
    }
    return documents;
  }

  function remember_timeout(key: string): void {
    const at = now().getTime();
    if (timed_out_documents.size >= TIMED_OUT_DOCUMENTS_LIMIT) {
      timed_out_documents.clear();
      account_timeouts.clear();
    }
    timed_out_documents.set(key, at + TIMEOUT_MEMORY_MS);
    const account = key.slice(0, key.indexOf(":"));
    const documents = recent_timeouts(account, at);
    documents.set(key, at);
    account_timeouts.set(account, documents);
  }

  function refuse_after_timeouts(key: string): void {
    const at = now().getTime();
    const until = timed_out_documents.get(key);
    if (until !== undefined && until > at) {
      throw new ApiError(
        "invalid_request",
        "This invoice took longer than the render limit less than an hour ago and is refused until " +
          `${new Date(until).toISOString()}; make it shorter or split it`,
      );
    }
    const account = key.slice(0, key.indexOf(":"));
    const documents = recent_timeouts(account, at);
    if (documents.size === 0) account_timeouts.delete(account);
    if (documents.size >= TIMEOUTS_PER_HOUR) {
      const first = Math.min(...documents.values());
      const wait = Math.ceil((first + TIMEOUT_MEMORY_MS - at) / 1000);
      throw new ApiError(
        "rate_limited",
        `${documents.size} of this account's invoices timed out in the last hour; rendering resumes in ${wait} seconds`,
        { headers: { "Retry-After": String(wait) } },
      );
    }
  }

  async function render(
    invoice: Invoice,
    render_options: RenderOptions = {},
  ): Promise<RenderedDocument> {
    const format = render_options.format ?? "pdf";
    const started = performance.now();
    const account_id = render_options.account_id;
    // Hashing the document only for accounts that had a timeout lately.
    const document_key = () =>
      `${account_id}:${sha256_hex(JSON.stringify(invoice))}`;
    if (account_id) {
      render_budget.check(account_id);
      if (account_timeouts.has(account_id)) {
        refuse_after_timeouts(document_key());
      }
    }
    let render_seconds: number | undefined;
    let bytes: Uint8Array;
    try {
      bytes = await options.render_document(invoice, {
        ...render_options,
        expensive: estimate_document(invoice).cost_ms >= EXPENSIVE_RENDER_MS,
        on_render_time: (seconds) => {
          render_seconds = seconds;
        },
      });
    } catch (error) {
      // Rendered on this thread: the renderer's own page-limit stop.
      if (error instanceof PageLimitError) throw page_limit_error(error);
      if (error instanceof RenderTimeoutError && error.warm && account_id) {
        remember_timeout(document_key());
      }
      throw error;
    } finally {
      if (account_id) {
        render_budget.charge(
          account_id,
          render_seconds ?? (performance.now() - started) / 1000,
        );
      }
    }
    options.on_render?.((performance.now() - started) / 1000);
    return {
      file_name: document_file_name(invoice.invoice_number, format),
      bytes,
      content_type: is_pdf_format(format)
        ? "application/pdf"
        : "application/xml; charset=utf-8",
    };
  }

  // A live key: reserve the quota (a receipt per body hash), render,
  // release the charge if the render fails.
  async function generate_live(
    principal: Principal,
    invoice: Invoice,
    response: ResponseSink,
    state: GenerateState,
  ): Promise<RenderedDocument> {
    const { at, render_options } = state;
    const format = render_options.format ?? "pdf";
    const month = month_of(at);
    const day = day_of(at);
    const plan = PLANS[principal.account.plan];
    // Hashed once per request (server/generate/request_hash.ts).
    const request_hash = state.request_hash ??
      live_request_hash(invoice, format);
    const reservation = {
      account_id: principal.account.id,
      month,
      day,
      request_hash,
      key_id: principal.key_id,
    };
    // With a render worker idle, the render starts while the quota is
    // reserved, so the two overlap instead of adding up (about 1 ms less
    // per request at low load); the PDF is returned only after a
    // successful reservation. Under load (no idle worker) renders wait
    // for the quota reservation, and so do accounts just found over their
    // limit (see may_render_early).
    const exhausted_key = exhausted_key_of(principal.account.id, at);
    // Reserved already when the key statement charged it too (one round
    // trip); then only a render started before that statement overlaps it.
    let early = state.early;
    let reserved = state.reserved;
    if (!reserved) {
      early = may_render_early(principal.account.id, at)
        ? render(invoice, render_options)
        : undefined;
      early?.catch(() => {}); // awaited below, or deliberately dropped
      reserved = await store.reserve_generation(database, {
        ...reservation,
        legacy_hash: legacy_request_hash(invoice, format),
        limit: plan.monthly_invoices,
        now: at,
        ttl_ms: reservation_ttl_ms,
      });
    }
    // The headers count this request as charged when it will be once
    // delivered.
    const charged_too = reserved.status === "reserved" ||
      reserved.status === "pending";
    const reset = set_quota_headers(response, principal, {
      at,
      used: reserved.used + (charged_too ? 1 : 0),
    });
    if (reserved.status === "exhausted") {
      if (recently_exhausted.size >= RECENTLY_EXHAUSTED_LIMIT) {
        recently_exhausted.clear();
      }
      recently_exhausted.set(
        exhausted_key,
        at.getTime() + NO_EARLY_RENDER_AFTER_EXHAUSTED_MS,
      );
      throw new ApiError(
        "quota_exceeded",
        `The ${plan.name} plan's limit of ${plan.monthly_invoices} invoices this month is used up; ` +
          `it resets on ${reset} (UTC). ` +
          more_invoices_hint(principal.account.plan, hint_options),
      );
    }
    // A copy of a charged request, or of one in flight (charged once,
    // whichever copy is delivered first).
    if (reserved.status === "replay" || reserved.status === "pending") {
      response.headers.set("Idempotent-Replayed", "true");
    }
    if (reserved.status === "reserved") {
      recently_exhausted.delete(exhausted_key);
    }
    // Charged once delivered; a reservation of its own is given back
    // otherwise (a pending one belongs to the same request in flight).
    const release = () =>
      reserved.status === "reserved"
        ? store.release_generation(database, reservation)
        : Promise.resolve();
    let document: RenderedDocument;
    try {
      document = await (early ?? render(invoice, render_options));
    } catch (error) {
      await release().catch(() => {});
      throw error;
    }
    if (reserved.status !== "replay") {
      state.delivery.delivered.push(() =>
        store.settle_generation(database, reservation)
      );
      state.delivery.undelivered.push(release);
    }
    return document;
  }

  // A test key: never charged, but at most TEST_DOCUMENTS_PER_MONTH a
  // month, reserved before the render (atomically, as the live quota) and
  // given back if the render fails; rendered marked as test.
  async function generate_test(
    principal: Principal,
    invoice: Invoice,
    response: ResponseSink,
    state: GenerateState,
  ): Promise<RenderedDocument> {
    const reservation = {
      account_id: principal.account.id,
      month: month_of(state.at),
      key_id: principal.key_id,
    };
    const counts = await store.reserve_test_generation(database, {
      ...reservation,
      limit: TEST_DOCUMENTS_PER_MONTH,
    });
    const reset = set_quota_headers(response, principal, {
      at: state.at,
      used: counts.used,
    });
    if (counts.status === "exhausted") {
      throw new ApiError(
        "test_limit_reached",
        `Test keys make at most ${TEST_DOCUMENTS_PER_MONTH} documents a month (all formats together) ` +
          `and this account's are used up; they reset on ${reset} (UTC). Live keys are not affected.`,
      );
    }
    const release = () => store.release_test_generation(database, reservation);
    let document: RenderedDocument;
    try {
      document = await (state.early ?? render(invoice, state.render_options));
    } catch (error) {
      await release().catch(() => {});
      throw error;
    }
    state.delivery.undelivered.push(release);
    return document;
  }

  // The quota headers of an answer; returns the reset day they name.
  function set_quota_headers(
    response: ResponseSink,
    principal: Principal,
    state: { at: Date; used: number },
  ): string {
    const plan = PLANS[principal.account.plan];
    const reset = day_of(next_month_start(state.at));
    response.headers.set("X-Quota-Limit", String(plan.monthly_invoices));
    response.headers.set(
      "X-Quota-Remaining",
      String(Math.max(0, plan.monthly_invoices - state.used)),
    );
    response.headers.set("X-Quota-Reset", reset);
    return reset;
  }

  // The key statement's answer: the principal, with the rate-limit headers
  // set; or the 401, 403 or 429 it calls for. Keys that check out are
  // remembered for a minute (see `warm_keys`), others forgotten.
  function principal_of(
    result: store.AuthenticateResult,
    response: ResponseSink,
    state: { at: Date; key_hash: string },
  ): Principal {
    const { at } = state;
    warm_keys.delete(state.key_hash);
    if (result.status === "unknown") {
      throw new ApiError("unauthorized", "Unknown API key");
    }
    response.account_id = result.status === "revoked"
      ? result.account_id
      : result.account.id;
    if (result.status === "revoked") {
      throw new ApiError(
        "key_revoked",
        "This API key was revoked and can no longer be used; generate a new key",
      );
    }
    if (result.status === "inactive") {
      throw new ApiError(
        "subscription_inactive",
        "The account's subscription is inactive, so invoices cannot be generated; " +
          reactivate_hint(result.account.plan, hint_options),
      );
    }
    const { rate } = result;
    const remaining = store.sliding_window_remaining(rate, at);
    // Seconds until one more request than `remaining` fits: on a 429,
    // the true wait, so RateLimit-Reset and Retry-After agree.
    const reset_seconds = Math.max(
      1,
      Math.ceil(
        store.sliding_window_wait_ms(rate, {
          now: at,
          needed: Math.min(remaining + 1, rate.limit),
        }) / 1000,
      ),
    );
    response.headers.set("RateLimit-Limit", String(rate.limit));
    response.headers.set("RateLimit-Remaining", String(remaining));
    response.headers.set("RateLimit-Reset", String(reset_seconds));
    if (!result.rate_allowed) {
      throw new ApiError(
        "rate_limited",
        `Rate limit of ${rate.limit} requests per minute reached; retry in ${reset_seconds} seconds`,
        { headers: { "Retry-After": String(reset_seconds) } },
      );
    }
    if (warm_keys.size >= WARM_KEYS_LIMIT) warm_keys.clear();
    warm_keys.set(state.key_hash, {
      account_id: result.account.id,
      mode: result.mode,
      until: at.getTime() + WARM_KEY_MS,
      rate_remaining: remaining,
    });
    return {
      account: account_view(result.account),
      key_id: result.key_id,
      key_mode: result.mode,
    };
  }

  function authentication_input(key: string, at: Date) {
    return {
      key,
      now: at,
      rate_limits,
      test_rate_limit: options.rate_limit_per_minute ??
        TEST_KEY_REQUESTS_PER_MINUTE,
    };
  }

  async function authenticate(
    bearer: BearerKey,
    response: ResponseSink,
    at: Date = now(),
  ): Promise<Principal> {
    const result = await store.authenticate_api_key(
      database,
      authentication_input(bearer.key, at),
    );
    return principal_of(result, response, { at, key_hash: bearer.key_hash });
  }

  // Charges (unless charged already) and renders for an authenticated key.
  async function generate_for(
    principal: Principal,
    invoice: Invoice,
    response: ResponseSink,
    state: {
      at: Date;
      format?: InvoiceFormat;
      idempotency_key?: string;
      reserved?: store.ReserveResult;
      request_hash?: string;
      early?: Promise<RenderedDocument>;
    },
  ): Promise<RenderedDocument> {
    const mode = principal.key_mode ?? "live";
    const render_options = render_options_of(
      principal.account.id,
      mode,
      state.format ?? "pdf",
    );
    const { at } = state;
    const key = state.idempotency_key;
    // Hashes only: the key, and the request (mode, format and body).
    const idempotency = key === undefined ? undefined : {
      account_id: principal.account.id,
      key_hash: sha256_hex(key),
      request_hash: sha256_hex(
        JSON.stringify([mode, render_options.format, invoice]),
      ),
    };
    if (idempotency) {
      const claim = await store.claim_idempotency_key(database, {
        ...idempotency,
        now: at,
        expired_before: new Date(at.getTime() - IDEMPOTENCY_KEY_TTL_MS),
        abandoned_before: new Date(at.getTime() - reservation_ttl_ms),
      });
      if (claim.status === "reused") {
        throw new ApiError(
          "idempotency_key_reused",
          "This Idempotency-Key was already used with a different request body; " +
            "use a new key for a new request",
        );
      }
      if (claim.status === "in_progress") {
        throw new ApiError(
          "idempotency_in_progress",
          "The first request with this Idempotency-Key is still running; retry in a moment",
          { headers: { "Retry-After": "1" } },
        );
      }
      if (claim.status === "replay") {
        const used = await store.get_usage(database, principal.account.id, {
          month: month_of(at),
        });
        set_quota_headers(response, principal, { at, used });
        response.headers.set("Idempotent-Replayed", "true");
        return await render(invoice, render_options);
      }
    }
    try {
      const delivery: DeliveryTasks = { delivered: [], undelivered: [] };
      const generate_state: GenerateState = {
        at,
        render_options,
        reserved: state.reserved,
        request_hash: state.request_hash,
        early: state.early,
        delivery,
      };
      const document = mode === "test"
        ? await generate_test(principal, invoice, response, generate_state)
        : await generate_live(
          principal,
          invoice,
          response,
          generate_state,
        );
      if (idempotency) {
        // Done once delivered; given back otherwise. Not marking it done
        // only makes a retry wait (409) until its lease ends.
        delivery.delivered.push(() =>
          store.complete_idempotency_key(database, idempotency)
        );
        delivery.undelivered.push(() =>
          store.release_idempotency_key(database, idempotency)
        );
      }
      response.delivery = delivery_of(delivery);
      return document;
    } catch (error) {
      if (idempotency) {
        await store.release_idempotency_key(database, idempotency)
          .catch(() => {});
      }
      throw error;
    }
  }

  return {
    ...create_key_services(context),
    ...create_account_services(context),
    ...create_billing_services(context),
    ...create_upgrade_services(context),
    authenticate_api_key(authorization: string | null, response: ResponseSink) {
      return with_database(() =>
        authenticate(bearer_key(authorization), response)
      );
    },

    begin_generate_key_check(
      authorization: string | null,
      response: ResponseSink,
    ) {
      return with_database(async (): Promise<ApiKeyRequest> => {
        const bearer = bearer_key(authorization);
        const warm = warm_keys.get(bearer.key_hash);
        if (warm && warm.until > now().getTime()) {
          const api_key = { authorization, checked: false };
          bearer_keys.set(api_key, bearer);
          return api_key;
        }
        const principal = await authenticate(bearer, response);
        return { authorization, checked: true, principal };
      });
    },

    generate_invoice(
      api_key: ApiKeyRequest,
      invoice: Invoice,
      response: ResponseSink,
      generate_options: {
        format?: InvoiceFormat;
        idempotency_key?: string;
      } = {},
    ) {
      return with_database(async () => {
        // Too long to render: refused before anything is charged or drawn
        // (a key not yet checked is checked first by the router, so a bad
        // key still answers 401 rather than this 400).
        check_document_cost(invoice);
        const at = now();
        const format = generate_options.format ?? "pdf";
        const generate_state = {
          at,
          format,
          idempotency_key: generate_options.idempotency_key,
        };
        if (api_key.principal) {
          return await generate_for(
            api_key.principal,
            invoice,
            response,
            generate_state,
          );
        }
        const bearer = bearer_keys.get(api_key) ??
          bearer_key(api_key.authorization);
        const { key, key_hash } = bearer;
        api_key.checked = true;
        if (generate_options.idempotency_key !== undefined) {
          // The Idempotency-Key is claimed between key and quota.
          const principal = await authenticate(bearer, response, at);
          return await generate_for(
            principal,
            invoice,
            response,
            generate_state,
          );
        }
        // A key seen valid lately, a worker idle: the render starts now and
        // overlaps the statement; dropped if the key no longer checks out.
        // Not when the rate limit was about to refuse, or the month used up.
        const warm = warm_keys.get(key_hash);
        const early = warm && warm.rate_remaining > 0 &&
            may_render_early(warm.account_id, at)
          ? render(
            invoice,
            render_options_of(warm.account_id, warm.mode, format),
          )
          : undefined;
        early?.catch(() => {}); // awaited later, or deliberately dropped
        const request_hash = live_request_hash(invoice, format);
        const result = await store.authenticate_and_reserve(database, {
          ...authentication_input(key, at),
          month: month_of(at),
          day: day_of(at),
          request_hash,
          legacy_hash: legacy_request_hash(invoice, format),
          monthly_limits: MONTHLY_INVOICES,
          ttl_ms: reservation_ttl_ms,
        });
        const principal = principal_of(result.auth, response, {
          at,
          key_hash,
        });
        const same = warm?.account_id === principal.account.id &&
          warm.mode === principal.key_mode;
        return await generate_for(principal, invoice, response, {
          ...generate_state,
          reserved: result.reservation,
          request_hash,
          early: same ? early : undefined,
        });
      });
    },

    preview_invoice(principal, invoice, preview_options = {}) {
      return with_database(async () => {
        // Previews are free, so they are marked on every page, refused to
        // inactive subscriptions, and limited per minute and per day.
        const account = await require_account(principal.account.id);
        if (account.subscription_status !== "active") {
          throw new ApiError(
            "subscription_inactive",
            "Previews need an active subscription; " +
              reactivate_hint(account.plan, hint_options),
          );
        }
        const at = now();
        for (
          const limit of [
            { per: "minute", seconds: 60, max: PREVIEWS_PER_MINUTE },
            { per: "day", seconds: 86_400, max: PREVIEWS_PER_DAY },
          ] as const
        ) {
          await enforce_rate_limit(database, {
            bucket: `preview-${limit.per}:${account.id}`,
            limit: limit.max,
            window_seconds: limit.seconds,
            refusal: `Previews are limited to ${limit.max} a ${limit.per}`,
          }, at);
        }
        check_document_cost(invoice);
        return await render(invoice, {
          preview: true,
          format: preview_options.format,
          account_id: account.id,
        });
      });
    },
  };
}
