/**
 * Accounts, plans and API keys as the API shows them.
 */
import { z } from "zod";

/** Plans and what they include. Upgrading applies at once. */
export const PLANS = {
  starter: {
    name: "Starter",
    monthly_invoices: 150,
    requests_per_minute: 60,
    price_usd: 9,
  },
  pro: {
    name: "Pro",
    monthly_invoices: 1000,
    requests_per_minute: 120,
    price_usd: 19,
  },
  team: {
    name: "Team",
    monthly_invoices: 10000,
    requests_per_minute: 600,
    price_usd: 49,
  },
} as const;

/** Requests a minute an account may make with its test keys, whatever the plan. */
export const TEST_KEY_REQUESTS_PER_MINUTE = 60;

/**
 * Documents an account may make with its test keys in a calendar month
 * (UTC), all formats together, whatever the plan.
 */
export const TEST_DOCUMENTS_PER_MONTH = 1000;

/** A plan identifier. */
export type Plan = keyof typeof PLANS;

/**
 * Plan identifiers, smallest first: the one list of plans. The database
 * keeps its own copy (`db/schema.ts`, which imports nothing of ours), held
 * equal by a test; Stripe price variables, dashboard choices and texts
 * are derived from it.
 */
export const PLAN_IDS = Object.keys(PLANS) as [Plan, ...Plan[]];

const invoices = new Intl.NumberFormat("en-US");

/** Plan identifier schema. */
export const PlanSchema = z.enum(PLAN_IDS).describe(
  `Plan: ${
    PLAN_IDS.map((id, index) =>
      `${id} (${invoices.format(PLANS[id].monthly_invoices)}${
        index === 0 ? " invoices/month" : ""
      })`
    ).join(", ")
  }.`,
);

/** Subscription status schema. */
export const SubscriptionStatusSchema = z.enum(["active", "inactive"]).describe(
  "Only accounts with an active subscription can generate invoices.",
);

/** Subscription status. */
export type SubscriptionStatus = z.infer<typeof SubscriptionStatusSchema>;

const uuid = z.uuid("must be a valid id");

/** An account as the API shows it. */
export const AccountSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  plan: PlanSchema,
  subscription_status: SubscriptionStatusSchema,
  created_at: z.string().describe("ISO 8601 timestamp."),
}).meta({ id: "Account" });

/** An account as the API shows it. */
export type AccountView = z.infer<typeof AccountSchema>;

/** This month's usage of an account. */
export const UsageSchema = z.object({
  month: z.string().describe("Calendar month (UTC), YYYY-MM."),
  used: z.number().int(),
  limit: z.number().int(),
  remaining: z.number().int(),
  resets_at: z.string().describe(
    "First instant of next month, ISO 8601 (UTC).",
  ),
  daily: z.array(z.object({ day: z.string(), count: z.number().int() }))
    .describe("Successful generations per day of this month (counts only)."),
  test_calls: z.number().int().describe(
    "Invoices generated with test keys this month; never counted in `used`.",
  ),
  test_limit: z.number().int().describe(
    "Documents test keys may make a month (all formats together); past it they answer 403 `test_limit_reached`.",
  ),
}).meta({ id: "Usage" });

/** This month's usage of an account. */
export type UsageView = z.infer<typeof UsageSchema>;

/** An account with its usage. */
export const AccountWithUsageSchema = AccountSchema.extend({
  usage: UsageSchema,
})
  .meta({ id: "AccountWithUsage" });

/** An account with its usage. */
export type AccountWithUsage = z.infer<typeof AccountWithUsageSchema>;

/** An account's e-mail address as given at creation or sign-up. */
export const AccountEmailSchema = z.string().trim().max(254).pipe(
  z.email("must be a valid e-mail address"),
);

/** Body of `POST /admin/accounts`. */
export const CreateAccountSchema = z.strictObject({
  email: AccountEmailSchema,
  name: z.string().trim().min(1).max(200).optional(),
  plan: PlanSchema,
  subscription_status: SubscriptionStatusSchema.optional(),
});

/** Body of `PATCH /admin/accounts/{id}`. */
export const UpdateAccountSchema = z.strictObject({
  id: uuid,
  plan: PlanSchema.optional(),
  subscription_status: SubscriptionStatusSchema.optional(),
  billing_override: z.boolean().optional().describe(
    "Accounts billed through Stripe: a plan or status set here is an operator override that Stripe events " +
      "leave alone (set automatically with `plan` or `subscription_status`); `false` hands the account back " +
      "to Stripe, re-reading its subscription.",
  ),
});

/** An account id in the path. */
export const AccountIdSchema = z.strictObject({ id: uuid });

/** A key name: descriptive, required, length-limited. */
export const KeyNameSchema = z.string().trim().min(1, "must not be empty").max(
  100,
  "must be at most 100 characters",
).describe('A descriptive name, e.g. "Production server".');

/** Key mode schema. */
export const KeyModeSchema = z.enum(["live", "test"]).describe(
  "`live` (default): charged against the plan. `test`: every page is marked TEST, never charged, " +
    "a rate limit of its own (60 a minute per account), works while the subscription is inactive.",
);

/** A key mode. */
export type KeyMode = z.infer<typeof KeyModeSchema>;

/** An API key as listed: never the secret. */
export const ApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe(
    "First characters of the key (`ink_live_` or `ink_test_` and 8 more), for recognising it.",
  ),
  status: z.enum(["active", "revoked"]),
  mode: KeyModeSchema,
  created_at: z.string(),
  last_used_at: z.string().nullable().describe(
    "Updated at most once a minute.",
  ),
  revoked_at: z.string().nullable(),
}).meta({ id: "ApiKey" });

/** An API key as listed. */
export type ApiKeyView = z.infer<typeof ApiKeySchema>;

/** One API key's use this month: the key as listed, and its count. */
export const KeyUsageSchema = ApiKeySchema.pick({
  id: true,
  name: true,
  prefix: true,
  mode: true,
  status: true,
}).extend({
  count: z.number().int().describe(
    "Live key: invoices charged this month. Test key: its calls this month (never charged).",
  ),
}).meta({ id: "KeyUsage" });

/** One API key's use this month. */
export type KeyUsageView = z.infer<typeof KeyUsageSchema>;

/** This month's usage of the signed-in account, with its breakdown by key. */
export const AccountUsageSchema = UsageSchema.extend({
  by_key: z.array(KeyUsageSchema).describe(
    "Use per API key this month: every active key (0 when unused) and every revoked key used this month, " +
      "most used first. Identical retries served free are not counted.",
  ),
}).meta({ id: "AccountUsage" });

/** This month's usage of the signed-in account, with its breakdown by key. */
export type AccountUsageView = z.infer<typeof AccountUsageSchema>;

/** A newly created key: the only time the full key is shown. */
export const CreatedApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  mode: KeyModeSchema,
  key: z.string().describe(
    "The full API key (`ink_live_…` or `ink_test_…`). Shown once; store it securely.",
  ),
  created_at: z.string(),
}).meta({ id: "CreatedApiKey" });

/** A newly created key. */
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;

/** Body of creating a key (dashboard). */
export const NewKeySchema = z.strictObject({
  name: KeyNameSchema,
  mode: KeyModeSchema.optional(),
});

/** Body of creating a key for an account (operator). */
export const CreateKeySchema = NewKeySchema.extend({ id: uuid });

/** A key id in the path. */
export const KeyIdSchema = z.strictObject({ id: uuid });
