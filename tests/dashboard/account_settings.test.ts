/**
 * Account settings over HTTP (`auth.change_password`, `auth.change_email`,
 * `auth.delete_account`): the current password is required and its wrong
 * guesses are limited like sign-in, other sessions end on a password change,
 * an address changes only once the link mailed to it is opened (the old one
 * is told; an address in use is not revealed), and a deleted account's rows
 * are gone and its keys answer 401. CSRF and bad input as everywhere in the
 * dashboard, and the same procedures through the server-side caller. On
 * PGlite or (TEST_DATABASE_URL) PostgreSQL.
 */
import { eq, sql } from "drizzle-orm";
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import {
  create_caller,
  type ServiceContext,
  to_api_error,
} from "../../contract/mod.ts";
import { create_services } from "../../server/services.ts";
import {
  start_test_server,
  TEST_SCRYPT_PARAMS,
  type TestServer,
} from "../helpers/test_server.ts";
import { session_state, test_password_hash } from "../helpers/accounts.ts";
import {
  link_in,
  type SmtpSink,
  start_smtp_sink,
} from "../helpers/smtp_sink.ts";
import {
  start_stripe_stand_in,
  stripe_env,
} from "../helpers/stripe_stand_in.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import {
  apply_subscription_state,
  charge_generation,
  create_account,
  create_api_key,
  get_account,
  link_stripe_customer,
  list_deleted_account_usage,
  schema,
} from "../../db/mod.ts";
import { SIGN_IN_LIMIT } from "../../server/dashboard/auth.ts";

const PASSWORD = "correct horse battery staple";
const NEW_PASSWORD = "a brand new passphrase";
const MAIL_FROM = "Ink <no-reply@ink.test>";
// Mid-window: the 15-minute sign-in windows do not roll over during a test.
const START = new Date("2026-03-10T12:05:00Z");

interface Session {
  cookie: string;
  csrf: string;
}

function unique_email(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

/** An account with a dashboard password, made in the database. */
async function password_account(
  server: TestServer,
  email = unique_email("owner"),
): Promise<{ id: string; email: string }> {
  const account = await create_account(server.test_database.database, {
    email,
    plan: "starter",
    password_hash: await test_password_hash(PASSWORD),
  });
  return { id: account.id, email: account.email };
}

async function sign_in(
  server: TestServer,
  email: string,
  password = PASSWORD,
): Promise<Session> {
  const response = await fetch(`${server.url}/trpc/auth.sign_in`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  assertEquals(response.status, 200, await response.clone().text());
  await response.body?.cancel();
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0];
  const state = await session_state(server, cookie);
  assert(state.csrf_token, "signed in");
  return { cookie, csrf: state.csrf_token };
}

async function call(
  server: TestServer,
  procedure: string,
  input: unknown,
  session?: Partial<Session>,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${server.url}/trpc/${procedure}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(session?.cookie ? { Cookie: session.cookie } : {}),
      ...(session?.csrf ? { "X-CSRF-Token": session.csrf } : {}),
    },
    body: JSON.stringify(input),
  });
  return {
    status: response.status,
    body: await response.json(),
    headers: response.headers,
  };
}

/** How many rows of each table name an account. */
async function rows_of(
  server: TestServer,
  account_id: string,
): Promise<Record<string, number>> {
  const { database } = server.test_database;
  return {
    accounts: (await database.db.select().from(schema.accounts)
      .where(eq(schema.accounts.id, account_id))).length,
    api_keys: (await database.db.select().from(schema.api_keys)
      .where(eq(schema.api_keys.account_id, account_id))).length,
    sessions: (await database.db.select().from(schema.sessions)
      .where(eq(schema.sessions.account_id, account_id))).length,
    account_tokens: (await database.db.select().from(schema.account_tokens)
      .where(eq(schema.account_tokens.account_id, account_id))).length,
    usage_monthly: (await database.db.select().from(schema.usage_monthly)
      .where(eq(schema.usage_monthly.account_id, account_id))).length,
    usage_daily: (await database.db.select().from(schema.usage_daily)
      .where(eq(schema.usage_daily.account_id, account_id))).length,
    generation_receipts: (await database.db.select()
      .from(schema.generation_receipts)
      .where(eq(schema.generation_receipts.account_id, account_id))).length,
    idempotency_keys: (await database.db.select()
      .from(schema.idempotency_keys)
      .where(eq(schema.idempotency_keys.account_id, account_id))).length,
  };
}

