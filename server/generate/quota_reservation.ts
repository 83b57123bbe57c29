/**
 * The reserve stage: a live key's request holds one unit of its month's
 * quota (a receipt per request hash, so an identical retry is charged
 * once), a test key's one of the test keys' monthly allowance; the quota
 * headers say what the request leaves. With a render worker idle, the
 * render starts while the quota is reserved, so the two overlap instead of
 * adding up; the document is answered only after a successful reservation.
 * Under load (no idle worker) renders wait for the reservation, and so do
 * accounts just found over their limit, so calling past the limit does not
 * cost a render each time.
 *
 * @module
 */
import {
  ApiError,
  type Invoice,
  type InvoiceFormat,
  PLANS,
  type Principal,
  type RenderedDocument,
  type ResponseSink,
  TEST_DOCUMENTS_PER_MONTH,
} from "../../contract/mod.ts";
import * as store from "../../db/mod.ts";
import { day_of, month_of, next_month_start } from "../services/calendar.ts";
import { type HintOptions, more_invoices_hint } from "../services/hints.ts";
import type {
  Authenticated,
  GenerateRequest,
  Reservation,
  Reserved,
} from "./pipeline.ts";
import type { SettleBatches } from "./settle_batches.ts";
import {
  legacy_request_hash,
  request_hash as live_request_hash,
} from "./request_hash.ts";

// After a reservation finds an account's month used up, its requests wait
// for the reservation before rendering for this long.
const NO_EARLY_RENDER_AFTER_EXHAUSTED_MS = 60_000;
// Bound on that memory (accounts whose month was found used up); past it,
// it is forgotten (only costs early renders).
const RECENTLY_EXHAUSTED_LIMIT = 10_000;

/** What the reserve stage needs. */
export interface QuotaOptions {
  now: () => Date;
  hint_options: HintOptions;
  /** How long a reservation holds its unit unless delivered. */
  reservation_ttl_ms: number;
  /** True when a render started now would not wait (a render worker is idle). */
  render_early?: () => boolean;
  /** Where delivered documents are settled. */
  settle_batches: SettleBatches;
}

