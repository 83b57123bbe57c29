/**
 * Password reset and address verification over a real SMTP server on
 * loopback: the service's mail is received, its link parsed and followed.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
} from "../assert.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { signed_in_email } from "../helpers/accounts.ts";
import { link_in, start_smtp_sink } from "../helpers/smtp_sink.ts";
import { create_mailer } from "../../server/mail.ts";
import { LOGGED_LINK_MARK } from "../../contract/mod.ts";
import { VERIFICATION_RESEND_LIMIT } from "../../server/services/accounts.ts";
import {
  PASSWORD_RESET_LIMIT,
  SIGN_UP_NOTICE_LIMIT,
} from "../../server/dashboard/account_mail.ts";

const PASSWORD = "correct horse battery staple";
const NEW_PASSWORD = "a brand new passphrase";
const MAIL_FROM = "Ink <no-reply@ink.test>";

function trpc(
  server: TestServer,
  procedure: string,
  input: unknown,
  cookie?: string,
): Promise<Response> {
  return fetch(`${server.url}/trpc/${procedure}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body: JSON.stringify(input),
  });
}

function cookie_of(response: Response): string {
  const set = response.headers.get("set-cookie") ?? "";
  return set.split(";")[0];
}

/**
 * Signs up (the answer carries no session, whatever the address), then
 * signs in with the chosen password; returns the session cookie and account.
 */
async function sign_up_and_in(
  server: TestServer,
  email: string,
): Promise<{ cookie: string; account_id: string }> {
  const signed_up = await trpc(server, "auth.sign_up", {
    email,
    password: PASSWORD,
  });
  assertEquals(signed_up.status, 200);
  assertEquals(signed_up.headers.get("set-cookie"), null);
  assertEquals((await signed_up.json()).result.data.signed_up, true);
  const signed_in = await trpc(server, "auth.sign_in", {
    email,
    password: PASSWORD,
  });
  assertEquals(signed_in.status, 200, "an unverified account may sign in");
  const account_id = (await signed_in.json()).result.data.account.id;
  return { cookie: cookie_of(signed_in), account_id };
}

Deno.test("sign-up mails a verification link; live keys need a verified address", async () => {
  const smtp = await start_smtp_sink();
  const server = await start_test_server({
    env: { SMTP_URL: smtp.url, MAIL_FROM },
  });
  try {
    const email = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const { account_id } = await sign_up_and_in(server, email);

    const mail = await smtp.next_for(email);
    assertEquals(mail.user, "mailer", "authenticated with SMTP_URL's user");
    assertMatch(mail.headers.from, /no-reply@ink\.test/);
    assertMatch(mail.headers.subject, /Confirm your e-mail/);
    const link = link_in(mail, "/verify-email");
    assertEquals(link.origin, server.url);
    const token = link.searchParams.get("token")!;
    assert(token.length >= 40);

    // Unverified: no live key, with a message that says why.
    const refused = await server.admin(`/admin/accounts/${account_id}/keys`, {
      body: { name: "Prod" },
    });
    assertEquals(refused.status, 403);
    assertMatch((await refused.json()).error.message, /Confirm your e-mail/);
    // Test keys need no confirmed address.
    const test_key = await server.admin(`/admin/accounts/${account_id}/keys`, {
      body: { name: "CI", mode: "test" },
    });
    assertEquals(test_key.status, 201);
    assertMatch((await test_key.json()).key, /^ink_test_/);

    const page = await fetch(link);
    assertEquals(page.status, 200);
    assertEquals(page.headers.get("cache-control"), "no-store");
    assertMatch(await page.text(), /Confirm your e-mail address/);

    const verified = await trpc(server, "auth.verify_email", { token });
    assertEquals(verified.status, 200);
    assertEquals(verified.headers.get("cache-control"), "no-store");
    assertEquals((await verified.json()).result.data, {
      verified: true,
      email,
    });
    const again = await trpc(server, "auth.verify_email", { token });
    assertEquals(again.status, 400, "a token works once");
    await again.body?.cancel();

    const created = await server.admin(`/admin/accounts/${account_id}/keys`, {
      body: { name: "Prod" },
    });
    assertEquals(created.status, 201);
    await created.body?.cancel();

    // Operator-created accounts count as verified.
    const operator = await server.create_account();
    assert(operator.key.startsWith("ink_"));
  } finally {
    await server.close();
    await smtp.close();
  }
});

/** An answer's headers, without those that differ on every request. */
function stable_headers(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) {
    if (name === "date" || name === "x-request-id") continue;
    headers[name] = value;
  }
  return headers;
}

