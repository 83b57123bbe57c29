/**
 * A local stand-in for the few Stripe API endpoints the service calls, so
 * billing is tested with the real `stripe` package and no network. It keeps
 * subscriptions in memory, records every call with its decoded form
 * parameters, and serves a fake hosted Checkout page that sends the browser
 * back to the session's `success_url`.
 */
import Stripe from "stripe";

/** One recorded API call. */
export interface StripeCall {
  method: string;
  path: string;
  /** Form parameters as Stripe encodes them, e.g. `line_items[0][price]`. */
  params: Record<string, string>;
}

/** A subscription as the stand-in keeps it. */
export interface StandInSubscription {
  id: string;
  customer: string;
  status: string;
  price: string;
  current_period_start: number;
  current_period_end: number;
  cancel_at_period_end: boolean;
  schedule: string | null;
  metadata: Record<string, string>;
}

/** The running stand-in. */
export interface StripeStandIn {
  /** Origin to give the service as `STRIPE_API_URL`. */
  url: string;
  calls: StripeCall[];
  subscriptions: Map<string, StandInSubscription>;
  /** A subscription object as Stripe's API returns it. */
  subscription_json(id: string): Record<string, unknown>;
  /** Calls of one method and path (path with ids, e.g. `/v1/checkout/sessions`). */
  calls_to(method: string, path: string): StripeCall[];
  close(): Promise<void>;
}

/** The webhook signing secret tests sign events with. */
export const TEST_WEBHOOK_SECRET = "whsec_test_secret_for_the_stand_in";

/** Environment that turns billing on against a stand-in at `url`. */
export function stripe_env(url: string): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: "sk_test_stand_in",
    STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    STRIPE_PRICE_STARTER: "price_starter",
    STRIPE_PRICE_PRO: "price_pro",
    STRIPE_PRICE_TEAM: "price_team",
    STRIPE_API_URL: url,
  };
}

const signer = new Stripe("sk_test_signer", {
  httpClient: Stripe.createFetchHttpClient(),
});

/**
 * A signed webhook delivery: the body and its `Stripe-Signature` header, made
 * with `stripe.webhooks.generateTestHeaderStringAsync` (the async form, as
 * Deno's Web Crypto signs asynchronously).
 */
export async function sign_event(
  event: { id: string; type: string; object: Record<string, unknown> },
  options: { secret?: string; timestamp?: number } = {},
): Promise<{ body: string; signature: string }> {
  const body = JSON.stringify({
    id: event.id,
    object: "event",
    type: event.type,
    api_version: "2026-10-28.endive",
    created: options.timestamp ?? Math.floor(Date.now() / 1000),
    data: { object: event.object },
  });
  const signature = await signer.webhooks.generateTestHeaderStringAsync({
    payload: body,
    secret: options.secret ?? TEST_WEBHOOK_SECRET,
    timestamp: options.timestamp,
  });
  return { body, signature };
}

function form_params(text: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(text));
}

/** Starts the stand-in on a free loopback port. */
export function start_stripe_stand_in(): Promise<StripeStandIn> {
  const calls: StripeCall[] = [];
  const subscriptions = new Map<string, StandInSubscription>();
  const checkout_sessions = new Map<string, Record<string, string>>();
  let counter = 0;
  let origin = "";

  function subscription_json(id: string): Record<string, unknown> {
    const subscription = subscriptions.get(id);
    if (!subscription) throw new Error(`no subscription ${id}`);
    return {
      id: subscription.id,
      object: "subscription",
      customer: subscription.customer,
      status: subscription.status,
      cancel_at_period_end: subscription.cancel_at_period_end,
      schedule: subscription.schedule,
      metadata: subscription.metadata,
      items: {
        object: "list",
        data: [{
          id: `si_${subscription.id}`,
          object: "subscription_item",
          price: { id: subscription.price, object: "price" },
          quantity: 1,
          current_period_start: subscription.current_period_start,
          current_period_end: subscription.current_period_end,
        }],
      },
    };
  }

  function not_found(path: string): Response {
    return Response.json({
      error: { type: "invalid_request_error", message: `No such ${path}` },
    }, { status: 404 });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    const params = {
      ...Object.fromEntries(url.searchParams),
      ...(request.method === "POST" || request.method === "DELETE"
        ? form_params(await request.text())
        : {}),
    };
    calls.push({ method: request.method, path, params });
    let match: RegExpExecArray | null;
    if (
      request.method === "GET" && (match = /^\/checkout\/(\w+)$/.exec(path))
    ) {
      // The "hosted Checkout page": paying sends the customer back.
      const session = checkout_sessions.get(match[1]);
      if (!session) return not_found(path);
      return new Response(null, {
        status: 303,
        headers: {
          Location: session.success_url.replace(
            "{CHECKOUT_SESSION_ID}",
            match[1],
          ),
        },
      });
    }
    if (request.method === "POST" && path === "/v1/checkout/sessions") {
      const id = `cs_test_${++counter}`;
      checkout_sessions.set(id, params);
      return Response.json({
        id,
        object: "checkout.session",
        mode: params.mode,
        url: `${origin}/checkout/${id}`,
      });
    }
    if ((match = /^\/v1\/subscriptions\/(\w+)$/.exec(path))) {
      const subscription = subscriptions.get(match[1]);
      if (!subscription) return not_found(path);
      if (request.method === "DELETE") {
        // Canceling ends the subscription at once, as Stripe's cancel does.
        subscription.status = "canceled";
      }
      if (request.method === "POST") {
        if (params["items[0][price]"]) {
          subscription.price = params["items[0][price]"];
        }
        if (params.cancel_at_period_end !== undefined) {
          subscription.cancel_at_period_end =
            params.cancel_at_period_end === "true";
        }
      }
      return Response.json(subscription_json(subscription.id));
    }
    if (request.method === "POST" && path === "/v1/subscription_schedules") {
      const subscription = subscriptions.get(params.from_subscription);
      if (!subscription) return not_found(path);
      const id = `sub_sched_${++counter}`;
      subscription.schedule = id;
      return Response.json({
        id,
        object: "subscription_schedule",
        subscription: subscription.id,
        phases: [{
          start_date: subscription.current_period_start,
          end_date: subscription.current_period_end,
          items: [{ price: subscription.price, quantity: 1 }],
        }],
      });
    }
    if (
      request.method === "POST" &&
      (match = /^\/v1\/subscription_schedules\/(\w+)(\/release)?$/.exec(path))
    ) {
      if (match[2]) {
        for (const subscription of subscriptions.values()) {
          if (subscription.schedule === match[1]) subscription.schedule = null;
        }
      }
      return Response.json({
        id: match[1],
        object: "subscription_schedule",
        phases: [],
      });
    }
    if (request.method === "POST" && path === "/v1/billing_portal/sessions") {
      return Response.json({
        id: `bps_${++counter}`,
        object: "billing_portal.session",
        url: `${origin}/portal/${params.customer}`,
      });
    }
    return not_found(path);
  }

  const { promise, resolve } = Promise.withResolvers<StripeStandIn>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen(address) {
      origin = `http://127.0.0.1:${address.port}`;
      resolve({
        url: origin,
        calls,
        subscriptions,
        subscription_json,
        calls_to: (method, path) =>
          calls.filter((call) => call.method === method && call.path === path),
        close: () => server.shutdown(),
      });
    },
  }, handle);
  return promise;
}