/** Sets the quota headers of an answer; returns the reset day they name. */
export function set_quota_headers(
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

/** The reserve stage (see the module). */
export class QuotaReservations {
  // `account_id:month` → until when (clock ms) not to render early.
  readonly #recently_exhausted = new Map<string, number>();

  constructor(
    private readonly database: store.Database,
    private readonly options: QuotaOptions,
  ) {}

  /**
   * Whether a render may start before the quota answers: a worker is idle,
   * and the account's month was not just found used up.
   */
  may_render_early(account_id: string, at: Date): boolean {
    return (this.options.render_early?.() ?? false) &&
      (this.#recently_exhausted.get(`${account_id}:${month_of(at)}`) ?? 0) <
        at.getTime();
  }

  /** The hashes a live request is reserved under. */
  hashes_of(invoice: Invoice, format: InvoiceFormat) {
    return {
      request_hash: live_request_hash(invoice, format),
      legacy_hash: legacy_request_hash(invoice, format),
    };
  }

  /** Reserves for the key's mode; `start_render` begins the render early. */
  reserve(
    request: GenerateRequest,
    key: Authenticated,
    start_render: () => Promise<RenderedDocument>,
  ): Promise<Reservation> {
    return key.principal.key_mode === "test"
      ? this.#reserve_test(request, key)
      : this.#reserve_live(request, key, start_render);
  }

  async #reserve_live(
    request: GenerateRequest,
    key: Authenticated,
    start_render: () => Promise<RenderedDocument>,
  ): Promise<Reservation> {
    const { at, response } = request;
    const { principal } = key;
    let early = key.early;
    let reserved: Reserved | undefined = key.reserved;
    if (!reserved) {
      early = this.may_render_early(principal.account.id, at)
        ? start_render()
        : undefined;
      early?.catch(() => {}); // awaited by the render stage, or dropped
      const hashes = this.hashes_of(request.invoice, request.format);
      reserved = {
        ...await store.reserve_generation(this.database, {
          ...this.#charge_of(principal, at, hashes.request_hash),
          legacy_hash: hashes.legacy_hash,
          limit: PLANS[principal.account.plan].monthly_invoices,
          now: at,
          ttl_ms: this.options.reservation_ttl_ms,
        }),
        request_hash: hashes.request_hash,
      };
    }
    const charge = this.#charge_of(principal, at, reserved.request_hash);
    const status = reserved.status;
    // The headers count this request as charged when it will be once
    // delivered.
    const charged_too = status === "reserved" || status === "pending";
    const reset = set_quota_headers(response, principal, {
      at,
      used: reserved.used + (charged_too ? 1 : 0),
    });
    const exhausted_key = `${principal.account.id}:${month_of(at)}`;
    if (status === "exhausted") {
      this.#remember_exhausted(exhausted_key, at);
      const plan = PLANS[principal.account.plan];
      throw new ApiError(
        "quota_exceeded",
        `The ${plan.name} plan's limit of ${plan.monthly_invoices} invoices this month is used up; ` +
          `it resets on ${reset} (UTC). ` +
          more_invoices_hint(principal.account.plan, this.options.hint_options),
      );
    }
    // A copy of a charged request, or of one in flight (charged once,
    // whichever copy is delivered first).
    if (status === "replay" || status === "pending") {
      response.headers.set("Idempotent-Replayed", "true");
    }
    if (status === "reserved") this.#recently_exhausted.delete(exhausted_key);
    // A reservation of its own is given back when undelivered; a pending
    // one belongs to the same request in flight, a replay holds nothing.
    const release = () =>
      status === "reserved"
        ? store.release_generation(this.database, charge).then(() => {})
        : Promise.resolve();
    return {
      early,
      release,
      settlement: status === "replay" ? { delivered: [], undelivered: [] } : {
        delivered: [() => this.options.settle_batches.settle(charge)],
        undelivered: [release],
      },
    };
  }

  // Never charged, but at most TEST_DOCUMENTS_PER_MONTH a month, reserved
  // atomically as the live quota.
  async #reserve_test(
    request: GenerateRequest,
    key: Authenticated,
  ): Promise<Reservation> {
    const { at, response } = request;
    const reservation = {
      account_id: key.principal.account.id,
      month: month_of(at),
      key_id: key.principal.key_id,
    };
    const counts = await store.reserve_test_generation(this.database, {
      ...reservation,
      limit: TEST_DOCUMENTS_PER_MONTH,
    });
    const reset = set_quota_headers(response, key.principal, {
      at,
      used: counts.used,
    });
    if (counts.status === "exhausted") {
      throw new ApiError(
        "test_limit_reached",
        `Test keys make at most ${TEST_DOCUMENTS_PER_MONTH} documents a month (all formats together) ` +
          `and this account's are used up; they reset on ${reset} (UTC). Live keys are not affected.`,
      );
    }
    const release = () =>
      store.release_test_generation(this.database, reservation);
    return {
      early: key.early,
      release,
      settlement: { delivered: [], undelivered: [release] },
    };
  }

  #charge_of(principal: Principal, at: Date, request_hash: string) {
    return {
      account_id: principal.account.id,
      month: month_of(at),
      day: day_of(at),
      request_hash,
      key_id: principal.key_id,
    };
  }

  #remember_exhausted(exhausted_key: string, at: Date): void {
    if (this.#recently_exhausted.size >= RECENTLY_EXHAUSTED_LIMIT) {
      this.#recently_exhausted.clear();
    }
    this.#recently_exhausted.set(
      exhausted_key,
      at.getTime() + NO_EARLY_RENDER_AFTER_EXHAUSTED_MS,
    );
  }
}
