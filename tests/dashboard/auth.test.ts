/**
 * The dashboard's security over plain HTTP (no browser): session cookie
 * flags and server-side storage, CSRF protection, sign-in answers and rate
 * limit, cross-account isolation, sign-up configuration, the pages' CSP and
 * asset caching, and bad input. On PGlite or (TEST_DATABASE_URL) PostgreSQL.
 */
import { createHash } from "node:crypto";
import {
  assert,
  assertEquals,
  assertMatch,
  assertNotEquals,
  assertStringIncludes,
  assertThrows,
} from "../assert.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { ConfigError, load_config } from "../../server/config.ts";
import { schema, set_email_verified } from "../../db/mod.ts";
import { SIGN_IN_LIMIT } from "../../server/dashboard/auth.ts";

const PASSWORD = "correct horse battery staple";
// A fixed clock in the middle of a 15-minute window: rate-limit windows and
// session expiry do not depend on when the test runs.
const START = new Date("2026-03-10T12:05:00Z");

interface Session {
  cookie: string;
  csrf: string;
  account_id: string;
}

interface CallOptions {
  session?: Partial<Session>;
  headers?: Record<string, string>;
  /** Raw body text instead of JSON-encoding `input`. */
  raw?: string;
}

function cookie_headers(options: CallOptions): Record<string, string> {
  return {
    ...(options.session?.cookie ? { Cookie: options.session.cookie } : {}),
    ...(options.session?.csrf ? { "X-CSRF-Token": options.session.csrf } : {}),
    ...options.headers,
  };
}