async function with_server(
  run: (server: TestServer, smtp: SmtpSink) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const smtp = await start_smtp_sink();
  const server = await start_test_server({
    env: { SMTP_URL: smtp.url, MAIL_FROM, ...env },
    now: () => START,
  });
  try {
    await run(server, smtp);
  } finally {
    await server.close();
    await smtp.close();
  }
}

Deno.test("change password: current password required, other sessions end, this one stays", async () => {
  await with_server(async (server) => {
    const owner = await password_account(server);
    const here = await sign_in(server, owner.email);
    const laptop = await sign_in(server, owner.email);
    const phone = await sign_in(server, owner.email);

    const wrong = await call(server, "auth.change_password", {
      current_password: "not the password",
      new_password: NEW_PASSWORD,
    }, here);
    assertEquals(wrong.status, 400);
    assertEquals(wrong.body.error.data.code, "invalid_request");
    assertEquals(wrong.body.error.data.details, [{
      path: "current_password",
      message: "is wrong",
    }]);
    assert(
      (await session_state(server, laptop.cookie)).account,
      "a refused change ends nothing",
    );

    const changed = await call(server, "auth.change_password", {
      current_password: PASSWORD,
      new_password: NEW_PASSWORD,
    }, here);
    assertEquals(changed.status, 200, JSON.stringify(changed.body));
    assertEquals(changed.body.result.data.changed, true);
    assertEquals(changed.body.result.data.other_sessions_ended, 2);
    assertMatch(
      changed.body.result.data.message,
      /This browser stays signed in; 2 other sessions were signed out/,
    );
    assertEquals(changed.headers.get("set-cookie"), null, "cookie kept");
    assertEquals(
      (await session_state(server, here.cookie)).account?.email,
      owner.email,
    );
    assertEquals((await session_state(server, laptop.cookie)).account, null);
    assertEquals((await session_state(server, phone.cookie)).account, null);

    // The old password no longer signs in; the new one does.
    const old = await call(server, "auth.sign_in", {
      email: owner.email,
      password: PASSWORD,
    });
    assertEquals(old.status, 401);
    await sign_in(server, owner.email, NEW_PASSWORD);
  });
});

Deno.test("change password: wrong current passwords are limited like sign-in, with Retry-After", async () => {
  await with_server(async (server) => {
    const owner = await password_account(server);
    const here = await sign_in(server, owner.email); // attempt 1
    let last = { status: 0, body: {}, headers: new Headers() };
    for (
      let attempt = 2;
      attempt <= SIGN_IN_LIMIT.per_email_and_address + 1;
      attempt++
    ) {
      last = await call(server, "auth.change_password", {
        current_password: `guess ${attempt}`,
        new_password: NEW_PASSWORD,
      }, here);
      if (attempt <= SIGN_IN_LIMIT.per_email_and_address) {
        assertEquals(last.status, 400);
      }
    }
    assertEquals(last.status, 429);
    assert(Number(last.headers.get("retry-after")) > 0);
    // The right password is refused too while the window lasts: guessing
    // through a stolen session is as slow as through the sign-in form.
    const right = await call(server, "auth.change_password", {
      current_password: PASSWORD,
      new_password: NEW_PASSWORD,
    }, here);
    assertEquals(right.status, 429);
  });
});

