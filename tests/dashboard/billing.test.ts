/**
 * Self-service billing through Stripe, with the real `stripe` package against
 * a local stand-in of Stripe's API (no network): webhook signatures,
 * idempotency and ordering, the plan and status each subscription state
 * gives, the exact parameters of Checkout, upgrade, downgrade and portal
 * calls, operator overrides, and billing switched off.
 */
import { assert, assertEquals, assertMatch, assertThrows } from "../assert.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import {
  sign_event,
  start_stripe_stand_in,
  stripe_env,
  type StripeStandIn,
  TEST_WEBHOOK_SECRET,
} from "../helpers/stripe_stand_in.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { session_headers, use_invoices } from "../helpers/accounts.ts";
import { ConfigError, load_config } from "../../server/config.ts";

const PERIOD_START = Math.floor(Date.parse("2026-11-01T00:00:00Z") / 1000);
const PERIOD_END = Math.floor(Date.parse("2026-12-01T00:00:00Z") / 1000);

interface Setup {
  stand_in: StripeStandIn;
  server: TestServer;
  close(): Promise<void>;
}

async function setup(options: { now?: () => Date } = {}): Promise<Setup> {
  const stand_in = await start_stripe_stand_in();
  const server = await start_test_server({
    env: stripe_env(stand_in.url),
    ...options,
  });
  return {
    stand_in,
    server,
    async close() {
      await server.close();
      await stand_in.close();
    },
  };
}