/** POSTs a tRPC mutation. */
function mutate(
  server: TestServer,
  procedure: string,
  input: unknown,
  options: CallOptions = {},
): Promise<Response> {
  return fetch(`${server.url}/trpc/${procedure}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...cookie_headers(options) },
    body: options.raw ??
      (input === undefined ? undefined : JSON.stringify(input)),
  });
}

/** GETs a tRPC query. */
function query(
  server: TestServer,
  procedure: string,
  options: CallOptions = {},
): Promise<Response> {
  return fetch(`${server.url}/trpc/${procedure}`, {
    headers: cookie_headers(options),
  });
}

/** The `session=` pair of a Set-Cookie header. */
function session_pair(response: Response): string {
  const header = response.headers.get("set-cookie") ?? "";
  const match = /(?:^|,\s*)(session=[^;]*)/.exec(header);
  assert(match, `no session cookie in ${JSON.stringify(header)}`);
  return match[1];
}

/** The session a cookie stands for: its CSRF token and account. */
async function session_of(
  server: TestServer,
  cookie: string,
): Promise<Session> {
  const response = await query(server, "auth.session", {
    session: { cookie },
  });
  assertEquals(response.status, 200);
  const { account, csrf_token } = (await response.json()).result.data;
  assert(account, "not signed in");
  return { cookie, csrf: csrf_token, account_id: account.id };
}

/** Signs up; the answer is the same for any address and starts no session. */
async function sign_up_only(
  server: TestServer,
  email: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const response = await mutate(server, "auth.sign_up", {
    email,
    password: PASSWORD,
  }, { headers });
  assertEquals(response.status, 200, await response.clone().text());
  assertEquals(response.headers.get("set-cookie"), null);
  assertEquals((await response.json()).result.data.signed_up, true);
}

/** Signs up, then signs in with the chosen password (as the page does). */
async function sign_up(
  server: TestServer,
  email: string,
  headers: Record<string, string> = {},
): Promise<Session> {
  await sign_up_only(server, email, headers);
  const response = await mutate(server, "auth.sign_in", {
    email,
    password: PASSWORD,
  }, { headers });
  assertEquals(response.status, 200, await response.clone().text());
  await response.body?.cancel();
  const session = await session_of(server, session_pair(response));
  // The verification mail is tested in tests/dashboard/account_mail.test.ts; here the
  // address counts as confirmed so live keys can be created.
  await set_email_verified(server.test_database.database, session.account_id);
  return session;
}

function unique_email(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

Deno.test("session cookie: flags, stored hashed, Secure over HTTPS, sign-out ends it server-side", async () => {
  // The server's own password cost, as main.ts starts it.
  const server = await start_test_server({
    now: () => START,
    production_scrypt_cost: true,
  });
  try {
    const email = unique_email("cookie");
    // Sign-up starts no session (that would tell a new address from a
    // taken one); signing in with the chosen password does.
    await sign_up_only(server, email);
    const response = await mutate(server, "auth.sign_in", {
      email,
      password: PASSWORD,
    });
    assertEquals(response.status, 200);
    const set_cookie = response.headers.get("set-cookie") ?? "";
    assertMatch(set_cookie, /^session=[A-Za-z0-9_-]{43}; /);
    for (
      const flag of ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=43200"]
    ) {
      assertStringIncludes(set_cookie, flag);
    }
    assert(!/Secure/i.test(set_cookie), "no Secure on plain HTTP");
    const body = await response.json();
    assertEquals(body.result.data.account.email, email);
    assertEquals(body.result.data.account.plan, "starter");
    assertEquals(body.result.data.account.subscription_status, "active");

    const token = session_pair(response).slice("session=".length);
    const database = server.test_database.database;
    const stored = await database.db.select().from(schema.sessions);
    assertEquals(stored.length, 1);
    assertEquals(
      stored[0].id_hash,
      createHash("sha256").update(token).digest("hex"),
    );
    assertNotEquals(stored[0].id_hash, token);
    assertEquals(
      stored[0].expires_at.getTime() - START.getTime(),
      12 * 3600 * 1000,
    );
    const accounts = await database.db.select().from(schema.accounts);
    assertMatch(accounts[0].password_hash ?? "", /^scrypt\$15\$8\$1\$/);
    assert(!accounts[0].password_hash!.includes(PASSWORD));

    // Behind a TLS-terminating proxy the cookie gets Secure, pages get HSTS.
    const over_https = await mutate(server, "auth.sign_in", {
      email,
      password: PASSWORD,
    }, { headers: { "X-Forwarded-Proto": "https" } });
    assertEquals(over_https.status, 200);
    await over_https.body?.cancel();
    assertMatch(over_https.headers.get("set-cookie") ?? "", /; Secure$/);
    const page = await fetch(`${server.url}/signin`, {
      headers: { "X-Forwarded-Proto": "https" },
    });
    await page.body?.cancel();
    assertMatch(
      page.headers.get("strict-transport-security") ?? "",
      /max-age=\d+/,
    );

    const session = await session_of(server, session_pair(response));
    const signed_out = await mutate(server, "auth.sign_out", undefined, {
      session,
    });
    assertEquals(signed_out.status, 200);
    await signed_out.body?.cancel();
    assertMatch(
      signed_out.headers.get("set-cookie") ?? "",
      /^session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax/,
    );
    // The old cookie is dead on the server, whatever the browser keeps.
    const after = await query(server, "auth.session", { session });
    assertEquals((await after.json()).result.data, {
      account: null,
      csrf_token: null,
      email_verified: null,
      mail_delivery: "log",
    });
    const keys = await query(server, "account.list_keys", { session });
    assertEquals(keys.status, 401);
    await keys.body?.cancel();
    const page_after = await fetch(`${server.url}/dashboard/keys`, {
      headers: { Cookie: session.cookie },
      redirect: "manual",
    });
    assertEquals(page_after.status, 303);
    assertEquals(
      page_after.headers.get("location"),
      "/signin?next=%2Fdashboard%2Fkeys",
    );
    // The session signed in over "HTTPS" above is a different one and lives on.
    assertEquals(
      (await database.db.select().from(schema.sessions)).length,
      1,
    );
  } finally {
    await server.close();
  }
});

Deno.test("sessions expire with their TTL", async () => {
  let now = START;
  const server = await start_test_server({
    now: () => now,
    env: { SESSION_TTL_HOURS: "1" },
  });
  try {
    const session = await sign_up(server, unique_email("ttl"));
    now = new Date(START.getTime() + 59 * 60 * 1000);
    const alive = await query(server, "account.list_keys", { session });
    assertEquals(alive.status, 200);
    await alive.body?.cancel();
    now = new Date(START.getTime() + 61 * 60 * 1000);
    const expired = await query(server, "account.list_keys", { session });
    assertEquals(expired.status, 401);
    await expired.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("CSRF: cookie-authenticated writes need the session's token; cross-site writes are refused", async (t) => {
  const server = await start_test_server({ now: () => START });
  try {
    const session = await sign_up(server, unique_email("csrf"));
    const cookie_only = { cookie: session.cookie };

    await t.step(
      "tRPC writes without or with a wrong token are 403",
      async () => {
        for (const csrf of [undefined, "wrong", session.csrf.slice(0, -1)]) {
          const response = await mutate(server, "account.create_key", {
            name: "CSRF",
          }, { session: { cookie: session.cookie, csrf } });
          assertEquals(response.status, 403, String(csrf));
          const body = await response.json();
          assertEquals(body.error.code, "forbidden");
          assertMatch(body.error.message, /X-CSRF-Token/);
        }
        const signed_out = await mutate(server, "auth.sign_out", undefined, {
          session: cookie_only,
        });
        assertEquals(signed_out.status, 403);
        await signed_out.body?.cancel();
        const listed = await query(server, "account.list_keys", { session });
        assertEquals((await listed.json()).result.data.keys, []);
      },
    );

    await t.step("REST writes need the token too", async () => {
      const without = await fetch(`${server.url}/account/keys`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Cookie: session.cookie },
        body: JSON.stringify({ name: "REST" }),
      });
      assertEquals(without.status, 403);
      await without.body?.cancel();
      const with_token = await fetch(`${server.url}/account/keys`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Cookie: session.cookie,
          "X-CSRF-Token": session.csrf,
        },
        body: JSON.stringify({ name: "REST" }),
      });
      assertEquals(with_token.status, 201);
      const key = await with_token.json();
      const revoke = await fetch(
        `${server.url}/account/keys/${key.id}/revoke`,
        {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            Cookie: session.cookie,
          },
          body: "{}",
        },
      );
      assertEquals(revoke.status, 403);
      await revoke.body?.cancel();
    });

    await t.step("reads need no token; the right token works", async () => {
      const listed = await query(server, "account.list_keys", {
        session: cookie_only,
      });
      assertEquals(listed.status, 200);
      await listed.body?.cancel();
      const created = await mutate(server, "account.create_key", {
        name: "With token",
      }, { session });
      assertEquals(created.status, 200);
      await created.body?.cancel();
    });

    await t.step(
      "cross-site writes are refused before anything runs",
      async () => {
        const cases: Record<string, string>[] = [
          { "Sec-Fetch-Site": "cross-site" },
          { "Sec-Fetch-Site": "same-site" },
          { Origin: "https://evil.example" },
          { Origin: "null" },
        ];
        for (const headers of cases) {
          // Login CSRF: signing the victim into the attacker's account.
          const sign_in = await mutate(server, "auth.sign_in", {
            email: "attacker@example.com",
            password: PASSWORD,
          }, { headers });
          assertEquals(sign_in.status, 403, JSON.stringify(headers));
          assertEquals((await sign_in.json()).error.code, "forbidden");
          // Even with the token (e.g. leaked), a cross-site write is refused.
          const create = await mutate(server, "account.create_key", {
            name: "x",
          }, { session, headers });
          assertEquals(create.status, 403, JSON.stringify(headers));
          await create.body?.cancel();
        }
        const same_origin = await mutate(server, "auth.sign_in", {
          email: "nobody@example.com",
          password: PASSWORD,
        }, {
          headers: {
            "Sec-Fetch-Site": "same-origin",
            Origin: server.url,
          },
        });
        assertEquals(same_origin.status, 401);
        await same_origin.body?.cancel();
      },
    );

    await t.step(
      "with an Authorization header the cookie is ignored",
      async () => {
        const response = await mutate(server, "account.create_key", {
          name: "x",
        }, {
          session: cookie_only,
          headers: { Authorization: "Bearer ink_live_not_a_real_key" },
        });
        assertEquals(response.status, 401);
        await response.body?.cancel();
      },
    );
  } finally {
    await server.close();
  }
});

Deno.test("sign-in: one answer for unknown e-mail and wrong password; rate-limited per e-mail", async (t) => {
  let now = START;
  const server = await start_test_server({ now: () => now });
  try {
    const email = unique_email("signin");
    await sign_up_only(server, email);

    await t.step("unknown e-mail and wrong password answer alike", async () => {
      const unknown = await mutate(server, "auth.sign_in", {
        email: unique_email("nobody"),
        password: PASSWORD,
      });
      const wrong = await mutate(server, "auth.sign_in", {
        email,
        password: "not the password",
      });
      assertEquals(unknown.status, 401);
      assertEquals(wrong.status, 401);
      const body = await unknown.json();
      assertEquals(await wrong.json(), body);
      assertEquals(body.error.message, "Wrong e-mail or password");
      assertEquals(unknown.headers.get("set-cookie"), null);
    });

    await t.step("the e-mail is matched in any case", async () => {
      const response = await mutate(server, "auth.sign_in", {
        email: email.toUpperCase(),
        password: PASSWORD,
      });
      assertEquals(response.status, 200);
      await response.body?.cancel();
      assert(response.headers.get("set-cookie")?.startsWith("session="));
    });

    await t.step(
      "the 11th attempt in 15 minutes is 429, even with the right password",
      async () => {
        const target = unique_email("target");
        await sign_up_only(server, target);
        for (let attempt = 1; attempt <= 10; attempt++) {
          const response = await mutate(server, "auth.sign_in", {
            email: target,
            password: `guess number ${attempt}`,
          });
          assertEquals(response.status, 401, `attempt ${attempt}`);
          await response.body?.cancel();
        }
        const limited = await mutate(server, "auth.sign_in", {
          email: target,
          password: PASSWORD,
        });
        assertEquals(limited.status, 429);
        assertEquals((await limited.json()).error.data.code, "rate_limited");
        // A sliding window: the 10 attempts of START (5 minutes into a
        // 15-minute window) make room for one more once they weigh 9, at
        // 12:16:30 (their window over, the next one a tenth gone).
        const retry_after = Number(limited.headers.get("retry-after"));
        assertEquals(retry_after, 690);
        assertEquals(limited.headers.get("set-cookie"), null);

        // Unknown addresses are limited the same way: no enumeration by 429.
        const ghost = unique_email("ghost");
        let last = 0;
        for (let attempt = 1; attempt <= 11; attempt++) {
          const response = await mutate(server, "auth.sign_in", {
            email: ghost,
            password: PASSWORD,
          });
          last = response.status;
          await response.body?.cancel();
        }
        assertEquals(last, 429);

        // Other addresses are unaffected; Retry-After is the true wait.
        const other = await mutate(server, "auth.sign_in", {
          email,
          password: PASSWORD,
        });
        assertEquals(other.status, 200);
        await other.body?.cancel();
        now = new Date(START.getTime() + retry_after * 1000 - 1000);
        const early = await mutate(server, "auth.sign_in", {
          email: target,
          password: PASSWORD,
        });
        assertEquals(early.status, 429);
        await early.body?.cancel();
        now = new Date(START.getTime() + retry_after * 1000);
        const later = await mutate(server, "auth.sign_in", {
          email: target,
          password: PASSWORD,
        });
        assertEquals(later.status, 200);
        await later.body?.cancel();
      },
    );
  } finally {
    await server.close();
  }
});

Deno.test("sign-in: one client address cannot guess across many accounts", async () => {
  let now = START;
  const server = await start_test_server({ now: () => now });
  try {
    const owner = unique_email("owner");
    await sign_up_only(server, owner);
    for (let attempt = 1; attempt <= SIGN_IN_LIMIT.per_address; attempt++) {
      const response = await mutate(server, "auth.sign_in", {
        email: unique_email(`spray${attempt}`),
        password: PASSWORD,
      });
      assertEquals(response.status, 401, `attempt ${attempt}`);
      await response.body?.cancel();
    }
    // Past the per-address limit even a right password on a fresh e-mail waits.
    const limited = await mutate(server, "auth.sign_in", {
      email: owner,
      password: PASSWORD,
    });
    assertEquals(limited.status, 429);
    const body = await limited.json();
    assertEquals(body.error.data.code, "rate_limited");
    assertMatch(body.error.message, /from this address/);
    now = new Date(START.getTime() + SIGN_IN_LIMIT.window_seconds * 1000);
    const later = await mutate(server, "auth.sign_in", {
      email: owner,
      password: PASSWORD,
    });
    assertEquals(later.status, 200);
    await later.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("sign-in: strangers failing from ten addresses do not lock the owner out", async () => {
  const server = await start_test_server({
    now: () => START,
    // The test's requests come through a "proxy" on loopback that names the
    // client in X-Forwarded-For.
    env: { TRUSTED_PROXIES: "127.0.0.1" },
  });
  try {
    const owner = unique_email("owner");
    await sign_up_only(server, owner);
    for (let n = 1; n <= 10; n++) {
      const response = await mutate(server, "auth.sign_in", {
        email: owner,
        password: `stranger's guess ${n}`,
      }, { headers: { "X-Forwarded-For": `203.0.113.${n}` } });
      assertEquals(response.status, 401, `stranger ${n}`);
      await response.body?.cancel();
    }
    const signed_in = await mutate(server, "auth.sign_in", {
      email: owner,
      password: PASSWORD,
    }, { headers: { "X-Forwarded-For": "198.51.100.7" } });
    assertEquals(signed_in.status, 200, await signed_in.clone().text());
    assertEquals(
      (await signed_in.json()).result.data.account.email,
      owner,
    );
    assert(signed_in.headers.get("set-cookie")?.startsWith("session="));

    // Each stranger's address still gets its own 10 guesses, no more.
    for (let n = 1; n < SIGN_IN_LIMIT.per_email_and_address; n++) {
      const response = await mutate(server, "auth.sign_in", {
        email: owner,
        password: `another guess ${n}`,
      }, { headers: { "X-Forwarded-For": "203.0.113.1" } });
      assertEquals(response.status, 401);
      await response.body?.cancel();
    }
    const refused = await mutate(server, "auth.sign_in", {
      email: owner,
      password: PASSWORD,
    }, { headers: { "X-Forwarded-For": "203.0.113.1" } });
    assertEquals(refused.status, 429);
    assert(Number(refused.headers.get("retry-after")) > 0);
    await refused.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("sign-in: many addresses together get at most the per-e-mail ceiling of guesses", async () => {
  const server = await start_test_server({
    now: () => START,
    env: { TRUSTED_PROXIES: "127.0.0.1" },
  });
  try {
    const owner = unique_email("owner");
    await sign_up_only(server, owner);
    const { per_email, per_email_and_address } = SIGN_IN_LIMIT;
    for (let n = 0; n < per_email; n++) {
      const address = `203.0.113.${Math.floor(n / per_email_and_address)}`;
      const response = await mutate(server, "auth.sign_in", {
        email: owner,
        password: `guess ${n}`,
      }, { headers: { "X-Forwarded-For": address } });
      assertEquals(response.status, 401, `guess ${n} from ${address}`);
      await response.body?.cancel();
    }
    const refused = await mutate(server, "auth.sign_in", {
      email: owner,
      password: PASSWORD,
    }, { headers: { "X-Forwarded-For": "198.51.100.7" } });
    assertEquals(refused.status, 429);
    assertMatch((await refused.json()).error.message, /for this e-mail/);
  } finally {
    await server.close();
  }
});