Deno.test("account procedures: session, CSRF and field errors as the dashboard requires", async () => {
  await with_server(async (server) => {
    const owner = await password_account(server);
    const here = await sign_in(server, owner.email);
    const good = {
      "auth.change_password": {
        current_password: PASSWORD,
        new_password: NEW_PASSWORD,
      },
      "auth.change_email": {
        new_email: unique_email("new"),
        current_password: PASSWORD,
      },
      "auth.delete_account": { email: owner.email, password: PASSWORD },
    };
    for (const [procedure, input] of Object.entries(good)) {
      const anonymous = await call(server, procedure, input);
      assertEquals(anonymous.status, 401, procedure);
      const no_csrf = await call(server, procedure, input, {
        cookie: here.cookie,
      });
      assertEquals(no_csrf.status, 403, procedure);
      assertMatch(no_csrf.body.error.message, /X-CSRF-Token/);
    }
    const bad: [string, unknown, string][] = [
      ["auth.change_password", {
        current_password: PASSWORD,
        new_password: "short",
      }, "new_password"],
      [
        "auth.change_password",
        { new_password: NEW_PASSWORD },
        "current_password",
      ],
      ["auth.change_email", {
        new_email: "not-an-address",
        current_password: PASSWORD,
      }, "new_email"],
      ["auth.change_email", {
        new_email: owner.email.toUpperCase(),
        current_password: PASSWORD,
      }, "new_email"],
      ["auth.delete_account", { email: owner.email }, "password"],
      ["auth.delete_account", {
        email: "someone-else@example.com",
        password: PASSWORD,
      }, "email"],
      ["auth.delete_account", {
        email: owner.email,
        password: PASSWORD,
        extra: 1,
      }, "extra"],
    ];
    for (const [procedure, input, field] of bad) {
      const refused = await call(server, procedure, input, here);
      assertEquals(
        refused.status,
        400,
        `${procedure} ${JSON.stringify(input)}`,
      );
      assertEquals(refused.body.error.data.code, "invalid_request");
      const paths = refused.body.error.data.details.map((
        detail: { path: string },
      ) => detail.path);
      assert(paths.includes(field), `${procedure}: ${JSON.stringify(paths)}`);
    }
    // Nothing of that changed the account.
    assertEquals(
      (await session_state(server, here.cookie)).account?.email,
      owner.email,
    );
  });
});

Deno.test("change e-mail: only once the link mailed to the new address is opened; the old address is told", async () => {
  await with_server(async (server, smtp) => {
    const owner = await password_account(server);
    const here = await sign_in(server, owner.email);
    const new_email = unique_email("moved");

    const wrong = await call(server, "auth.change_email", {
      new_email,
      current_password: "not the password",
    }, here);
    assertEquals(wrong.status, 400);
    assertEquals(wrong.body.error.data.details[0].path, "current_password");

    const requested = await call(server, "auth.change_email", {
      new_email,
      current_password: PASSWORD,
    }, here);
    assertEquals(requested.status, 200, JSON.stringify(requested.body));
    assertMatch(requested.body.result.data.message, /confirmation link/);
    const mail = await smtp.next_for(new_email);
    assertMatch(mail.headers.subject, /Confirm your new e-mail address/);
    const link = link_in(mail, "/confirm-email-change");
    assertEquals(link.origin, server.url);

    // Not yet: the account keeps its address and signs in with it.
    assertEquals(
      (await session_state(server, here.cookie)).account?.email,
      owner.email,
    );
    const token = link.searchParams.get("token")!;
    const confirmed = await call(server, "auth.verify_email", { token });
    assertEquals(confirmed.status, 200, JSON.stringify(confirmed.body));
    assertEquals(confirmed.body.result.data, {
      verified: true,
      email: new_email,
    });
    assertEquals(
      (await session_state(server, here.cookie)).account?.email,
      new_email,
      "the session follows the account to its new address",
    );
    const notice = await smtp.next_for(owner.email);
    assertMatch(
      notice.headers.subject,
      /address of your Ink account was changed/,
    );
    assertMatch(notice.text, new RegExp(new_email.replace(".", "\\.")));

    const again = await call(server, "auth.verify_email", { token });
    assertEquals(again.status, 400, "the link works once");
    const old = await call(server, "auth.sign_in", {
      email: owner.email,
      password: PASSWORD,
    });
    assertEquals(old.status, 401, "the old address no longer signs in");
    await sign_in(server, new_email);
  });
});

