/**
 * What refusals about plans say beyond the refusal: how to get more
 * invoices, or how to reactivate a subscription, never only that one should.
 *
 * @module
 */
import {
  type Plan,
  PLANS,
  plans_above,
  UPGRADE_PAGE_PATH,
} from "../../contract/mod.ts";

/** What the hints depend on: billing on or off, and the support address. */
export interface HintOptions {
  billing: boolean;
  support_email?: string;
}

/**
 * What a 403 `quota_exceeded` says beyond the limit and the reset date: how
 * to get more, never only that one should.
 */
export function more_invoices_hint(
  plan: Plan,
  options: HintOptions,
): string {
  const above = plans_above(plan);
  const write = options.support_email
    ? `write to ${options.support_email}`
    : undefined;
  if (above.length === 0) {
    return write
      ? `${PLANS[plan].name} is the largest plan; for more, ${write}`
      : `${PLANS[plan].name} is the largest plan`;
  }
  const names = above.map((id) => PLANS[id].name).join(" or ");
  if (options.billing) {
    return `For a higher limit, choose ${names} on the dashboard's Usage page ` +
      `(${UPGRADE_PAGE_PATH}); an upgrade applies at once`;
  }
  return `For a higher limit, ask for an upgrade on the dashboard's Usage page ` +
    `(${UPGRADE_PAGE_PATH}): pick ${names} and send the request to the operator` +
    (write ? `, or ${write}` : "");
}

/**
 * How an inactive subscription is reactivated, for the 403
 * `subscription_inactive` messages: never only that one should.
 */
export function reactivate_hint(
  plan: Plan,
  options: HintOptions,
): string {
  if (options.billing) {
    return `reactivate it by choosing a plan on the dashboard's Usage page (${UPGRADE_PAGE_PATH})`;
  }
  if (options.support_email) {
    return `to reactivate it, write to ${options.support_email}`;
  }
  return plans_above(plan).length > 0
    ? "the operator of this service reactivates it: ask with an upgrade request on the dashboard's " +
      `Usage page (${UPGRADE_PAGE_PATH})`
    : "to reactivate it, contact the operator of this service";
}