async function call(
  server: TestServer,
  procedure: string,
  headers: Record<string, string>,
  input?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/trpc/${procedure}`, {
    method: input === undefined && procedure === "billing.state"
      ? "GET"
      : "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: input === undefined ? undefined : JSON.stringify(input),
  });
  return { status: response.status, body: await response.json() };
}

async function deliver(
  server: TestServer,
  delivery: { body: string; signature: string | null },
): Promise<Response> {
  return await fetch(`${server.url}/billing/stripe/webhook`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(delivery.signature === null
        ? {}
        : { "Stripe-Signature": delivery.signature }),
    },
    body: delivery.body,
  });
}

/** The admin API's view of an account (parsed JSON). */
async function account_of(
  server: TestServer,
  account_id: string,
  // deno-lint-ignore no-explicit-any
): Promise<Record<string, any>> {
  const response = await server.admin(`/admin/accounts/${account_id}`);
  assertEquals(response.status, 200);
  return await response.json();
}

function add_subscription(
  stand_in: StripeStandIn,
  fields: { id: string; customer: string; price: string; status?: string },
): void {
  stand_in.subscriptions.set(fields.id, {
    id: fields.id,
    customer: fields.customer,
    price: fields.price,
    status: fields.status ?? "active",
    current_period_start: PERIOD_START,
    current_period_end: PERIOD_END,
    cancel_at_period_end: false,
    schedule: null,
    metadata: {},
  });
}

/** Checkout completes for `account_id`: the webhook a real payment sends. */
async function complete_checkout(
  setup: Setup,
  account_id: string,
  ids: { customer: string; subscription: string; price: string },
): Promise<Response> {
  add_subscription(setup.stand_in, {
    id: ids.subscription,
    customer: ids.customer,
    price: ids.price,
  });
  return await deliver(
    setup.server,
    await sign_event({
      id: `evt_checkout_${ids.subscription}`,
      type: "checkout.session.completed",
      object: {
        id: "cs_test_x",
        object: "checkout.session",
        mode: "subscription",
        client_reference_id: account_id,
        customer: ids.customer,
        subscription: ids.subscription,
      },
    }),
  );
}

Deno.test("webhook: a completed Checkout moves the account to the paid plan at once; /generate passes 150", async () => {
  const env = await setup();
  try {
    const { account_id, key } = await env.server.create_account({
      plan: "starter",
    });
    await use_invoices(env.server, account_id, { count: 150, limit: 150 });
    const refused = await env.server.generate(key, full_invoice());
    assertEquals(refused.status, 403);
    await refused.body?.cancel();

    const response = await complete_checkout(env, account_id, {
      customer: "cus_A",
      subscription: "sub_A",
      price: "price_pro",
    });
    assertEquals(response.status, 200);
    assertEquals(await response.json(), { received: true });
    // The current state was read from Stripe, not taken from the event.
    assertEquals(
      env.stand_in.calls_to("GET", "/v1/subscriptions/sub_A").length,
      1,
    );

    const account = await account_of(env.server, account_id);
    assertEquals(account.plan, "pro");
    assertEquals(account.subscription_status, "active");
    assertEquals(account.usage.limit, 1000);
    assertEquals(account.billing.stripe_customer_id, "cus_A");
    assertEquals(account.billing.stripe_subscription_id, "sub_A");
    assertEquals(account.billing.stripe_status, "active");
    assertEquals(
      account.billing.current_period_end,
      "2026-12-01T00:00:00.000Z",
    );

    const allowed = await env.server.generate(key, full_invoice());
    assertEquals(allowed.status, 200);
    assertEquals(allowed.headers.get("x-quota-limit"), "1000");
    await allowed.body?.cancel();
  } finally {
    await env.close();
  }
});

Deno.test("webhook: tampered, wrongly signed, too old, future-dated and unsigned deliveries are refused with 400 and change nothing", async () => {
  const env = await setup();
  try {
    const { account_id } = await env.server.create_account({ plan: "starter" });
    add_subscription(env.stand_in, {
      id: "sub_T",
      customer: "cus_T",
      price: "price_team",
    });
    const event = {
      id: "evt_tamper",
      type: "checkout.session.completed",
      object: {
        object: "checkout.session",
        mode: "subscription",
        client_reference_id: account_id,
        customer: "cus_T",
        subscription: "sub_T",
      },
    };
    const valid = await sign_event(event);
    const cases: [string, { body: string; signature: string | null }][] = [
      ["tampered", {
        body: valid.body.replace("cus_T", "cus_X"),
        signature: valid.signature,
      }],
      ["other secret", await sign_event(event, { secret: "whsec_other" })],
      [
        "too old",
        await sign_event(event, {
          timestamp: Math.floor(Date.now() / 1000) - 600,
        }),
      ],
      [
        "more than 5 minutes ahead",
        await sign_event(event, {
          timestamp: Math.floor(Date.now() / 1000) + 6 * 60,
        }),
      ],
      ["unsigned", { body: valid.body, signature: null }],
    ];
    for (const [label, delivery] of cases) {
      const response = await deliver(env.server, delivery);
      assertEquals(response.status, 400, label);
      const body = await response.json();
      assertEquals(body.error.code, "invalid_request", label);
      assertMatch(body.error.message, /Stripe/, label);
    }
    assertEquals(env.stand_in.calls.length, 0);
    assertEquals((await account_of(env.server, account_id)).plan, "starter");

    // The same event, correctly signed (clock skew of up to 5 minutes
    // ahead allowed), is then handled: nothing was recorded before.
    const skewed = await sign_event(event, {
      timestamp: Math.floor(Date.now() / 1000) + 4 * 60,
    });
    assertEquals((await deliver(env.server, skewed)).status, 200);
    assertEquals((await account_of(env.server, account_id)).plan, "team");
  } finally {
    await env.close();
  }
});

Deno.test("webhook: a redelivered event id is acknowledged without acting again; unknown types are 200 and ignored", async () => {
  const env = await setup();
  try {
    const { account_id } = await env.server.create_account({ plan: "starter" });
    await complete_checkout(env, account_id, {
      customer: "cus_R",
      subscription: "sub_R",
      price: "price_pro",
    });
    const calls = env.stand_in.calls.length;
    const again = await complete_checkout(env, account_id, {
      customer: "cus_R",
      subscription: "sub_R",
      price: "price_pro",
    });
    assertEquals(again.status, 200);
    assertEquals(await again.json(), { received: true, ignored: "duplicate" });
    assertEquals(env.stand_in.calls.length, calls, "no second Stripe read");

    const unknown = await deliver(
      env.server,
      await sign_event({
        id: "evt_unknown",
        type: "customer.tax_id.created",
        object: { object: "tax_id" },
      }),
    );
    assertEquals(unknown.status, 200);
    assertEquals(await unknown.json(), {
      received: true,
      ignored: "unhandled_type",
    });
  } finally {
    await env.close();
  }
});

Deno.test("webhook: order-independent — a late, stale event cannot undo the subscription's current state", async () => {
  const env = await setup();
  try {
    const { account_id } = await env.server.create_account({ plan: "starter" });
    await complete_checkout(env, account_id, {
      customer: "cus_O",
      subscription: "sub_O",
      price: "price_team",
    });
    // An old "updated" event (from when the subscription was on Starter and
    // incomplete) arrives after the newer state: the account stays Team.
    const stale = await deliver(
      env.server,
      await sign_event({
        id: "evt_stale",
        type: "customer.subscription.updated",
        object: {
          id: "sub_O",
          object: "subscription",
          customer: "cus_O",
          status: "incomplete",
          items: { data: [{ price: { id: "price_starter" } }] },
        },
      }),
    );
    assertEquals(stale.status, 200);
    let account = await account_of(env.server, account_id);
    assertEquals(account.plan, "team");
    assertEquals(account.subscription_status, "active");

    // "deleted" arriving before a late "created": the subscription is gone,
    // whatever order the events come in.
    env.stand_in.subscriptions.get("sub_O")!.status = "canceled";
    for (
      const type of [
        "customer.subscription.deleted",
        "customer.subscription.created",
      ]
    ) {
      const response = await deliver(
        env.server,
        await sign_event({
          id: `evt_${type}`,
          type,
          object: { id: "sub_O", object: "subscription", customer: "cus_O" },
        }),
      );
      assertEquals(response.status, 200);
    }
    account = await account_of(env.server, account_id);
    assertEquals(account.subscription_status, "inactive");
    assertEquals(account.billing.stripe_status, "canceled");
  } finally {
    await env.close();
  }
});

Deno.test("webhook: past_due keeps the account active (Stripe's retries), unpaid and canceled make it inactive; a period-end cancellation stays active until Stripe ends it", async () => {
  const env = await setup();
  try {
    const { account_id, key } = await env.server.create_account({
      plan: "starter",
    });
    await complete_checkout(env, account_id, {
      customer: "cus_P",
      subscription: "sub_P",
      price: "price_pro",
    });
    const subscription = env.stand_in.subscriptions.get("sub_P")!;
    const invoice_event = async (id: string, type: string) =>
      await deliver(
        env.server,
        await sign_event({
          id,
          type,
          object: {
            object: "invoice",
            customer: "cus_P",
            parent: {
              type: "subscription_details",
              subscription_details: { subscription: "sub_P" },
            },
          },
        }),
      );
    const expectations: [string, string, boolean, "active" | "inactive"][] = [
      ["past_due", "invoice.payment_failed", false, "active"],
      ["active", "invoice.paid", true, "active"],
      ["active", "customer.subscription.updated", true, "active"],
      ["unpaid", "invoice.payment_failed", false, "inactive"],
      ["active", "invoice.paid", false, "active"],
    ];
    let index = 0;
    for (const [status, type, cancel_at_end, expected] of expectations) {
      subscription.status = status;
      subscription.cancel_at_period_end = cancel_at_end;
      const response = type.startsWith("invoice.")
        ? await invoice_event(`evt_status_${index++}`, type)
        : await deliver(
          env.server,
          await sign_event({
            id: `evt_status_${index++}`,
            type,
            object: { id: "sub_P", object: "subscription", customer: "cus_P" },
          }),
        );
      assertEquals(response.status, 200);
      const account = await account_of(env.server, account_id);
      assertEquals(account.subscription_status, expected, `${status} ${type}`);
      assertEquals(account.billing.stripe_status, status);
      assertEquals(account.billing.cancel_at_period_end, cancel_at_end);
    }
    subscription.status = "unpaid";
    await invoice_event("evt_final", "invoice.payment_failed");
    const refused = await env.server.generate(key, full_invoice());
    assertEquals(refused.status, 403);
    assertEquals((await refused.json()).error.code, "subscription_inactive");
  } finally {
    await env.close();
  }
});

Deno.test("plan change: a new subscription goes through Checkout with the exact price, customer and return URLs", async () => {
  const env = await setup();
  try {
    const { account_id } = await env.server.create_account({ plan: "starter" });
    const headers = await session_headers(env.server, account_id);
    const { status, body } = await call(
      env.server,
      "billing.change_plan",
      headers,
      { plan: "pro" },
    );
    assertEquals(status, 200, JSON.stringify(body));
    const result = (body.result as { data: Record<string, unknown> }).data;
    assertEquals(result.action, "checkout");
    assertMatch(
      String(result.url),
      /^http:\/\/127\.0\.0\.1:\d+\/checkout\/cs_test_\d+$/,
    );
    const [checkout] = env.stand_in.calls_to("POST", "/v1/checkout/sessions");
    const email = (await account_of(env.server, account_id)).email;
    assertEquals(checkout.params, {
      mode: "subscription",
      "line_items[0][price]": "price_pro",
      "line_items[0][quantity]": "1",
      client_reference_id: account_id,
      "metadata[account_id]": account_id,
      "subscription_data[metadata][account_id]": account_id,
      customer_email: email,
      success_url:
        `${env.server.url}/dashboard/usage?billing=success&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${env.server.url}/dashboard/usage?billing=canceled`,
    });
    // Nothing changes before Stripe confirms the payment.
    assertEquals((await account_of(env.server, account_id)).plan, "starter");
  } finally {
    await env.close();
  }
});

Deno.test("plan change: upgrade at once with proration; downgrade scheduled at the period end; portal session for the customer", async () => {
  const env = await setup();
  try {
    const { account_id } = await env.server.create_account({ plan: "starter" });
    await complete_checkout(env, account_id, {
      customer: "cus_U",
      subscription: "sub_U",
      price: "price_pro",
    });
    const headers = await session_headers(env.server, account_id);

    const upgrade = await call(env.server, "billing.change_plan", headers, {
      plan: "team",
    });
    assertEquals(upgrade.status, 200, JSON.stringify(upgrade.body));
    assertEquals(
      (upgrade.body.result as { data: { action: string } }).data.action,
      "upgraded",
    );
    const [update] = env.stand_in.calls_to("POST", "/v1/subscriptions/sub_U");
    assertEquals(update.params, {
      "items[0][id]": "si_sub_U",
      "items[0][price]": "price_team",
      proration_behavior: "always_invoice",
      cancel_at_period_end: "false",
    });
    let account = await account_of(env.server, account_id);
    assertEquals(
      account.plan,
      "team",
      "applied without waiting for the webhook",
    );
    assertEquals(account.usage.limit, 10000);

    const downgrade = await call(env.server, "billing.change_plan", headers, {
      plan: "starter",
    });
    assertEquals(downgrade.status, 200, JSON.stringify(downgrade.body));
    const data = (downgrade.body.result as { data: Record<string, unknown> })
      .data;
    assertEquals(data.action, "downgrade_scheduled");
    assertEquals(data.effective_at, "2026-12-01T00:00:00.000Z");
    const [create] = env.stand_in.calls_to(
      "POST",
      "/v1/subscription_schedules",
    );
    assertEquals(create.params, { from_subscription: "sub_U" });
    const schedule_updates = env.stand_in.calls.filter((c) =>
      /^\/v1\/subscription_schedules\/sub_sched_\d+$/.test(c.path)
    );
    assertEquals(schedule_updates.length, 1);
    assertEquals(schedule_updates[0].params, {
      end_behavior: "release",
      "phases[0][items][0][price]": "price_team",
      "phases[0][items][0][quantity]": "1",
      "phases[0][start_date]": String(PERIOD_START),
      "phases[0][end_date]": String(PERIOD_END),
      "phases[1][items][0][price]": "price_starter",
      "phases[1][items][0][quantity]": "1",
      "phases[1][proration_behavior]": "none",
      "phases[1][duration][interval]": "month",
      "phases[1][duration][interval_count]": "1",
    });
    account = await account_of(env.server, account_id);
    assertEquals(account.plan, "team", "the paid period is kept");
    assertEquals(account.billing.pending_plan, "starter");

    const portal = await call(env.server, "billing.portal", headers);
    assertEquals(portal.status, 200, JSON.stringify(portal.body));
    const [portal_call] = env.stand_in.calls_to(
      "POST",
      "/v1/billing_portal/sessions",
    );
    assertEquals(portal_call.params, {
      customer: "cus_U",
      return_url: `${env.server.url}/dashboard/usage`,
    });
    assertEquals(
      (portal.body.result as { data: { url: string } }).data.url,
      `${env.stand_in.url}/portal/cus_U`,
    );
  } finally {
    await env.close();
  }
});

Deno.test("operator override: a hand-set plan survives Stripe events and is visible; releasing it re-reads Stripe", async () => {
  const env = await setup();
  try {
    const { account_id } = await env.server.create_account({ plan: "starter" });
    await complete_checkout(env, account_id, {
      customer: "cus_V",
      subscription: "sub_V",
      price: "price_pro",
    });
    const patched = await env.server.admin(`/admin/accounts/${account_id}`, {
      method: "PATCH",
      body: { plan: "team" },
    });
    assertEquals(patched.status, 200);
    const body = await patched.json();
    assertEquals(body.plan, "team");
    assertEquals(body.billing.operator_override, true);

    await deliver(
      env.server,
      await sign_event({
        id: "evt_after_override",
        type: "customer.subscription.updated",
        object: { id: "sub_V", object: "subscription", customer: "cus_V" },
      }),
    );
    let account = await account_of(env.server, account_id);
    assertEquals(account.plan, "team", "the override holds");
    assertEquals(account.billing.stripe_price_id, "price_pro");

    const released = await env.server.admin(`/admin/accounts/${account_id}`, {
      method: "PATCH",
      body: { billing_override: false },
    });
    assertEquals(released.status, 200);
    account = await released.json();
    assertEquals(account.plan, "pro");
    assertEquals(account.billing.operator_override, false);
  } finally {
    await env.close();
  }
});

Deno.test("billing off: no webhook endpoint, plan changes point to the operator, the account shows billing disabled", async () => {
  const server = await start_test_server();
  try {
    const { account_id } = await server.create_account({ plan: "starter" });
    const webhook = await deliver(server, {
      body: "{}",
      signature: "t=1,v1=x",
    });
    assertEquals(webhook.status, 404);
    await webhook.body?.cancel();
    const headers = await session_headers(server, account_id);
    const change = await call(server, "billing.change_plan", headers, {
      plan: "pro",
    });
    assertEquals(change.status, 404);
    assertMatch(
      JSON.stringify(change.body),
      /Billing is not set up on this server/,
    );
    const account = await account_of(server, account_id);
    assertEquals(account.billing.enabled, false);
    assertEquals(account.billing.has_subscription, false);
    const page = await fetch(`${server.url}/dashboard/usage`, {
      headers: { Cookie: headers.Cookie },
    });
    const html = await page.text();
    assert(!html.includes("data-choose-plan"), "no plan buttons");
    assert(html.includes("Ask for an upgrade"));
    assert(html.includes("data-upgrade-form"), "the request form instead");
  } finally {
    await server.close();
  }
});

Deno.test("configuration: Stripe billing needs every STRIPE_* value and checks their forms", () => {
  const complete = stripe_env("http://127.0.0.1:9");
  const config = load_config(complete);
  assertEquals(config.stripe?.prices, {
    starter: "price_starter",
    pro: "price_pro",
    team: "price_team",
  });
  assertEquals(config.stripe?.webhook_secret, TEST_WEBHOOK_SECRET);
  assertEquals(load_config({}).stripe, undefined);
  const { STRIPE_PRICE_TEAM: _, ...partial } = complete;
  assertThrows(
    () => load_config(partial),
    ConfigError,
    "missing: STRIPE_PRICE_TEAM",
  );
  assertThrows(
    () => load_config({ ...complete, STRIPE_WEBHOOK_SECRET: "secret" }),
    ConfigError,
  );
  assertThrows(
    () => load_config({ ...complete, STRIPE_PRICE_PRO: "pro" }),
    ConfigError,
  );
});