Deno.test("one account never sees or revokes another account's keys over HTTP", async () => {
  const server = await start_test_server({ now: () => START });
  try {
    const alice = await sign_up(server, unique_email("alice"));
    const bob = await sign_up(server, unique_email("bob"));
    const create = async (session: Session, name: string) => {
      const response = await mutate(server, "account.create_key", { name }, {
        session,
      });
      assertEquals(response.status, 200);
      return (await response.json()).result.data;
    };
    const alice_key = await create(alice, "Alice prod");
    const bob_key = await create(bob, "Bob prod");

    const listed = await query(server, "account.list_keys", {
      session: alice,
    });
    const alice_keys = (await listed.json()).result.data.keys;
    assertEquals(alice_keys.map((key: { id: string }) => key.id), [
      alice_key.id,
    ]);
    const rest_list = await fetch(`${server.url}/account/keys`, {
      headers: { Cookie: alice.cookie },
    });
    const rest_text = await rest_list.text();
    assert(!rest_text.includes(bob_key.id), "Bob's key listed to Alice");

    // Alice tries to revoke Bob's key through both faces: it reads as missing.
    const trpc_revoke = await mutate(server, "account.revoke_key", {
      id: bob_key.id,
    }, { session: alice });
    assertEquals(trpc_revoke.status, 404);
    assertEquals((await trpc_revoke.json()).error.data.code, "not_found");
    const rest_revoke = await fetch(
      `${server.url}/account/keys/${bob_key.id}/revoke`,
      {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Cookie: alice.cookie,
          "X-CSRF-Token": alice.csrf,
        },
        body: "{}",
      },
    );
    assertEquals(rest_revoke.status, 404);
    await rest_revoke.body?.cancel();
    // Bob's CSRF token with Alice's cookie does not help either.
    const mixed = await mutate(server, "account.revoke_key", {
      id: bob_key.id,
    }, { session: { cookie: alice.cookie, csrf: bob.csrf } });
    assertEquals(mixed.status, 403);
    await mixed.body?.cancel();

    const still = await server.generate(bob_key.key, full_invoice());
    assertEquals(still.status, 200);
    await still.body?.cancel();
    const bob_keys = await query(server, "account.list_keys", {
      session: bob,
    });
    assertEquals(
      (await bob_keys.json()).result.data.keys[0].status,
      "active",
    );
    // Usage is per account: Bob's generation is not Alice's.
    const alice_usage = await query(server, "account.usage", {
      session: alice,
    });
    assertEquals((await alice_usage.json()).result.data.used, 0);
  } finally {
    await server.close();
  }
});