Deno.test("change e-mail: an address in use is not revealed; its owner is told, nothing changes", async () => {
  await with_server(async (server, smtp) => {
    const owner = await password_account(server);
    const other = await password_account(server, unique_email("taken"));
    const free = unique_email("free");
    const here = await sign_in(server, owner.email);

    const to_taken = await call(server, "auth.change_email", {
      new_email: other.email,
      current_password: PASSWORD,
    }, here);
    const to_free = await call(server, "auth.change_email", {
      new_email: free,
      current_password: PASSWORD,
    }, here);
    assertEquals(to_taken.status, 200);
    assertEquals(to_free.status, 200);
    // The same answer, but for the address it names.
    assertEquals(
      to_taken.body.result.data.message.replace(other.email, "X"),
      to_free.body.result.data.message.replace(free, "X"),
    );
    const warning = await smtp.next_for(other.email);
    assertMatch(warning.headers.subject, /tried to move an Ink account/);
    assert(!/token=/.test(warning.text), "no link that could take it over");
    // The free address got its link; only the latest request's link works.
    const mail = await smtp.next_for(free);
    const token = link_in(mail, "/confirm-email-change").searchParams.get(
      "token",
    )!;
    assertEquals(
      (await session_state(server, here.cookie)).account?.email,
      owner.email,
    );
    const taken_rows = await server.test_database.database.db.select()
      .from(schema.accounts).where(eq(schema.accounts.email, other.email));
    assertEquals(taken_rows.length, 1);
    assertEquals(taken_rows[0].id, other.id);
    const confirmed = await call(server, "auth.verify_email", { token });
    assertEquals(confirmed.status, 200);
    assertEquals(confirmed.body.result.data.email, free);
  });
});

