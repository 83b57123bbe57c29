/**
 * Examples for every operation of the OpenAPI document: one request (where
 * there is a body) and one answer per documented status. Kept next to the
 * generator and checked against the contract's zod schemas by
 * tests/contract/openapi.test.ts, so they cannot drift from what the API does.
 *
 * @module
 */
import { TEST_DOCUMENTS_PER_MONTH } from "../contract/mod.ts";
import { EXAMPLE_INVOICE } from "./example_invoice.ts";

const ACCOUNT_ID = "3f6c1a52-8b0e-4c7d-9a51-2f4e8d7b6c10";
const KEY_ID = "b1d2e3f4-5a6b-4c7d-8e9f-0a1b2c3d4e5f";

const USAGE = {
  month: "2026-11",
  used: 42,
  limit: 1000,
  remaining: 958,
  resets_at: "2026-12-01T00:00:00.000Z",
  daily: [{ day: "2026-11-22", count: 17 }, { day: "2026-11-23", count: 25 }],
  test_calls: 12,
  test_limit: TEST_DOCUMENTS_PER_MONTH,
};

const API_KEY = {
  id: KEY_ID,
  name: "Production server",
  prefix: "ink_live_Xk3fQ9vB",
  status: "active",
  mode: "live",
  created_at: "2026-11-01T09:30:00.000Z",
  last_used_at: "2026-11-23T08:12:44.000Z",
  revoked_at: null,
};

const REVOKED_KEY = {
  ...API_KEY,
  status: "revoked",
  revoked_at: "2026-11-23T09:00:00.000Z",
};

const UNVERIFIED = {
  error: {
    code: "forbidden",
    message:
      "Confirm your e-mail address before creating a live API key: open the link in the mail we sent when you signed up",
    details: [],
  },
};

const CREATED_KEY = {
  id: KEY_ID,
  name: "Production server",
  prefix: "ink_live_Xk3fQ9vB",
  mode: "live",
  key: "ink_live_Xk3fQ9vB2mN7pL4sT8wY1zA6cE0gH5jK3nR9uV2xZ7bD",
  created_at: "2026-11-23T09:00:00.000Z",
};

const BILLING = {
  enabled: true,
  has_subscription: true,
  stripe_customer_id: "cus_QxExample123",
  stripe_subscription_id: "sub_1QxExample456",
  stripe_status: "active",
  stripe_price_id: "price_1QxPro789",
  current_period_end: "2026-12-01T00:00:00.000Z",
  cancel_at_period_end: false,
  pending_plan: null,
  operator_override: false,
};

const ACCOUNT = {
  id: ACCOUNT_ID,
  email: "ada@example.com",
  name: "Ada Lovelace",
  plan: "pro",
  subscription_status: "active",
  created_at: "2026-11-01T09:00:00.000Z",
};

const UPGRADE_REQUEST = {
  id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
  account_id: ACCOUNT_ID,
  account_email: "ada@example.com",
  current_plan: "starter",
  requested_plan: "pro",
  message: "We send about 600 invoices a month from December.",
  status: "open",
  created_at: "2026-11-23T09:00:00.000Z",
  closed_at: null,
  closed_by: null,
  resulting_plan: null,
};

const CLOSED_UPGRADE_REQUEST = {
  ...UPGRADE_REQUEST,
  id: "1b4e28ba-2fa1-41d2-883f-0016d3cca427",
  requested_plan: "team",
  message: null,
  status: "closed",
  created_at: "2026-10-02T14:10:00.000Z",
  closed_at: "2026-10-02T16:45:00.000Z",
  closed_by: "admin_api",
  resulting_plan: "team",
};

/** Examples of one operation: request body and answer per status. */
export interface OperationExamples {
  request?: unknown;
  responses: Record<string, unknown>;
}