Deno.test("sign-up follows configuration: closed, or opened on another plan", async (t) => {
  await t.step("SIGNUP_ENABLED=false closes sign-up", async () => {
    const server = await start_test_server({
      env: { SIGNUP_ENABLED: "false" },
    });
    try {
      const response = await mutate(server, "auth.sign_up", {
        email: unique_email("closed"),
        password: PASSWORD,
      });
      assertEquals(response.status, 403);
      const body = await response.json();
      assertEquals(body.error.data.code, "forbidden");
      assertMatch(body.error.message, /Sign-up is closed/);
      assertEquals(response.headers.get("set-cookie"), null);
      const page = await (await fetch(`${server.url}/signup`)).text();
      assertStringIncludes(page, "Sign-up is closed");
      assert(!page.includes("data-auth-form"), "no sign-up form");
      const signin = await (await fetch(`${server.url}/signin`)).text();
      assert(!signin.includes('href="/signup"'), "no link to sign-up");
      // Accounts the operator creates can still be used with their keys.
      const { key } = await server.create_account();
      const generated = await server.generate(key, full_invoice());
      assertEquals(generated.status, 200);
      await generated.body?.cancel();
    } finally {
      await server.close();
    }
  });

  await t.step(
    "SIGNUP_PLAN, SIGNUP_SUBSCRIPTION_STATUS and COOKIE_SECURE",
    async () => {
      const server = await start_test_server({
        env: {
          SIGNUP_PLAN: "pro",
          SIGNUP_SUBSCRIPTION_STATUS: "inactive",
          COOKIE_SECURE: "always",
        },
      });
      try {
        const email = unique_email("pro");
        await sign_up_only(server, email);
        const response = await mutate(server, "auth.sign_in", {
          email,
          password: PASSWORD,
        });
        assertEquals(response.status, 200);
        assertMatch(response.headers.get("set-cookie") ?? "", /; Secure$/);
        const { account } = (await response.json()).result.data;
        assertEquals(account.plan, "pro");
        assertEquals(account.subscription_status, "inactive");
        const page = await (await fetch(`${server.url}/signup`)).text();
        assertStringIncludes(page, "Start on the Pro plan: 1,000 invoices");
        // The same address again (any case): the same answer as a new one,
        // and still one account (tests/dashboard/account_mail.test.ts covers the owner's
        // notice).
        await sign_up_only(server, email.toUpperCase());
        const accounts = await server.test_database.database.db.select()
          .from(schema.accounts);
        assertEquals(
          accounts.filter((row) => row.email === email.toLowerCase()).length,
          1,
        );
      } finally {
        await server.close();
      }
    },
  );
});

