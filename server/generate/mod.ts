/**
 * Generation as the contract's services see it: API keys checked, `POST
 * /generate` run through the pipeline (`pipeline.ts`), and the dashboard's
 * free previews.
 *
 * @module
 */
import {
  ApiError,
  type ApiKeyRequest,
  type Services,
} from "../../contract/mod.ts";
import * as store from "../../db/mod.ts";
import { enforce_rate_limit } from "../rate_limit.ts";
import type { ServiceContext } from "../services/context.ts";
import { reactivate_hint } from "../services/hints.ts";
import { with_database } from "../with_database.ts";
import {
  check_document_cost,
  create_guarded_render,
} from "./guarded_render.ts";
import { bearer_key, KeyCheck } from "./key_check.ts";
import { generate_document } from "./pipeline.ts";
import { QuotaReservations } from "./quota_reservation.ts";
import { SettleBatches } from "./settle_batches.ts";
import { create_stages } from "./stages.ts";

export {
  document_file_name,
  RENDER_SECONDS_PER_MINUTE,
  TIMEOUTS_PER_HOUR,
} from "./guarded_render.ts";
export { IDEMPOTENCY_KEY_TTL_MS } from "./idempotency_claim.ts";

/** Free previews (dashboard "Try it") an account may render a minute. */
export const PREVIEWS_PER_MINUTE = 30;
/** Free previews an account may render a day (UTC). */
export const PREVIEWS_PER_DAY = 50;

/** The generation services. */
export type GenerationServices = Pick<
  Services,
  | "authenticate_api_key"
  | "begin_generate_key_check"
  | "generate_invoice"
  | "preview_invoice"
>;

/** Creates the generation services over the service context. */
export function create_generation_services(
  context: ServiceContext,
): GenerationServices {
  const { database, options, now, hint_options } = context;
  const reservation_ttl_ms = options.reservation_ttl_ms ??
    store.DEFAULT_RESERVATION_TTL_MS;
  const keys = new KeyCheck(database, {
    now,
    hint_options,
    rate_limit_per_minute: options.rate_limit_per_minute,
  });
  const render = create_guarded_render({
    render_document: options.render_document,
    now,
    render_seconds_per_minute: options.render_seconds_per_minute,
    on_render: options.on_render,
  });
  const stages = create_stages({
    database,
    keys,
    quota: new QuotaReservations(database, {
      now,
      hint_options,
      reservation_ttl_ms,
      render_early: options.render_early,
      settle_batches: new SettleBatches(
        database,
        context.settlements,
        options.settle_window_ms,
      ),
    }),
    render,
    reservation_ttl_ms,
    settlements: context.settlements,
  });

  return {
    authenticate_api_key(authorization, response) {
      return with_database(() =>
        keys.authenticate(bearer_key(authorization), response)
      );
    },

    // A warm key is left to the pipeline's authenticate stage, which
    // checks it together with the reservation; any other is checked now.
    begin_generate_key_check(authorization, response) {
      return with_database(async (): Promise<ApiKeyRequest> => {
        const bearer = bearer_key(authorization);
        if (keys.warm(bearer)) return { authorization, checked: false };
        const principal = await keys.authenticate(bearer, response);
        return { authorization, checked: true, principal };
      });
    },

    generate_invoice(api_key, invoice, response, generate_options = {}) {
      return with_database(() =>
        generate_document(stages, {
          api_key,
          invoice,
          format: generate_options.format ?? "pdf",
          idempotency_key: generate_options.idempotency_key,
          response,
          at: now(),
        })
      );
    },

    preview_invoice(principal, invoice, preview_options = {}) {
      return with_database(async () => {
        // Previews are free, so they are marked on every page, refused to
        // inactive subscriptions, and limited per minute and per day.
        const account = await context.require_account(principal.account.id);
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
