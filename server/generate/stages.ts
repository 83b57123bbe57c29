/**
 * The generate pipeline's stages over the database (`pipeline.ts` says
 * what each does). The speed paths live here, behind the stage
 * interfaces: a warm key is checked by the reservation's statement (one
 * round trip), and a render may start while that statement, or the
 * reservation's own, runs.
 *
 * @module
 */
import {
  type KeyMode,
  PLANS,
  type RenderedDocument,
} from "../../contract/mod.ts";
import * as store from "../../db/mod.ts";
import type { RenderOptions } from "../render_options.ts";
import { day_of, month_of } from "../services/calendar.ts";
import { delivery_of } from "./delivery.ts";
import type { GuardedRender } from "./guarded_render.ts";
import { claim_idempotency } from "./idempotency_claim.ts";
import { bearer_key, type BearerKey, type KeyCheck } from "./key_check.ts";
import type {
  Authenticated,
  GenerateRequest,
  GenerateStages,
} from "./pipeline.ts";
import type { PendingSettlements } from "./pending_settlements.ts";
import { QuotaReservations, set_quota_headers } from "./quota_reservation.ts";

/** Monthly invoices of each plan, as the reservation's statement takes them. */
const MONTHLY_INVOICES = Object.fromEntries(
  Object.entries(PLANS).map((
    [plan, limits],
  ) => [plan, limits.monthly_invoices]),
) as Record<keyof typeof PLANS, number>;

/** How a key's invoice is rendered: marked as test for a test key. */
export function render_options_of(
  account_id: string,
  mode: KeyMode,
  format: RenderOptions["format"],
): RenderOptions {
  return { format, account_id, ...(mode === "test" ? { test: true } : {}) };
}

/** A checked key's principal with how its documents render. */
function authenticated(
  principal: Authenticated["principal"],
  format: RenderOptions["format"],
): Authenticated {
  const mode = principal.key_mode ?? "live";
  return {
    principal,
    render_options: render_options_of(principal.account.id, mode, format),
  };
}

/** What the stages are built from. */
export interface StageParts {
  database: store.Database;
  keys: KeyCheck;
  quota: QuotaReservations;
  render: GuardedRender;
  reservation_ttl_ms: number;
  /** The settlements in flight that usage reads wait for. */
  settlements: PendingSettlements;
}

/** The stages over the database. */
export function create_stages(parts: StageParts): GenerateStages {
  const { database, keys, quota, render } = parts;

  // A warm key without an Idempotency-Key: checked by the reservation's
  // statement. A render starts first when a worker is idle, unless the
  // rate limit was about to refuse or the month was found used up; it is
  // dropped if the key no longer checks out as the same account and mode.
  async function authenticate_and_reserve(
    request: GenerateRequest,
    bearer: BearerKey,
  ): Promise<Authenticated> {
    const { at, invoice, format } = request;
    const warm = keys.warm(bearer);
    const early = warm && warm.rate_remaining > 0 &&
        quota.may_render_early(warm.account_id, at)
      ? render(invoice, render_options_of(warm.account_id, warm.mode, format))
      : undefined;
    early?.catch(() => {}); // awaited by the render stage, or dropped
    if (warm) await parts.settlements.settled(warm.account_id);
    const hashes = quota.hashes_of(invoice, format);
    const result = await store.authenticate_and_reserve(database, {
      ...keys.input(bearer.key, at),
      month: month_of(at),
      day: day_of(at),
      ...hashes,
      monthly_limits: MONTHLY_INVOICES,
      ttl_ms: parts.reservation_ttl_ms,
    });
    const principal = keys.principal_of(result.auth, request.response, {
      at,
      bearer,
    });
    const same = warm?.account_id === principal.account.id &&
      warm.mode === (principal.key_mode ?? "live");
    return {
      ...authenticated(principal, format),
      reserved: result.reservation &&
        { ...result.reservation, request_hash: hashes.request_hash },
      early: same ? early : undefined,
    };
  }

  return {
    async authenticate(request) {
      const { api_key, at, format } = request;
      // A request sees what the account's earlier answers settle: their
      // settlements still in flight are waited for before its statements.
      if (api_key.principal) {
        await parts.settlements.settled(api_key.principal.account.id);
        return authenticated(api_key.principal, format);
      }
      const bearer = bearer_key(api_key.authorization);
      api_key.checked = true;
      if (request.idempotency_key === undefined) {
        return await authenticate_and_reserve(request, bearer);
      }
      // The Idempotency-Key is claimed between key and quota.
      const principal = await keys.authenticate(bearer, request.response, at);
      await parts.settlements.settled(principal.account.id);
      return authenticated(principal, format);
    },

    claim_idempotency(request, key) {
      return claim_idempotency(database, request, key, {
        reservation_ttl_ms: parts.reservation_ttl_ms,
      });
    },

    async replay(request, key) {
      const { at, response } = request;
      const used = await store.get_usage(database, key.principal.account.id, {
        month: month_of(at),
      });
      set_quota_headers(response, key.principal, { at, used });
      response.headers.set("Idempotent-Replayed", "true");
      return await render(request.invoice, key.render_options);
    },

    reserve(request, key) {
      return quota.reserve(
        request,
        key,
        (): Promise<RenderedDocument> =>
          render(request.invoice, key.render_options),
      );
    },

    render,

    settle(key, tasks) {
      return parts.settlements.tracked(
        key.principal.account.id,
        delivery_of(tasks),
      );
    },
  };
}