Deno.test("dashboard configuration: defaults and validation", () => {
  const config = load_config({});
  assertEquals(config.signup_enabled, true);
  assertEquals(config.signup_plan, "starter");
  assertEquals(config.signup_subscription_status, "active");
  assertEquals(config.session_ttl_hours, 12);
  assertEquals(config.cookie_secure, "auto");
  assertEquals(config.support_email, undefined);
  const parsed = load_config({
    SIGNUP_ENABLED: "no",
    SIGNUP_PLAN: "Team",
    SESSION_TTL_HOURS: "48",
    SUPPORT_EMAIL: "billing@ink.example",
  });
  assertEquals(parsed.signup_enabled, false);
  assertEquals(parsed.signup_plan, "team");
  assertEquals(parsed.session_ttl_hours, 48);
  assertEquals(parsed.support_email, "billing@ink.example");
  const cases: [Record<string, string>, RegExp][] = [
    [{ SIGNUP_ENABLED: "maybe" }, /SIGNUP_ENABLED must be true or false/],
    [{ SIGNUP_PLAN: "gold" }, /SIGNUP_PLAN must be one of starter, pro, team/],
    [
      { SIGNUP_SUBSCRIPTION_STATUS: "paused" },
      /SIGNUP_SUBSCRIPTION_STATUS must be one of active, inactive/,
    ],
    [{ SESSION_TTL_HOURS: "0" }, /SESSION_TTL_HOURS must be between 1/],
    [{ COOKIE_SECURE: "never" }, /COOKIE_SECURE must be one of auto, always/],
    [{ SUPPORT_EMAIL: "not an address" }, /SUPPORT_EMAIL must be an e-mail/],
  ];
  for (const [env, message] of cases) {
    const error = assertThrows(() => load_config(env));
    assert(error instanceof ConfigError);
    assertMatch(error.message, message);
  }
});