Deno.test("sign-up answers alike for a new and a taken address; the owner is told by mail, at most once an hour", async () => {
  const smtp = await start_smtp_sink();
  let offset_ms = 0;
  const start = new Date("2026-03-10T12:05:00Z").getTime();
  const server = await start_test_server({
    env: { SMTP_URL: smtp.url, MAIL_FROM },
    now: () => new Date(start + offset_ms),
  });
  try {
    const owner = `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await sign_up_and_in(server, owner);
    await smtp.next_for(owner); // its verification mail
    const newcomer = `newcomer-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const other_password = "someone else's passphrase";

    const fresh = await trpc(server, "auth.sign_up", {
      email: newcomer,
      password: other_password,
    });
    const taken = await trpc(server, "auth.sign_up", {
      email: owner.toUpperCase(),
      password: other_password,
    });
    // Same status, same body, same headers (no Set-Cookie on either): the
    // old 409 "already exists" is gone.
    assertEquals(taken.status, 200);
    assertEquals(fresh.status, taken.status);
    assertEquals(stable_headers(fresh), stable_headers(taken));
    assertEquals(fresh.headers.get("set-cookie"), null);
    const body = await fresh.json();
    assertEquals(await taken.json(), body);
    assertEquals(body.result.data.signed_up, true);
    assertMatch(body.result.data.message, /Check your inbox/);

    // The newcomer gets the verification link, the owner a notice with a
    // sign-in and a reset link (and no verification link).
    link_in(await smtp.next_for(newcomer), "/verify-email");
    const notice = await smtp.next_for(owner);
    assertMatch(notice.headers.subject, /tried to sign up/);
    assertMatch(notice.text, /already has an account/);
    assertStringIncludes(notice.text, `${server.url}/signin\n`);
    assertStringIncludes(notice.text, `${server.url}/forgot-password\n`);
    assert(!notice.text.includes("/verify-email"));

    // Nothing changed for the owner: the old password still signs in, the
    // attempted one answers exactly like an unknown address.
    const own = await trpc(server, "auth.sign_in", {
      email: owner,
      password: PASSWORD,
    });
    assertEquals(own.status, 200);
    await own.body?.cancel();
    const attempted = await trpc(server, "auth.sign_in", {
      email: owner,
      password: other_password,
    });
    const unknown = await trpc(server, "auth.sign_in", {
      email: `nobody-${crypto.randomUUID().slice(0, 8)}@example.com`,
      password: other_password,
    });
    assertEquals(attempted.status, 401);
    assertEquals(unknown.status, 401);
    assertEquals(await attempted.json(), await unknown.json());

    // Within the hour, more attempts answer the same but mail nothing; once
    // the notice has slid out of the hour's window (by 14:00, the end of the
    // next fixed hour), the owner hears again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const again = await trpc(server, "auth.sign_up", {
        email: owner,
        password: other_password,
      });
      assertEquals(again.status, 200);
      assertEquals(await again.json(), body);
    }
    offset_ms = 2 * SIGN_UP_NOTICE_LIMIT.window_seconds * 1000;
    const later = await trpc(server, "auth.sign_up", {
      email: owner,
      password: other_password,
    });
    assertEquals(await later.json(), body);
    await smtp.next_for(owner);
    // Shutting down waits for mail still being sent.
    await server.server.shutdown();
    const notices = smtp.messages.filter((message) =>
      message.to.includes(owner) &&
      /tried to sign up/.test(message.headers.subject)
    );
    assertEquals(notices.length, 2);
  } finally {
    await server.close();
    await smtp.close();
  }
});