Deno.test("delete account: typed e-mail and password; keys answer 401, sessions end, rows go, counts stay anonymous", async () => {
  await with_server(async (server, smtp) => {
    const { database } = server.test_database;
    const owner = await password_account(server);
    const key = await create_api_key(database, {
      account_id: owner.id,
      name: "Prod",
    });
    const before = await server.generate(key.key, full_invoice(), {
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    assertEquals(before.status, 200);
    // Read whole: delivered, so charged and its Idempotency-Key kept.
    await before.arrayBuffer();
    await charge_generation(database, {
      account_id: owner.id,
      month: "2026-03",
      day: "2026-03-10",
      limit: 150,
      request_hash: "b".repeat(64),
    });
    const here = await sign_in(server, owner.email);
    // A pending address change leaves a token row behind.
    const pending = unique_email("pending");
    const requested = await call(server, "auth.change_email", {
      new_email: pending,
      current_password: PASSWORD,
    }, here);
    assertEquals(requested.status, 200);
    await smtp.next_for(pending);
    const elsewhere = await sign_in(server, owner.email);
    for (
      const [table, rows] of Object.entries(await rows_of(server, owner.id))
    ) {
      assert(rows > 0, `the test needs ${table} rows`);
    }
    const deleted_before = await list_deleted_account_usage(database);
    const month_before = deleted_before.find((row) => row.month === "2026-03");

    const wrong = await call(server, "auth.delete_account", {
      email: owner.email,
      password: "not the password",
    }, here);
    assertEquals(wrong.status, 400);
    assertEquals(wrong.body.error.data.details[0].path, "password");

    const deleted = await call(server, "auth.delete_account", {
      email: owner.email.toUpperCase(),
      password: PASSWORD,
    }, here);
    assertEquals(deleted.status, 200, JSON.stringify(deleted.body));
    assertEquals(deleted.body.result.data.deleted, true);
    assertEquals(deleted.body.result.data.subscription_canceled, false);
    assertMatch(deleted.body.result.data.message, /anonymous month totals/);
    assertMatch(
      deleted.headers.get("set-cookie") ?? "",
      /^session=; .*Max-Age=0/,
    );

    const refused = await server.generate(key.key, full_invoice());
    assertEquals(refused.status, 401);
    assertEquals((await refused.json()).error.code, "unauthorized");
    assertEquals((await session_state(server, here.cookie)).account, null);
    assertEquals((await session_state(server, elsewhere.cookie)).account, null);
    const buckets = await database.db.select().from(schema.rate_limit_windows)
      .where(sql`${schema.rate_limit_windows.bucket} like ${`%${owner.id}%`}
        or ${schema.rate_limit_windows.bucket} like ${`%${owner.email}%`}`);
    assertEquals(buckets, [], "no counters keyed by the account or address");
    const sign_in_again = await call(server, "auth.sign_in", {
      email: owner.email,
      password: PASSWORD,
    });
    assertEquals(sign_in_again.status, 401);

    for (
      const [table, rows] of Object.entries(await rows_of(server, owner.id))
    ) {
      assertEquals(rows, 0, `${table} rows left`);
    }

    // Its two invoices stay in the month's anonymous total.
    const month = (await list_deleted_account_usage(database)).find((row) =>
      row.month === "2026-03"
    );
    assert(month, "month kept");
    assertEquals(month.count - (month_before?.count ?? 0), 2);
    assertEquals(month.accounts - (month_before?.accounts ?? 0), 1);

    const goodbye = await smtp.next_for(owner.email);
    assertMatch(goodbye.headers.subject, /account was deleted/);
  });
});

Deno.test("delete account with a Stripe subscription: canceled at once first; Stripe down deletes nothing", async () => {
  const stand_in = await start_stripe_stand_in();
  try {
    await with_server(async (server) => {
      const { database } = server.test_database;
      const owner = await password_account(server);
      await link_stripe_customer(database, {
        account_id: owner.id,
        stripe_customer_id: "cus_delete1",
      });
      await apply_subscription_state(database, {
        account_id: owner.id,
        stripe_subscription_id: "sub_delete1",
        stripe_status: "active",
        stripe_price_id: "price_starter",
        current_period_end: new Date("2026-04-01T00:00:00Z"),
        cancel_at_period_end: false,
        pending_plan: null,
        plan: "starter",
        subscription_status: "active",
      });
      stand_in.subscriptions.set("sub_delete1", {
        id: "sub_delete1",
        customer: "cus_delete1",
        status: "active",
        price: "price_starter",
        current_period_start: Date.parse("2026-03-01T00:00:00Z") / 1000,
        current_period_end: Date.parse("2026-04-01T00:00:00Z") / 1000,
        cancel_at_period_end: false,
        schedule: null,
        metadata: { account_id: owner.id },
      });
      const here = await sign_in(server, owner.email);

      // Stripe unreachable: 503, and the account is untouched.
      await stand_in.close();
      const down = await call(server, "auth.delete_account", {
        email: owner.email,
        password: PASSWORD,
      }, here);
      assertEquals(down.status, 503);
      assertMatch(down.body.error.message, /payment provider/);
      assertEquals(
        (await session_state(server, here.cookie)).account?.email,
        owner.email,
      );
    }, stripe_env(stand_in.url));
  } finally {
    await stand_in.close().catch(() => {});
  }

  const live = await start_stripe_stand_in();
  try {
    await with_server(async (server) => {
      const { database } = server.test_database;
      const owner = await password_account(server);
      await link_stripe_customer(database, {
        account_id: owner.id,
        stripe_customer_id: "cus_delete2",
      });
      await apply_subscription_state(database, {
        account_id: owner.id,
        stripe_subscription_id: "sub_delete2",
        stripe_status: "active",
        stripe_price_id: "price_starter",
        current_period_end: new Date("2026-04-01T00:00:00Z"),
        cancel_at_period_end: false,
        pending_plan: null,
        plan: "starter",
        subscription_status: "active",
      });
      live.subscriptions.set("sub_delete2", {
        id: "sub_delete2",
        customer: "cus_delete2",
        status: "active",
        price: "price_starter",
        current_period_start: Date.parse("2026-03-01T00:00:00Z") / 1000,
        current_period_end: Date.parse("2026-04-01T00:00:00Z") / 1000,
        cancel_at_period_end: false,
        schedule: null,
        metadata: { account_id: owner.id },
      });
      const here = await sign_in(server, owner.email);
      const deleted = await call(server, "auth.delete_account", {
        email: owner.email,
        password: PASSWORD,
      }, here);
      assertEquals(deleted.status, 200, JSON.stringify(deleted.body));
      assertEquals(deleted.body.result.data.subscription_canceled, true);
      assertMatch(
        deleted.body.result.data.message,
        /nothing more will be charged/,
      );
      assertEquals(
        live.calls_to("DELETE", "/v1/subscriptions/sub_delete2").length,
        1,
      );
      assertEquals(live.subscriptions.get("sub_delete2")?.status, "canceled");
      assertEquals(
        await database.db.select().from(schema.billing_accounts)
          .where(eq(schema.billing_accounts.account_id, owner.id)),
        [],
      );
    }, stripe_env(live.url));
  } finally {
    await live.close();
  }
});

Deno.test("server-side caller: auth.change_password and auth.delete_account through the router", async () => {
  const server = await start_test_server({ now: () => START });
  try {
    const { database } = server.test_database;
    // No mailer: the caller runs the procedures with the services alone.
    const services = create_services(database, {
      render_document: () => Promise.reject(new Error("not rendering here")),
      now: () => START,
      scrypt_params: TEST_SCRYPT_PARAMS,
    });
    const owner = await password_account(server);
    const ended: string[] = [];
    const context = async (): Promise<ServiceContext> => ({
      authorization: null,
      session: { account: await services.get_account(owner.id) },
      session_control: {
        start: () => Promise.resolve(),
        end: () => {
          ended.push("this session");
          return Promise.resolve();
        },
        end_other_sessions: (account_id) => {
          ended.push(`others of ${account_id}`);
          return Promise.resolve(3);
        },
      },
      binary_document: false,
      response: { headers: new Headers() },
      services,
    });
    const caller = create_caller(await context());

    const wrong = await assertRejects(() =>
      caller.auth.change_password({
        current_password: "not the password",
        new_password: NEW_PASSWORD,
      })
    );
    assertEquals(to_api_error(wrong).status, 400);
    assertEquals(to_api_error(wrong).details?.[0].path, "current_password");
    assertEquals(ended, [], "a refused change ends no session");

    const changed = await caller.auth.change_password({
      current_password: PASSWORD,
      new_password: NEW_PASSWORD,
    });
    assertEquals(changed.other_sessions_ended, 3);
    assertEquals(ended, [`others of ${owner.id}`]);

    const no_mail = await assertRejects(() =>
      caller.auth.change_email({
        new_email: unique_email("new"),
        current_password: NEW_PASSWORD,
      })
    );
    assertEquals(to_api_error(no_mail).code, "not_found");

    const deleted = await caller.auth.delete_account({
      email: owner.email,
      password: NEW_PASSWORD,
    });
    assertEquals(deleted.deleted, true);
    assertEquals(ended.at(-1), "this session");
    assertEquals(await get_account(database, owner.id), undefined);
  } finally {
    await server.close();
  }
});