/** Examples by `"<method> <path>"`; error statuses come from {@link ERROR_EXAMPLES}. */
export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  "post /generate": {
    request: EXAMPLE_INVOICE,
    responses: {
      "200":
        "%PDF-1.3\n%ºß¬à\n3 0 obj\n<</Type /Page … (binary PDF, about 15 KB for this invoice) … %%EOF",
    },
  },
  "get /account/usage": {
    responses: {
      "200": {
        ...USAGE,
        by_key: [
          {
            id: KEY_ID,
            name: "Production server",
            prefix: "ink_live_Xk3fQ9vB",
            mode: "live",
            status: "active",
            count: 40,
          },
          {
            id: "c2e3f4a5-6b7c-4d8e-9f0a-1b2c3d4e5f60",
            name: "Old server",
            prefix: "ink_live_p9QzR4tW",
            mode: "live",
            status: "revoked",
            count: 2,
          },
          {
            id: "d3f4a5b6-7c8d-4e9f-8a1b-2c3d4e5f6071",
            name: "CI",
            prefix: "ink_test_Lm2wE8yU",
            mode: "test",
            status: "active",
            count: 12,
          },
        ],
      },
    },
  },
  "get /account/keys": { responses: { "200": { keys: [API_KEY] } } },
  "post /account/keys": {
    request: { name: "Production server" },
    responses: { "201": CREATED_KEY, "403": UNVERIFIED },
  },
  "post /account/keys/{id}/revoke": { responses: { "200": REVOKED_KEY } },
  "get /account/billing": { responses: { "200": BILLING } },
  "post /account/billing/plan": {
    request: { plan: "team" },
    responses: {
      "200": {
        action: "upgraded",
        url: null,
        plan: "team",
        effective_at: "2026-11-23T09:00:00.000Z",
      },
    },
  },
  "post /account/billing/portal": {
    responses: {
      "200": { url: "https://billing.stripe.com/p/session/test_YWNjdF8x" },
    },
  },
  "get /account/upgrade": {
    responses: {
      "200": {
        billing_enabled: false,
        plans_available: ["team"],
        pending: null,
        latest: {
          ...UPGRADE_REQUEST,
          status: "closed",
          closed_at: "2026-11-23T10:30:00.000Z",
          closed_by: "admin_cli",
          resulting_plan: "pro",
        },
        requests_left: 2,
        support_email: "support@invoices.example.com",
      },
    },
  },
  "post /account/upgrade-requests": {
    request: {
      plan: "pro",
      message: "We send about 600 invoices a month from December.",
    },
    responses: {
      "201": UPGRADE_REQUEST,
      "400": error_body(
        "invalid_request",
        "Invalid request: plan: must be a plan above Pro: team",
        [{ path: "plan", message: "must be a plan above Pro: team" }],
      ),
      "404": error_body(
        "not_found",
        "This server takes payments: choose the plan on the dashboard's Usage page " +
          "(/dashboard/usage#upgrade) and it applies at once",
      ),
      "409": error_body(
        "conflict",
        "Your request for Pro of 2026-11-23 is still open; the operator closes it by " +
          "changing your plan, or you withdraw it, and you can send a new one after that",
      ),
      "429": error_body(
        "rate_limited",
        "This account sent 3 upgrade requests in the last 24 hours; you can send another in 5 hour(s)",
      ),
    },
  },
  "post /account/upgrade-requests/{id}/withdraw": {
    responses: {
      "200": {
        ...UPGRADE_REQUEST,
        status: "withdrawn",
        closed_at: "2026-11-23T09:45:00.000Z",
        closed_by: "customer",
      },
      "404": error_body("not_found", "No upgrade request with this id"),
      "409": error_body(
        "conflict",
        "The operator closed this upgrade request already; there is nothing to withdraw",
      ),
    },
  },
  "get /admin/upgrade-requests": {
    responses: {
      "200": { requests: [UPGRADE_REQUEST, CLOSED_UPGRADE_REQUEST] },
    },
  },
  "post /admin/accounts": {
    request: {
      email: "ada@example.com",
      name: "Ada Lovelace",
      plan: "pro",
      subscription_status: "active",
    },
    responses: { "201": ACCOUNT },
  },
  "get /admin/accounts/{id}": {
    responses: { "200": { ...ACCOUNT, usage: USAGE, billing: BILLING } },
  },
  "patch /admin/accounts/{id}": {
    request: { plan: "team" },
    responses: {
      "200": {
        ...ACCOUNT,
        plan: "team",
        usage: { ...USAGE, limit: 10000, remaining: 9958 },
        billing: { ...BILLING, operator_override: true },
      },
    },
  },
  "get /admin/accounts/{id}/keys": {
    responses: { "200": { keys: [API_KEY] } },
  },
  "post /admin/accounts/{id}/keys": {
    request: { name: "Production server" },
    responses: { "201": CREATED_KEY, "403": UNVERIFIED },
  },
  "post /admin/keys/{id}/revoke": { responses: { "200": REVOKED_KEY } },
};