Deno.test("password reset: same answer for any address, mailed link, single use, ends sessions, signs in", async (t) => {
  const smtp = await start_smtp_sink();
  let offset_ms = 0;
  // Mid-window, so the 15-minute rate-limit window does not roll over.
  const start = new Date("2026-03-10T12:05:00Z").getTime();
  const server = await start_test_server({
    env: { SMTP_URL: smtp.url, MAIL_FROM },
    now: () => new Date(start + offset_ms),
  });
  try {
    const email = `reset-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const { cookie: other_device } = await sign_up_and_in(server, email);
    await smtp.next_for(email); // the verification mail

    let reset_link: URL;
    await t.step(
      "an unknown and a known address get the same answer",
      async () => {
        const unknown = await trpc(server, "auth.request_password_reset", {
          email: "nobody-here@example.com",
        });
        const known = await trpc(server, "auth.request_password_reset", {
          email: email.toUpperCase(),
        });
        assertEquals(unknown.status, 200);
        assertEquals(known.status, 200);
        assertEquals(await unknown.json(), await known.json());
        const mail = await smtp.next_for(email);
        assertMatch(mail.headers.subject, /Reset your Ink password/);
        reset_link = link_in(mail, "/reset-password");
        assertEquals(reset_link.pathname, "/reset-password");
        assertEquals(
          smtp.messages.filter((m) => m.to.includes("nobody-here@example.com"))
            .length,
          0,
        );
      },
    );

    await t.step(
      "the link opens the page; a bad token is refused",
      async () => {
        const page = await fetch(reset_link);
        assertEquals(page.status, 200);
        assertEquals(page.headers.get("cache-control"), "no-store");
        assertMatch(await page.text(), /Choose a new password/);
        const forged = await trpc(server, "auth.reset_password", {
          token: "x".repeat(43),
          password: NEW_PASSWORD,
        });
        assertEquals(forged.status, 400);
        assertMatch(
          JSON.stringify(await forged.json()),
          /invalid, used or expired/,
        );
        const short = await trpc(server, "auth.reset_password", {
          token: reset_link.searchParams.get("token"),
          password: "short",
        });
        assertEquals(short.status, 400, "validation before the token is used");
        await short.body?.cancel();
      },
    );

    await t.step(
      "resetting sets the password, ends sessions, signs in",
      async () => {
        assertEquals(await signed_in_email(server, other_device), email);
        const token = reset_link.searchParams.get("token")!;
        const reset = await trpc(server, "auth.reset_password", {
          token,
          password: NEW_PASSWORD,
        });
        assertEquals(reset.status, 200);
        assertEquals(reset.headers.get("cache-control"), "no-store");
        assertEquals((await reset.json()).result.data.account.email, email);
        const new_session = cookie_of(reset);
        assertEquals(await signed_in_email(server, new_session), email);
        assertEquals(await signed_in_email(server, other_device), null);

        const old = await trpc(server, "auth.sign_in", {
          email,
          password: PASSWORD,
        });
        assertEquals(old.status, 401);
        await old.body?.cancel();
        const fresh = await trpc(server, "auth.sign_in", {
          email,
          password: NEW_PASSWORD,
        });
        assertEquals(fresh.status, 200);
        await fresh.body?.cancel();
        const reused = await trpc(server, "auth.reset_password", {
          token,
          password: PASSWORD,
        });
        assertEquals(reused.status, 400, "single use");
        await reused.body?.cancel();
      },
    );

    await t.step("a link expires after one hour", async () => {
      offset_ms = 0;
      const asked = await trpc(server, "auth.request_password_reset", {
        email,
      });
      assertEquals(asked.status, 200);
      await asked.body?.cancel();
      const link = link_in(await smtp.next_for(email), "/reset-password");
      offset_ms = 60 * 60 * 1000 + 1000;
      const late = await trpc(server, "auth.reset_password", {
        token: link.searchParams.get("token"),
        password: PASSWORD,
      });
      assertEquals(late.status, 400);
      await late.body?.cancel();
      offset_ms = 0;
    });

    await t.step("requests are rate limited per address", async () => {
      const target = `limit-${crypto.randomUUID().slice(0, 8)}@example.com`;
      for (let i = 0; i < PASSWORD_RESET_LIMIT.per_email; i++) {
        const ok = await trpc(server, "auth.request_password_reset", {
          email: target,
        });
        assertEquals(ok.status, 200);
        await ok.body?.cancel();
      }
      const limited = await trpc(server, "auth.request_password_reset", {
        email: target,
      });
      assertEquals(limited.status, 429);
      assert(Number(limited.headers.get("retry-after")) > 0);
      assertEquals((await limited.json()).error.data.code, "rate_limited");
    });
  } finally {
    await server.close();
    await smtp.close();
  }
});

/**
 * POSTs JSON over a raw connection with the given `Host` header (fetch
 * always sends the URL's own); returns the status.
 */
async function post_with_host(
  server: TestServer,
  path: string,
  host: string,
  body: unknown,
): Promise<number> {
  const payload = new TextEncoder().encode(JSON.stringify(body));
  const head = new TextEncoder().encode(
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${payload.length}\r\n` +
      "Connection: close\r\n\r\n",
  );
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: server.server.port,
  });
  try {
    const request = new Uint8Array([...head, ...payload]);
    for (let sent = 0; sent < request.length;) {
      sent += await conn.write(request.subarray(sent));
    }
    let text = "";
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(16_384);
    const deadline = Date.now() + 10_000;
    while (!/^HTTP\/1\.1 \d{3}/.test(text) && Date.now() < deadline) {
      const read = await conn.read(buffer);
      if (read === null) break;
      text += decoder.decode(buffer.subarray(0, read), { stream: true });
    }
    const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
    if (!status) throw new Error(`no HTTP answer: ${JSON.stringify(text)}`);
    return Number(status[1]);
  } finally {
    conn.close();
  }
}

