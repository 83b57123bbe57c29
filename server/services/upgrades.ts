/**
 * Upgrade requests: on a server without billing, a customer asks the
 * operator for a larger plan, at most a few times a window; the operator
 * lists them and closes them by changing the plan.
 *
 * @module
 */
import {
  ApiError,
  PLANS,
  plans_above,
  type Services,
  UPGRADE_PAGE_PATH,
  UPGRADE_REQUEST_WINDOW_HOURS,
  UPGRADE_REQUESTS_PER_WINDOW,
} from "../../contract/mod.ts";
import * as store from "../../db/mod.ts";
import { upgrade_request_view } from "../views.ts";
import { day_of } from "./calendar.ts";
import { with_database } from "../with_database.ts";
import {
  bind_services,
  type ServiceContext,
  type ServiceTable,
} from "./context.ts";

function upgrade_window_start(at: Date): Date {
  return new Date(at.getTime() - UPGRADE_REQUEST_WINDOW_HOURS * 3_600_000);
}

function pending_conflict(open: store.UpgradeRequestRecord): ApiError {
  return new ApiError(
    "conflict",
    `Your request for ${PLANS[open.requested_plan].name} of ${
      day_of(open.created_at)
    } is still open; ` +
      "the operator closes it by changing your plan, or you withdraw it, and you can send a new one after that",
  );
}
type UpgradeServiceName =
  | "get_upgrade_state"
  | "request_upgrade"
  | "withdraw_upgrade_request"
  | "list_upgrade_requests";

const upgrade_services: ServiceTable<UpgradeServiceName> = {
  get_upgrade_state(context, account_id: string) {
    const { database, options, now, require_account } = context;
    return with_database(async () => {
      const account = await require_account(account_id);
      const at = now();
      const [pending, latest, recent] = await Promise.all([
        store.get_open_upgrade_request(database, account_id),
        store.get_latest_upgrade_request(database, account_id),
        store.count_upgrade_requests_since(
          database,
          account_id,
          upgrade_window_start(at),
        ),
      ]);
      return {
        billing_enabled: options.billing !== undefined,
        plans_available: plans_above(account.plan),
        pending: pending ? upgrade_request_view(pending) : null,
        latest: latest ? upgrade_request_view(latest) : null,
        requests_left: Math.max(
          0,
          UPGRADE_REQUESTS_PER_WINDOW - recent.count,
        ),
        support_email: options.support_email ?? null,
      };
    });
  },

  request_upgrade(context, principal, input) {
    const { database, options, now, require_account, usage_of } = context;
    return with_database(async () => {
      if (options.billing) {
        throw new ApiError(
          "not_found",
          "This server takes payments: choose the plan on the dashboard's Usage page " +
            `(${UPGRADE_PAGE_PATH}) and it applies at once`,
        );
      }
      const account = await require_account(principal.account.id);
      const above = plans_above(account.plan);
      if (!above.includes(input.plan)) {
        const message = above.length === 0
          ? `${
            PLANS[account.plan].name
          } is the largest plan; there is no plan to ask for` +
            (options.support_email
              ? ` (for more, write to ${options.support_email})`
              : "")
          : `must be a plan above ${PLANS[account.plan].name}: ${
            above.join(" or ")
          }`;
        throw new ApiError(
          "invalid_request",
          `Invalid request: plan: ${message}`,
          { details: [{ path: "plan", message }] },
        );
      }
      const open = await store.get_open_upgrade_request(database, account.id);
      if (open) throw pending_conflict(open);
      const at = now();
      const recent = await store.count_upgrade_requests_since(
        database,
        account.id,
        upgrade_window_start(at),
      );
      if (recent.count >= UPGRADE_REQUESTS_PER_WINDOW) {
        // A place frees up when the oldest recent request ages out.
        const frees_at = (recent.oldest?.getTime() ?? at.getTime()) +
          UPGRADE_REQUEST_WINDOW_HOURS * 3_600_000;
        const wait = Math.max(1, Math.ceil((frees_at - at.getTime()) / 1000));
        throw new ApiError(
          "rate_limited",
          `This account sent ${recent.count} upgrade requests in the last ${UPGRADE_REQUEST_WINDOW_HOURS} hours; ` +
            `you can send another in ${Math.ceil(wait / 3600)} hour(s)` +
            (options.support_email
              ? `, or write to ${options.support_email}`
              : ""),
          { headers: { "Retry-After": String(wait) } },
        );
      }
      const created = await store.create_upgrade_request(database, {
        account_id: account.id,
        current_plan: account.plan,
        requested_plan: input.plan,
        message: input.message || null,
        now: at,
      });
      if (created.status === "pending") {
        throw pending_conflict(created.request);
      }
      const [usage, email_verified] = await Promise.all([
        usage_of(account),
        store.is_email_verified(database, account.id),
      ]);
      options.operator_mail?.upgrade_requested({
        request: created.request,
        usage: { used: usage.used, limit: usage.limit },
        email_verified,
        subscription_status: account.subscription_status,
      });
      return upgrade_request_view(created.request);
    });
  },

  withdraw_upgrade_request(context, principal, request_id) {
    const { database, options, now } = context;
    return with_database(async () => {
      const outcome = await store.withdraw_upgrade_request(database, {
        id: request_id,
        account_id: principal.account.id,
        now: now(),
      });
      if (outcome.status === "not_found") {
        throw new ApiError("not_found", "No upgrade request with this id");
      }
      if (outcome.status === "not_open") {
        throw new ApiError(
          "conflict",
          outcome.request.status === "withdrawn"
            ? "This upgrade request was withdrawn already"
            : "The operator closed this upgrade request already; there is nothing to withdraw",
        );
      }
      options.operator_mail?.upgrade_withdrawn(outcome.request);
      return upgrade_request_view(outcome.request);
    });
  },

  list_upgrade_requests(context, filter) {
    const { database } = context;
    return with_database(async () =>
      (await store.list_upgrade_requests(database, filter)).map(
        upgrade_request_view,
      )
    );
  },
};

/** The upgrade-request services. */
export function create_upgrade_services(
  context: ServiceContext,
): Pick<Services, UpgradeServiceName> {
  return bind_services(context, upgrade_services);
}