const QUOTA_EXCEEDED =
  "The Starter plan's limit of 150 invoices this month is used up; it resets on 2026-12-01 (UTC). " +
  "For a higher limit, ask for an upgrade on the dashboard's Usage page (/dashboard/usage#upgrade): " +
  "pick Pro or Team and send the request to the operator, or write to support@invoices.example.com";

function error_body(
  code: string,
  message: string,
  details: { path: string; message: string }[] = [],
) {
  return { error: { code, message, details } };
}

/** Several codes share 403 on `/generate`: one named example each. */
export const FORBIDDEN_EXAMPLES: Record<string, unknown> = {
  key_revoked: error_body("key_revoked", "This API key has been revoked"),
  subscription_inactive: error_body(
    "subscription_inactive",
    "The subscription of this account is inactive",
  ),
  quota_exceeded: error_body(
    "quota_exceeded",
    QUOTA_EXCEEDED,
  ),
  test_limit_reached: error_body(
    "test_limit_reached",
    `Test keys make at most ${TEST_DOCUMENTS_PER_MONTH} documents a month (all formats together) ` +
      "and this account's are used up; they reset on 2026-12-01 (UTC). Live keys are not affected.",
  ),
};

/** An error answer per status, as the service sends them. */
export const ERROR_EXAMPLES: Record<string, unknown> = {
  "400": error_body("invalid_request", "Invalid request: items: required", [
    { path: "items", message: "required" },
  ]),
  "401": error_body(
    "unauthorized",
    "Missing Authorization header; send `Authorization: Bearer <API key>`",
  ),
  "403": error_body(
    "quota_exceeded",
    QUOTA_EXCEEDED,
  ),
  "404": error_body("not_found", "No account with this id"),
  "405": error_body("method_not_allowed", "Use POST /generate"),
  "408": error_body(
    "request_timeout",
    "The request body did not arrive within 30 s",
  ),
  "409": error_body(
    "idempotency_in_progress",
    "The first request with this Idempotency-Key is still running; retry in a moment",
  ),
  "415": error_body(
    "unsupported_media_type",
    "Content-Type must be application/json",
  ),
  "422": error_body(
    "idempotency_key_reused",
    "This Idempotency-Key was already used with a different request body; use a new key for a new request",
  ),
  "413": error_body(
    "payload_too_large",
    "The request body is larger than 1048576 bytes",
  ),
  "429": error_body(
    "rate_limited",
    "Rate limit of 60 requests a minute reached; retry after 2 s",
  ),
  "500": error_body("internal", "Internal error; it has been logged"),
  "503": error_body(
    "unavailable",
    "The database is not reachable; retry after 5 s",
  ),
};

/** Where an operation's answers differ from {@link ERROR_EXAMPLES}, by its credentials. */
const CREDENTIAL_ERROR_EXAMPLES: Record<string, Record<string, unknown>> = {
  "/admin/": {
    "401": error_body(
      "unauthorized",
      "Admin endpoints need `Authorization: Bearer <ADMIN_TOKEN>`",
    ),
    "409": error_body(
      "conflict",
      "An account with this e-mail already exists",
    ),
  },
  "/account/": {
    "401": error_body("unauthorized", "Sign in to the dashboard first"),
    "403": error_body(
      "forbidden",
      "Missing or wrong X-CSRF-Token header; reload the page and try again",
    ),
    "404": error_body("not_found", "No API key with this id"),
  },
};

/** The example error answer of `status` on `path`. */
export function error_example(path: string, status: string): unknown {
  for (const [prefix, examples] of Object.entries(CREDENTIAL_ERROR_EXAMPLES)) {
    if (path.startsWith(prefix) && examples[status]) return examples[status];
  }
  if (status === "404" && path.includes("/keys/")) {
    return error_body("not_found", "No API key with this id");
  }
  return ERROR_EXAMPLES[status];
}