Deno.test("links in mail never follow the request's Host: PUBLIC_URL with SMTP", async () => {
  const smtp = await start_smtp_sink();
  const server = await start_test_server({
    env: {
      SMTP_URL: smtp.url,
      MAIL_FROM,
      PUBLIC_URL: "https://invoices.example.com",
    },
  });
  try {
    const email = `host-${crypto.randomUUID().slice(0, 8)}@example.com`;
    assertEquals(
      await post_with_host(server, "/trpc/auth.sign_up", "evil.example", {
        email,
        password: PASSWORD,
      }),
      200,
    );
    const verify = link_in(await smtp.next_for(email), "/verify-email");
    assertEquals(verify.origin, "https://invoices.example.com");
    assertEquals(
      await post_with_host(
        server,
        "/trpc/auth.request_password_reset",
        "evil.example",
        { email },
      ),
      200,
    );
    const reset = link_in(await smtp.next_for(email), "/reset-password");
    assertEquals(reset.origin, "https://invoices.example.com");
  } finally {
    await server.close();
    await smtp.close();
  }
});

Deno.test("links in mail never follow the request's Host: the listening address without SMTP", async () => {
  const logged: string[] = [];
  const console_log = console.log;
  // The log mailer writes one JSON line per message to console.log (and
  // a plain line with the link, checked below).
  console.log = (...data: unknown[]) => logged.push(data.map(String).join(" "));
  try {
    const server = await start_test_server();
    try {
      const email = `host-${crypto.randomUUID().slice(0, 8)}@example.com`;
      const signed_up = await trpc(server, "auth.sign_up", {
        email,
        password: PASSWORD,
      });
      assertEquals(signed_up.status, 200);
      await signed_up.body?.cancel();
      assertEquals(
        await post_with_host(
          server,
          "/trpc/auth.request_password_reset",
          "evil.example",
          { email },
        ),
        200,
      );
      // Shutting down waits for mail still being written.
      await server.server.shutdown();
      const reset = logged.filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line)).find((record) =>
          record.to === email && /Reset your Ink password/.test(record.subject)
        );
      assert(reset, `no reset mail logged:\n${logged.join("\n")}`);
      const link = /(\S+)\/reset-password\?token=/.exec(reset.text);
      assertEquals(link?.[1], server.url);
      assert(!reset.text.includes("evil.example"));
      const plain = logged.find((line) =>
        line.startsWith(LOGGED_LINK_MARK) && line.includes("Reset your Ink")
      );
      assert(plain?.includes(`open ${server.url}/reset-password?token=`));
    } finally {
      await server.close();
    }
  } finally {
    console.log = console_log;
  }
});

Deno.test("without SMTP_URL mail is written to the log", async () => {
  const lines: string[] = [];
  const mailer = create_mailer({
    mail_from: MAIL_FROM,
    write_log: (line) => lines.push(line),
  });
  assertEquals(mailer.kind, "log");
  await mailer.send({ to: "a@example.com", subject: "Hi", text: "Link: x" });
  assertEquals(lines.length, 1);
  const record = JSON.parse(lines[0]);
  assertEquals(record.to, "a@example.com");
  assertEquals(record.text, "Link: x");
  assertMatch(record.mail, /SMTP_URL unset/);
  // A mail about a link: the JSON line, then the link on a plain line of
  // its own that starts with the mark the pages name.
  const link = "http://127.0.0.1:8000/verify-email?token=abc";
  await mailer.send({
    to: "b@example.com",
    subject: "Confirm your e-mail address for Ink",
    text: `Confirm: ${link}`,
    link,
  });
  assertEquals(lines.length, 3);
  assertEquals(JSON.parse(lines[1]).text, `Confirm: ${link}`);
  assertEquals("link" in JSON.parse(lines[1]), false);
  assertEquals(
    lines[2],
    `${LOGGED_LINK_MARK} (SMTP_URL is not set): "Confirm your e-mail address for Ink" for b@example.com: open ${link}`,
  );
});