Deno.test("dashboard pages: strict CSP, no inline code, redirects, assets with types and caching", async (t) => {
  const server = await start_test_server({
    now: () => START,
    env: { SUPPORT_EMAIL: "billing@ink.example" },
  });
  try {
    const session = await sign_up(server, unique_email("pages"));
    const pages = [
      "/signin",
      "/signup",
      "/dashboard/keys",
      "/dashboard/usage",
      "/dashboard/try",
    ];
    const asset_urls = new Set<string>();

    await t.step(
      "every page: CSP without unsafe-inline, security headers, no inline code",
      async () => {
        for (const path of pages) {
          const signed_in = path.startsWith("/dashboard/");
          const response = await fetch(`${server.url}${path}`, {
            headers: signed_in ? { Cookie: session.cookie } : {},
          });
          assertEquals(response.status, 200, path);
          assertEquals(
            response.headers.get("content-type"),
            "text/html; charset=utf-8",
          );
          const csp = response.headers.get("content-security-policy") ?? "";
          assertMatch(csp, /script-src 'self'(;|$)/);
          assertMatch(csp, /style-src 'self'(;|$)/);
          assertMatch(csp, /default-src 'none'/);
          assertMatch(csp, /frame-ancestors 'none'/);
          assert(!csp.includes("unsafe"), `${path}: ${csp}`);
          assertEquals(response.headers.get("x-frame-options"), "DENY");
          assertEquals(
            response.headers.get("x-content-type-options"),
            "nosniff",
          );
          assertEquals(response.headers.get("referrer-policy"), "no-referrer");
          assertEquals(response.headers.get("cache-control"), "no-store");
          const html = await response.text();
          assert(
            !/<script(?![^>]*\ssrc=)[^>]*>/i.test(html),
            `${path}: inline script`,
          );
          assert(!/<style/i.test(html), `${path}: <style>`);
          assert(!/\sstyle=/i.test(html), `${path}: style attribute`);
          assert(!/\son[a-z]+=/i.test(html), `${path}: inline handler`);
          assert(!/\{\{/.test(html), `${path}: unfilled template`);
          assert(
            !/(?:src|href|action)="(?:https?:)?\/\//.test(html),
            `${path}: remote resource`,
          );
          for (
            const match of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)
          ) {
            assert(/\?v=[A-Za-z0-9_-]{16}$/.test(match[1]), match[1]);
            asset_urls.add(match[1]);
          }
        }
        const usage = await (await fetch(`${server.url}/dashboard/usage`, {
          headers: { Cookie: session.cookie },
        })).text();
        assertStringIncludes(usage, 'href="mailto:billing@ink.example');
      },
    );

    await t.step(
      "assets: content types, immutable when versioned, ETag otherwise",
      async () => {
        const types = new Map<string, string>();
        const queue = [...asset_urls];
        const seen = new Set<string>();
        while (queue.length > 0) {
          const url = queue.pop()!;
          if (seen.has(url)) continue;
          seen.add(url);
          const response = await fetch(`${server.url}${url}`);
          assertEquals(response.status, 200, url);
          assertEquals(
            response.headers.get("cache-control"),
            "public, max-age=31536000, immutable",
          );
          const type = response.headers.get("content-type") ?? "";
          types.set(url.replace(/\?.*/, ""), type);
          if (/css|javascript/.test(type)) {
            // Follow references between assets (fonts, imported modules).
            const text = await response.text();
            for (
              const match of text.matchAll(/\/assets\/[^"')\s]+\?v=[\w-]+/g)
            ) {
              queue.push(match[0]);
            }
          } else {
            await response.body?.cancel();
          }
        }
        assertEquals(types.get("/assets/app.css"), "text/css; charset=utf-8");
        assertEquals(
          types.get("/assets/js/api.js"),
          "text/javascript; charset=utf-8",
        );
        assertEquals(
          types.get("/assets/fonts/inter-latin.woff2"),
          "font/woff2",
        );
        assertEquals(types.get("/assets/logo.svg"), "image/svg+xml");

        const plain = await fetch(`${server.url}/assets/app.css`);
        assertEquals(plain.headers.get("cache-control"), "no-cache");
        const etag = plain.headers.get("etag");
        assert(etag);
        await plain.body?.cancel();
        const revalidated = await fetch(`${server.url}/assets/app.css`, {
          headers: { "If-None-Match": etag },
        });
        assertEquals(revalidated.status, 304);
        await revalidated.body?.cancel();
        const missing = await fetch(`${server.url}/assets/nope.js`);
        assertEquals(missing.status, 404);
        assertEquals((await missing.json()).error.code, "not_found");
        const traversal = await fetch(`${server.url}/assets/../deno.json`);
        assertNotEquals(traversal.status, 200);
        await traversal.body?.cancel();
      },
    );

    await t.step("redirects follow the session", async () => {
      const go = async (path: string, cookie?: string) => {
        const response = await fetch(`${server.url}${path}`, {
          headers: cookie ? { Cookie: cookie } : {},
          redirect: "manual",
        });
        await response.body?.cancel();
        return [response.status, response.headers.get("location")];
      };
      assertEquals(await go("/"), [303, "/signin"]);
      assertEquals(await go("/", session.cookie), [303, "/dashboard/keys"]);
      assertEquals(await go("/signin", session.cookie), [
        303,
        "/dashboard/keys",
      ]);
      assertEquals(await go("/dashboard/try"), [
        303,
        "/signin?next=%2Fdashboard%2Ftry",
      ]);
      const post = await fetch(`${server.url}/signin`, { method: "POST" });
      assertEquals(post.status, 405);
      assertEquals(post.headers.get("allow"), "GET, HEAD");
      await post.body?.cancel();
    });
  } finally {
    await server.close();
  }
});

Deno.test("bad input to the dashboard's procedures and cookies never gives a 500", async () => {
  const server = await start_test_server({ now: () => START });
  try {
    const bodies: [string, string][] = [
      ["auth.sign_in", "{not json"],
      ["auth.sign_in", "[]"],
      ["auth.sign_in", '"text"'],
      ["auth.sign_in", JSON.stringify({ email: "a@example.com" })],
      ["auth.sign_in", JSON.stringify({ email: 5, password: [] })],
      [
        "auth.sign_in",
        JSON.stringify({ email: "a@example.com", password: "x".repeat(300) }),
      ],
      [
        "auth.sign_in",
        JSON.stringify({ email: "a@example.com", password: "p", extra: 1 }),
      ],
      ["auth.sign_up", JSON.stringify({ email: "nope", password: PASSWORD })],
      [
        "auth.sign_up",
        JSON.stringify({ email: "a@example.com", password: "short" }),
      ],
    ];
    for (const [procedure, raw] of bodies) {
      const response = await mutate(server, procedure, undefined, { raw });
      assertEquals(response.status, 400, `${procedure} ${raw.slice(0, 40)}`);
      const body = await response.json();
      // Malformed JSON is refused by the one body reader (our error shape)
      // before tRPC parses anything; input errors come in tRPC's envelope.
      assertEquals(
        body.error.data?.code ?? body.error.code,
        "invalid_request",
      );
      assert(!JSON.stringify(body).includes(PASSWORD), "password echoed");
    }
    const short = await mutate(server, "auth.sign_up", {
      email: "a@example.com",
      password: "short",
    });
    assertEquals((await short.json()).error.data.details, [{
      path: "password",
      message: "must be at least 10 characters",
    }]);

    const cookies = [
      "session=",
      "session=x",
      `session=${"A".repeat(5000)}`,
      "session=%00%ff;;;=",
      `session=${"A".repeat(43)}`,
      "session=a; session=b",
    ];
    for (const cookie of cookies) {
      const state = await query(server, "auth.session", {
        session: { cookie },
      });
      assertEquals(state.status, 200, cookie.slice(0, 40));
      assertEquals((await state.json()).result.data.account, null);
      const write = await mutate(server, "account.create_key", { name: "x" }, {
        session: { cookie, csrf: "y".repeat(10_000) },
      });
      assertEquals(write.status, 401, cookie.slice(0, 40));
      await write.body?.cancel();
      const page = await fetch(`${server.url}/dashboard/keys`, {
        headers: { Cookie: cookie },
        redirect: "manual",
      });
      assertEquals(page.status, 303);
      await page.body?.cancel();
    }
  } finally {
    await server.close();
  }
});
