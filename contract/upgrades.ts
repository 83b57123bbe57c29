/**
 * Asking the operator for a higher plan, on servers that take no payments
 * (no Stripe billing): the request, what the dashboard shows of it, and the
 * operator's list.
 */
import { z } from "zod";
import { type Plan, PLANS, PlanSchema } from "./accounts.ts";

/**
 * Where the dashboard's "ask for an upgrade" form is: the Usage page's
 * `#upgrade` section (with billing on, the plan cards there change the plan).
 * Quota messages and the Try it page link here.
 */
export const UPGRADE_PAGE_PATH = "/dashboard/usage#upgrade";

/** Most characters of the message a customer may add to a request. */
export const UPGRADE_MESSAGE_MAX = 2000;

/** Requests an account may send in {@link UPGRADE_REQUEST_WINDOW_HOURS} hours. */
export const UPGRADE_REQUESTS_PER_WINDOW = 3;

/** The window of {@link UPGRADE_REQUESTS_PER_WINDOW}, in hours. */
export const UPGRADE_REQUEST_WINDOW_HOURS = 24;

/** The plans above `plan`, smallest first: what an account on it may ask for. */
export function plans_above(plan: Plan): Plan[] {
  const order = Object.keys(PLANS) as Plan[];
  return order.slice(order.indexOf(plan) + 1);
}

/** An upgrade request's state. */
export const UpgradeRequestStatusSchema = z.enum([
  "open",
  "closed",
  "withdrawn",
])
  .describe(
    "`open` until the operator changes the account's plan (`PATCH /admin/accounts/{id}` with `plan`), " +
      "which closes it (`closed`), or until the customer withdraws it (`withdrawn`).",
  );

/** An upgrade request's state. */
export type UpgradeRequestStatus = z.infer<typeof UpgradeRequestStatusSchema>;

/** The request to withdraw, in the path. */
export const WithdrawUpgradeSchema = z.strictObject({
  id: z.uuid("must be a valid id"),
});

/** Body of an upgrade request from the dashboard. */
export const RequestUpgradeSchema = z.strictObject({
  plan: PlanSchema.describe(
    "The plan wanted: one above the account's current plan (`pro` or `team`).",
  ),
  message: z.string().trim().max(
    UPGRADE_MESSAGE_MAX,
    `must be at most ${UPGRADE_MESSAGE_MAX} characters`,
  ).optional().describe(
    "Anything the operator should know, e.g. expected volume or billing details.",
  ),
});

/** An upgrade request as the customer and the operator see it. */
export const UpgradeRequestSchema = z.object({
  id: z.string(),
  account_id: z.string(),
  account_email: z.string(),
  current_plan: PlanSchema.describe("The plan the account was on when asking."),
  requested_plan: PlanSchema,
  message: z.string().nullable(),
  status: UpgradeRequestStatusSchema,
  created_at: z.string().describe("ISO 8601 timestamp."),
  closed_at: z.string().nullable(),
  closed_by: z.enum(["admin_api", "admin_cli", "customer"]).nullable()
    .describe(
      "How the request ended: the operator changed the plan (`admin_api`, `admin_cli`), " +
        "or the customer withdrew it (`customer`).",
    ),
  resulting_plan: PlanSchema.nullable().describe(
    "The account's plan after the change that closed the request (the operator may grant another plan); " +
      "null while open and for a withdrawn request.",
  ),
}).meta({ id: "UpgradeRequest" });

/** An upgrade request. */
export type UpgradeRequestView = z.infer<typeof UpgradeRequestSchema>;

/** What the dashboard's Usage page shows about upgrading. */
export const UpgradeStateSchema = z.object({
  billing_enabled: z.boolean().describe(
    "Stripe billing is on: plans change on the Usage page itself, not by request.",
  ),
  plans_available: z.array(PlanSchema).describe(
    "Plans above the current one, that a request may ask for (empty on the largest plan).",
  ),
  pending: UpgradeRequestSchema.nullable().describe(
    "The account's open request, if any: a new one can be sent once it is closed or withdrawn.",
  ),
  latest: UpgradeRequestSchema.nullable().describe(
    "The account's newest request, open or closed.",
  ),
  requests_left: z.number().int().describe(
    `Requests the account may still send in the last ${UPGRADE_REQUEST_WINDOW_HOURS} hours ` +
      `(at most ${UPGRADE_REQUESTS_PER_WINDOW}).`,
  ),
  support_email: z.string().nullable().describe(
    "The operator's support address (`SUPPORT_EMAIL`), if set.",
  ),
}).meta({ id: "UpgradeState" });

/** What the dashboard shows about upgrading. */
export type UpgradeStateView = z.infer<typeof UpgradeStateSchema>;

/** Query of the operator's list. */
export const ListUpgradeRequestsSchema = z.strictObject({
  status: z.enum(["open", "closed", "withdrawn", "all"]).optional().describe(
    "`open` (waiting for the operator), `closed`, `withdrawn` (by the customer), or `all` (default).",
  ),
  limit: z.coerce.number().int().min(1).max(500).optional().describe(
    "At most this many, newest first (default 100).",
  ),
});

/** The operator's list of upgrade requests. */
export const UpgradeRequestListSchema = z.object({
  requests: z.array(UpgradeRequestSchema),
}).meta({ id: "UpgradeRequestList" });