/** Collects what the in-process server writes with console.log meanwhile. */
function capture_log(): { lines: string[]; restore(): void } {
  const lines: string[] = [];
  const original = console.log;
  console.log = (...parts: unknown[]) =>
    lines.push(parts.map(String).join(" "));
  return { lines, restore: () => console.log = original };
}

Deno.test("without SMTP_URL sign-up says the mail was not sent and where its link is; the log shows the link on a line of its own", async () => {
  const server = await start_test_server();
  const log = capture_log();
  try {
    const email = `nomail-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const signed_up = await trpc(server, "auth.sign_up", {
      email,
      password: PASSWORD,
    });
    const answer = (await signed_up.json()).result.data;
    assertEquals(answer.mail_delivery, "log");
    assertMatch(answer.message, /sends no mail/);
    assertMatch(answer.message, /server's log/);
    assert(answer.message.includes(LOGGED_LINK_MARK), answer.message);
    assert(!/Check your inbox/.test(answer.message));
    const line = await wait_for(() =>
      log.lines.find((text) =>
        text.startsWith(LOGGED_LINK_MARK) && text.includes(email)
      )
    );
    const link = new URL(/open (\S+)$/.exec(line)![1]);
    assertEquals(link.pathname, "/verify-email");

    const signed_in = await trpc(server, "auth.sign_in", {
      email,
      password: PASSWORD,
    });
    const cookie = cookie_of(signed_in);
    const before = await (await fetch(`${server.url}/trpc/auth.session`, {
      headers: { Cookie: cookie },
    })).json();
    assertEquals(before.result.data.email_verified, false);
    assertEquals(before.result.data.mail_delivery, "log");

    // The logged link works like a mailed one.
    const verified = await trpc(server, "auth.verify_email", {
      token: link.searchParams.get("token"),
    });
    assertEquals(verified.status, 200);
    await verified.body?.cancel();
    const after = await (await fetch(`${server.url}/trpc/auth.session`, {
      headers: { Cookie: cookie },
    })).json();
    assertEquals(after.result.data.email_verified, true);
    const signed_out = await (await fetch(`${server.url}/trpc/auth.session`))
      .json();
    assertEquals(signed_out.result.data.email_verified, null);
  } finally {
    log.restore();
    await server.close();
  }
});

/** Polls `find` until it returns a value (at most 10 s). */
async function wait_for<T>(find: () => T | undefined): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("not found in time");
}

Deno.test("an unconfirmed account asks for a new link: mailed, limited, refused once confirmed", async () => {
  const smtp = await start_smtp_sink();
  const server = await start_test_server({
    env: { SMTP_URL: smtp.url, MAIL_FROM },
  });
  try {
    const email = `resend-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const { cookie } = await sign_up_and_in(server, email);
    const first = link_in(await smtp.next_for(email), "/verify-email");
    const session = await (await fetch(`${server.url}/trpc/auth.session`, {
      headers: { Cookie: cookie },
    })).json();
    assertEquals(session.result.data.email_verified, false);
    assertEquals(session.result.data.mail_delivery, "smtp");
    const csrf = session.result.data.csrf_token;
    const resend = () =>
      fetch(`${server.url}/trpc/auth.resend_verification`, {
        method: "POST",
        headers: {
          Cookie: cookie,
          "X-CSRF-Token": csrf,
          Origin: server.url,
          "Content-Type": "application/json",
        },
      });

    const unsigned = await trpc(server, "auth.resend_verification", undefined);
    assertEquals(unsigned.status, 401);
    await unsigned.body?.cancel();

    let newest = first;
    for (let sent = 1; sent <= VERIFICATION_RESEND_LIMIT.per_account; sent++) {
      const answer = await resend();
      assertEquals(answer.status, 200);
      const body = (await answer.json()).result.data;
      assertEquals(body.sent, true);
      assertMatch(body.message, new RegExp(`on its way to ${email}`));
      const mail = await smtp.next_for(email);
      assertMatch(mail.headers.subject, /Confirm your e-mail address/);
      newest = link_in(mail, "/verify-email");
      assert(newest.href !== first.href);
    }
    const limited = await resend();
    assertEquals(limited.status, 429);
    assert(Number(limited.headers.get("retry-after")) > 0);
    await limited.body?.cancel();

    const verified = await trpc(server, "auth.verify_email", {
      token: newest.searchParams.get("token"),
    });
    assertEquals(verified.status, 200);
    await verified.body?.cancel();
    const confirmed = await resend();
    assertEquals(confirmed.status, 409);
    assertMatch((await confirmed.json()).error.message, /confirmed already/);
  } finally {
    await server.close();
    await smtp.close();
  }
});
