/**
 * Asking for an upgrade on a server without Stripe billing, through HTTP
 * (tRPC and REST) and the tRPC caller: the request is recorded, mailed to
 * OPERATOR_EMAIL over a real SMTP server on loopback, listed at
 * `GET /admin/upgrade-requests`, and closed by the operator's PATCH of the
 * plan. Session-only and admin-only faces, bad input and repeats.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import {
  start_test_server,
  TEST_ADMIN_TOKEN,
  type TestServer,
} from "../helpers/test_server.ts";
import { start_smtp_sink } from "../helpers/smtp_sink.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { session_headers, use_invoices } from "../helpers/accounts.ts";
import {
  ApiError,
  create_caller,
  type Principal,
  type ServiceContext,
  UPGRADE_REQUESTS_PER_WINDOW,
} from "../../contract/mod.ts";
import { create_services } from "../../server/services.ts";
import { open_test_database } from "../helpers/test_database.ts";
import { create_account } from "../../db/mod.ts";
import {
  more_invoices_hint,
  reactivate_hint,
} from "../../server/services/hints.ts";
import { account_view } from "../../server/views.ts";

const OPERATOR = "ops@ink.example";
const SUPPORT = "help@ink.example";
const MAIL_FROM = "Ink <no-reply@ink.example>";

async function trpc(
  server: TestServer,
  procedure: string,
  headers: Record<string, string>,
  input?: unknown,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/trpc/${procedure}`, {
    method: input === undefined ? "GET" : "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: input === undefined ? undefined : JSON.stringify(input),
  });
  return { status: response.status, body: await response.json() };
}

Deno.test("upgrade request: 403 points to the form, recorded, operator mailed, listed, PATCH closes it", async (t) => {
  const smtp = await start_smtp_sink();
  const server = await start_test_server({
    env: {
      SMTP_URL: smtp.url,
      MAIL_FROM,
      OPERATOR_EMAIL: OPERATOR,
      SUPPORT_EMAIL: SUPPORT,
      // Rendered on the test's thread: no render timeout on a busy machine.
      RENDER_WORKERS: "0",
    },
  });
  try {
    const { account_id, key } = await server.create_account({
      plan: "starter",
    });
    const account = await (await server.admin(`/admin/accounts/${account_id}`))
      .json();
    const headers = await session_headers(server, account_id);
    await use_invoices(server, account_id, { count: 150, limit: 150 });

    await t.step(
      "the 403 says where and how to ask, and names SUPPORT_EMAIL",
      async () => {
        const refused = await server.generate(key, full_invoice());
        assertEquals(refused.status, 403);
        const { error } = await refused.json();
        assertEquals(error.code, "quota_exceeded");
        assertMatch(error.message, /\/dashboard\/usage#upgrade/);
        assertMatch(error.message, /ask for an upgrade/);
        assertMatch(error.message, /pick Pro or Team/);
        assertMatch(error.message, /help@ink\.example/);
      },
    );

    await t.step(
      "the state before asking: Pro and Team, nothing pending",
      async () => {
        const state = await trpc(server, "upgrade.state", headers);
        assertEquals(state.status, 200);
        assertEquals(state.body.result.data, {
          billing_enabled: false,
          plans_available: ["pro", "team"],
          pending: null,
          latest: null,
          requests_left: UPGRADE_REQUESTS_PER_WINDOW,
          support_email: SUPPORT,
        });
      },
    );

    let request_id = "";
    await t.step(
      "the request is recorded (tRPC answers 200; REST 201)",
      async () => {
        const sent = await trpc(server, "upgrade.request", headers, {
          plan: "team",
          message: "  About 3,000 invoices a month from December.  ",
        });
        assertEquals(sent.status, 200, JSON.stringify(sent.body));
        const request = sent.body.result.data;
        request_id = request.id;
        assertEquals(request.account_id, account_id);
        assertEquals(request.account_email, account.email);
        assertEquals(request.current_plan, "starter");
        assertEquals(request.requested_plan, "team");
        assertEquals(
          request.message,
          "About 3,000 invoices a month from December.",
        );
        assertEquals(request.status, "open");
        assertEquals(request.closed_at, null);
      },
    );

    await t.step(
      "the operator gets a mail that says how to grant it",
      async () => {
        const mail = await smtp.next_for(OPERATOR);
        assertMatch(mail.headers.subject, /Upgrade request/);
        assertMatch(mail.headers.subject, /asks for Team/);
        assertEquals(mail.headers["reply-to"], account.email);
        assertMatch(mail.text, /from Starter to Team/);
        assertMatch(mail.text, /150 of 150 invoices used/);
        assertMatch(mail.text, /About 3,000 invoices a month/);
        assert(
          mail.text.includes(
            `PATCH ${server.url}/admin/accounts/${account_id}`,
          ),
          mail.text,
        );
        assert(mail.text.includes(`set-plan ${account_id} team`));
      },
    );

    await t.step(
      "the Usage state shows it pending; a second ask is a 409",
      async () => {
        const state = (await trpc(server, "upgrade.state", headers)).body.result
          .data;
        assertEquals(state.pending.id, request_id);
        assertEquals(state.latest.id, request_id);
        assertEquals(state.requests_left, UPGRADE_REQUESTS_PER_WINDOW - 1);
        const again = await trpc(server, "upgrade.request", headers, {
          plan: "pro",
        });
        assertEquals(again.status, 409);
        assertEquals(again.body.error.data.code, "conflict");
        assertMatch(again.body.error.message, /still open/);
        // Nothing more was recorded or mailed.
        const listed = await (await server.admin("/admin/upgrade-requests"))
          .json();
        assertEquals(listed.requests.length, 1);
      },
    );

    await t.step(
      "GET /admin/upgrade-requests lists it, filtered by status",
      async () => {
        const all = await server.admin("/admin/upgrade-requests");
        assertEquals(all.status, 200);
        const { requests } = await all.json();
        assertEquals(requests.map((r: { id: string }) => r.id), [request_id]);
        const open = await (await server.admin(
          "/admin/upgrade-requests?status=open",
        )).json();
        assertEquals(open.requests.length, 1);
        const closed = await (await server.admin(
          "/admin/upgrade-requests?status=closed",
        )).json();
        assertEquals(closed.requests, []);
        const bad = await server.admin("/admin/upgrade-requests?status=maybe");
        assertEquals(bad.status, 400);
        assertEquals((await bad.json()).error.code, "invalid_request");
        const bad_limit = await server.admin("/admin/upgrade-requests?limit=0");
        assertEquals(bad_limit.status, 400);
        await bad_limit.body?.cancel();
      },
    );

    await t.step(
      "the operator's PATCH of the plan closes it and raises the limit",
      async () => {
        const patched = await server.admin(`/admin/accounts/${account_id}`, {
          method: "PATCH",
          body: { plan: "team" },
        });
        assertEquals(patched.status, 200);
        assertEquals((await patched.json()).plan, "team");
        const closed = (await (await server.admin(
          "/admin/upgrade-requests?status=closed",
        )).json()).requests;
        assertEquals(closed.length, 1);
        assertEquals(closed[0].id, request_id);
        assertEquals(closed[0].status, "closed");
        assertEquals(closed[0].closed_by, "admin_api");
        assertEquals(closed[0].resulting_plan, "team");
        assert(
          Date.parse(closed[0].closed_at) >= Date.parse(closed[0].created_at),
        );
        const open = (await (await server.admin(
          "/admin/upgrade-requests?status=open",
        )).json()).requests;
        assertEquals(open, []);
        const state = (await trpc(server, "upgrade.state", headers)).body.result
          .data;
        assertEquals(state.pending, null);
        assertEquals(state.latest.status, "closed");
        assertEquals(state.plans_available, []);
        const generated = await server.generate(key, full_invoice());
        assertEquals(generated.status, 200);
        await generated.body?.cancel();
      },
    );

    await t.step(
      "on the largest plan there is nothing to ask for: a 400 naming plan",
      async () => {
        const refused = await trpc(server, "upgrade.request", headers, {
          plan: "team",
        });
        assertEquals(refused.status, 400);
        assertEquals(refused.body.error.data.details[0].path, "plan");
        assertMatch(refused.body.error.message, /largest plan/);
        assertMatch(refused.body.error.message, /help@ink\.example/);
      },
    );
  } finally {
    await server.close();
    await smtp.close();
  }
});

Deno.test("upgrade request over REST; bad input is a 400; repeats are limited", async () => {
  const server = await start_test_server();
  try {
    const { account_id } = await server.create_account({ plan: "starter" });
    const headers = {
      ...await session_headers(server, account_id),
      "Content-Type": "application/json",
    };
    const post = (body: unknown) =>
      fetch(`${server.url}/account/upgrade-requests`, {
        method: "POST",
        headers,
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    for (
      const [body, path] of [
        [{ plan: "gold" }, "plan"],
        [{ plan: "starter" }, "plan"],
        [{ plan: "pro", message: "x".repeat(2001) }, "message"],
        [{ plan: "pro", extra: true }, ""],
        [{}, "plan"],
      ] as const
    ) {
      const response = await post(body);
      assertEquals(response.status, 400, JSON.stringify(body));
      const { error } = await response.json();
      assertEquals(error.code, "invalid_request");
      if (path) {
        assert(
          error.details.some((detail: { path: string }) =>
            detail.path === path
          ),
          JSON.stringify(error),
        );
      }
    }
    const broken = await post("{not json");
    assertEquals(broken.status, 400);
    await broken.body?.cancel();

    // Ask, get closed, ask again … until the 24-hour limit.
    for (let round = 0; round < UPGRADE_REQUESTS_PER_WINDOW; round++) {
      const sent = await post({ plan: "pro" });
      assertEquals(sent.status, 201, `round ${round}`);
      const request = await sent.json();
      assertEquals(request.message, null);
      if (round === 0) {
        // A status-only PATCH is no plan change: the request stays open.
        const status_only = await server.admin(
          `/admin/accounts/${account_id}`,
          { method: "PATCH", body: { subscription_status: "active" } },
        );
        assertEquals(status_only.status, 200);
        await status_only.body?.cancel();
        const open = (await (await server.admin(
          "/admin/upgrade-requests?status=open",
        )).json()).requests;
        assertEquals(open.map((r: { id: string }) => r.id), [request.id]);
      }
      // Declined: the operator keeps the plan, which closes the request.
      const patched = await server.admin(`/admin/accounts/${account_id}`, {
        method: "PATCH",
        body: { plan: "starter" },
      });
      assertEquals(patched.status, 200);
      await patched.body?.cancel();
    }
    const limited = await post({ plan: "pro" });
    assertEquals(limited.status, 429);
    const retry_after = Number(limited.headers.get("retry-after"));
    assert(
      retry_after > 23 * 3600 && retry_after <= 24 * 3600,
      `${retry_after}`,
    );
    assertEquals((await limited.json()).error.code, "rate_limited");
    const closed = (await (await server.admin(
      "/admin/upgrade-requests?status=closed&limit=2",
    )).json()).requests;
    assertEquals(closed.length, 2);
    for (const request of closed) {
      assertEquals(request.resulting_plan, "starter");
      assertEquals(request.closed_by, "admin_api");
    }
    const state = await (await fetch(`${server.url}/account/upgrade`, {
      headers,
    })).json();
    assertEquals(state.requests_left, 0);
    assertEquals(state.support_email, null);
  } finally {
    await server.close();
  }
});

Deno.test("upgrade requests: session only for the customer's faces, admin bearer only for the list", async () => {
  const server = await start_test_server();
  try {
    const { account_id, key } = await server.create_account();
    // No session: 401 on both faces, with an API key or the admin token too.
    for (
      const authorization of [
        undefined,
        `Bearer ${key}`,
        `Bearer ${TEST_ADMIN_TOKEN}`,
      ]
    ) {
      const auth: Record<string, string> = authorization
        ? { Authorization: authorization }
        : {};
      const rest = await fetch(`${server.url}/account/upgrade-requests`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...auth },
        body: JSON.stringify({ plan: "pro" }),
      });
      assertEquals(rest.status, 401, String(authorization));
      await rest.body?.cancel();
      const state = await trpc(server, "upgrade.state", auth);
      assertEquals(state.status, 401);
    }
    // The list: only the admin bearer token.
    const session = await session_headers(server, account_id);
    for (
      const headers of [
        {},
        { Authorization: `Bearer ${key}` },
        { Authorization: "Bearer wrong-token-0123456789" },
        session,
      ]
    ) {
      const response = await fetch(`${server.url}/admin/upgrade-requests`, {
        headers,
      });
      assertEquals(response.status, 401, JSON.stringify(headers));
      assertEquals((await response.json()).error.code, "unauthorized");
    }
    // A write with the session cookie but no CSRF token is refused.
    const { "X-CSRF-Token": _csrf, ...without_csrf } = session;
    const forged = await trpc(server, "upgrade.request", without_csrf, {
      plan: "pro",
    });
    assert(forged.status === 401 || forged.status === 403, `${forged.status}`);
    const listed = await (await server.admin("/admin/upgrade-requests")).json();
    assertEquals(listed.requests, []);
  } finally {
    await server.close();
  }
});

Deno.test("tRPC caller: the dashboard procedure needs a session, the list the admin token; billing on refuses requests", async () => {
  const { database, close } = await open_test_database();
  try {
    const services = create_services(database, {
      render_document: () => Promise.reject(new Error("no renders here")),
      admin_token: TEST_ADMIN_TOKEN,
    });
    const account = account_view(
      await create_account(database, {
        email: "caller@example.com",
        plan: "pro",
      }),
    );
    const context = (
      extra: Partial<ServiceContext>,
    ): ServiceContext => ({
      authorization: null,
      session: null,
      binary_document: false,
      response: { headers: new Headers() },
      services,
      ...extra,
    });
    const anonymous = create_caller(context({}));
    const refused = await anonymous.upgrade.request({ plan: "team" }).then(
      () => undefined,
      (error) => error,
    );
    assertEquals(refused?.cause instanceof ApiError, true);
    assertEquals((refused.cause as ApiError).code, "unauthorized");

    const principal: Principal = { account };
    const customer = create_caller(context({ session: principal }));
    const request = await customer.upgrade.request({ plan: "team" });
    assertEquals(request.requested_plan, "team");
    assertEquals(request.current_plan, "pro");
    const not_admin = await customer.admin.list_upgrade_requests({}).then(
      () => undefined,
      (error) => error,
    );
    assertEquals((not_admin.cause as ApiError).code, "unauthorized");

    const operator = create_caller(
      context({ authorization: `Bearer ${TEST_ADMIN_TOKEN}` }),
    );
    const { requests } = await operator.admin.list_upgrade_requests({
      status: "open",
    });
    assertEquals(requests.map((r) => r.id), [request.id]);
    await operator.admin.update_account({ id: account.id, plan: "team" });
    assertEquals(
      (await operator.admin.list_upgrade_requests({ status: "open" }))
        .requests,
      [],
    );

    // With billing on, plans change on the Usage page: no requests.
    const billed = create_services(database, {
      render_document: () => Promise.reject(new Error("no renders here")),
      billing: {} as never,
    });
    const with_billing = create_caller({
      ...context({ session: principal }),
      services: billed,
    });
    const off = await with_billing.upgrade.request({ plan: "team" }).then(
      () => undefined,
      (error) => error,
    );
    assertEquals((off.cause as ApiError).code, "not_found");
    assertMatch((off.cause as ApiError).message, /takes payments/);
    assertEquals((await with_billing.upgrade.state()).billing_enabled, true);
  } finally {
    await close();
  }
});

Deno.test("quota and inactive messages say how, for every plan and configuration", async () => {
  // Billing on: the plan cards, at once.
  assertMatch(
    more_invoices_hint("starter", { billing: true }),
    /choose Pro or Team on the dashboard's Usage page \(\/dashboard\/usage#upgrade\); an upgrade applies at once/,
  );
  // Billing off: the request form, and SUPPORT_EMAIL when set.
  assertEquals(
    more_invoices_hint("pro", { billing: false }),
    "For a higher limit, ask for an upgrade on the dashboard's Usage page " +
      "(/dashboard/usage#upgrade): pick Team and send the request to the operator",
  );
  assertMatch(
    more_invoices_hint("pro", { billing: false, support_email: SUPPORT }),
    /, or write to help@ink\.example$/,
  );
  // The largest plan: nothing to ask for; the support address if any.
  assertEquals(
    more_invoices_hint("team", { billing: false }),
    "Team is the largest plan",
  );
  assertEquals(
    more_invoices_hint("team", { billing: true, support_email: SUPPORT }),
    "Team is the largest plan; for more, write to help@ink.example",
  );
  assertMatch(reactivate_hint("starter", { billing: true }), /choosing a plan/);
  assertMatch(
    reactivate_hint("starter", { billing: false, support_email: SUPPORT }),
    /write to help@ink\.example/,
  );
  assertMatch(
    reactivate_hint("pro", { billing: false }),
    /upgrade request on the dashboard's Usage page \(\/dashboard\/usage#upgrade\)/,
  );
  assertMatch(
    reactivate_hint("team", { billing: false }),
    /contact the operator/,
  );

  // Through HTTP: an inactive account's 403 says how to reactivate.
  const server = await start_test_server({
    env: { SUPPORT_EMAIL: SUPPORT, RENDER_WORKERS: "0" },
  });
  try {
    const { key } = await server.create_account({
      subscription_status: "inactive",
    });
    const refused = await server.generate(key, full_invoice());
    assertEquals(refused.status, 403);
    const { error } = await refused.json();
    assertEquals(error.code, "subscription_inactive");
    assertMatch(error.message, /to reactivate it, write to help@ink\.example/);
  } finally {
    await server.close();
  }
});

Deno.test("upgrade request withdrawn by the customer: status withdrawn, a new request may follow, only once and only its own", async () => {
  const server = await start_test_server();
  try {
    const { account_id } = await server.create_account({ plan: "starter" });
    const other = await server.create_account({ plan: "starter" });
    const headers = await session_headers(server, account_id);
    const other_headers = await session_headers(server, other.account_id);

    const asked = await trpc(server, "upgrade.request", headers, {
      plan: "pro",
    });
    assertEquals(asked.status, 200);
    const id = asked.body.result.data.id;

    // Another account cannot see or withdraw it.
    const foreign = await fetch(
      `${server.url}/account/upgrade-requests/${id}/withdraw`,
      { method: "POST", headers: other_headers },
    );
    assertEquals(foreign.status, 404);
    assertEquals((await foreign.json()).error.code, "not_found");

    // REST, as the OpenAPI document says.
    const withdrawn = await fetch(
      `${server.url}/account/upgrade-requests/${id}/withdraw`,
      { method: "POST", headers },
    );
    assertEquals(withdrawn.status, 200);
    const request = await withdrawn.json();
    assertEquals(request.id, id);
    assertEquals(request.status, "withdrawn");
    assertEquals(request.closed_by, "customer");
    assertEquals(request.resulting_plan, null);
    assert(request.closed_at !== null);

    const state = await trpc(server, "upgrade.state", headers);
    assertEquals(state.body.result.data.pending, null);
    assertEquals(state.body.result.data.latest.status, "withdrawn");

    const again = await trpc(server, "upgrade.withdraw", headers, { id });
    assertEquals(again.status, 409);
    assertEquals(again.body.error.data.code, "conflict");
    assertMatch(again.body.error.message, /withdrawn already/);

    // Nothing is open any more: a new request goes through.
    const renewed = await trpc(server, "upgrade.request", headers, {
      plan: "team",
    });
    assertEquals(renewed.status, 200);
    assertEquals(renewed.body.result.data.status, "open");

    // The operator's list tells the two apart.
    const listed = await (await server.admin(
      "/admin/upgrade-requests?status=withdrawn",
    )).json();
    assertEquals(listed.requests.map((item: { id: string }) => item.id), [id]);

    // A request the operator closed cannot be withdrawn.
    const patched = await server.admin(`/admin/accounts/${account_id}`, {
      method: "PATCH",
      body: { plan: "team" },
    });
    assertEquals(patched.status, 200);
    await patched.body?.cancel();
    const closed = await trpc(server, "upgrade.withdraw", headers, {
      id: renewed.body.result.data.id,
    });
    assertEquals(closed.status, 409);
    assertMatch(closed.body.error.message, /operator closed/);

    const unknown = await trpc(server, "upgrade.withdraw", headers, {
      id: crypto.randomUUID(),
    });
    assertEquals(unknown.status, 404);
    const bad = await trpc(server, "upgrade.withdraw", headers, { id: "x" });
    assertEquals(bad.status, 400);
  } finally {
    await server.close();
  }
});
