/**
 * Protocol edges: one JSON body reader for every entry point, no batched
 * `auth.*` calls, `Cache-Control: no-store` on answers that carry a secret, and
 * a `/metrics` token.
 */
import { assertEquals, assertMatch } from "../assert.ts";
import {
  start_test_server,
  TEST_ADMIN_TOKEN,
  type TestServer,
} from "../helpers/test_server.ts";
import { full_invoice } from "../fixtures/invoices.ts";

interface BodyCase {
  name: string;
  content_type: string;
  body: Uint8Array | string;
  message: RegExp;
}

function body_cases(): BodyCase[] {
  const invoice = JSON.stringify(full_invoice());
  const duplicate = invoice.replace(
    /^\{/,
    `{"invoice_number":"DUP-1",`,
  );
  const bad_utf8 = new Uint8Array([
    ...new TextEncoder().encode(invoice.slice(0, -1)),
    ...new TextEncoder().encode(`,"notes":"`),
    0xff,
    0xfe,
    ...new TextEncoder().encode(`"}`),
  ]);
  return [
    {
      name: "duplicate key",
      content_type: "application/json",
      body: duplicate,
      message: /invoice_number appears more than once/,
    },
    {
      name: "invalid UTF-8",
      content_type: "application/json",
      body: bad_utf8,
      message: /not valid UTF-8/,
    },
    {
      name: "charset=latin1",
      content_type: "application/json; charset=latin1",
      body: invoice,
      message: /Unsupported charset "latin1"/,
    },
  ];
}

async function post(
  server: TestServer,
  path: string,
  key: string,
  body_case: { content_type: string; body: Uint8Array | string },
): Promise<Response> {
  return await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${key}`,
      "Content-Type": body_case.content_type,
    },
    body: body_case.body as BodyInit,
  });
}

Deno.test("one body reader: /generate and /trpc/invoice.generate give the same 400s and 413", async (t) => {
  // Rendering on the request thread: no worker start-up on a busy machine.
  const server = await start_test_server({ env: { RENDER_WORKERS: "0" } });
  try {
    const { key } = await server.create_account();
    for (const body_case of body_cases()) {
      await t.step(body_case.name, async () => {
        const answers = [];
        for (const path of ["/generate", "/trpc/invoice.generate"]) {
          const response = await post(server, path, key, body_case);
          const body = await response.json();
          assertEquals(
            response.status,
            400,
            `${path}: ${JSON.stringify(body).slice(0, 300)}`,
          );
          assertEquals(body.error.code, "invalid_request", path);
          assertMatch(body.error.message, body_case.message, path);
          answers.push(body);
        }
        assertEquals(answers[0], answers[1]);
      });
    }
    await t.step("oversized body", async () => {
      const huge = JSON.stringify({
        ...full_invoice(),
        notes: "x".repeat(1024 * 1024),
      });
      for (const path of ["/generate", "/trpc/invoice.generate"]) {
        const response = await post(server, path, key, {
          content_type: "application/json",
          body: huge,
        });
        assertEquals(response.status, 413, path);
        assertEquals((await response.json()).error.code, "payload_too_large");
      }
    });
    await t.step("valid bodies still work on both", async () => {
      const valid = {
        content_type: "application/json",
        body: JSON.stringify(full_invoice()),
      };
      const rest = await post(server, "/generate", key, valid);
      assertEquals(rest.status, 200);
      await rest.body?.cancel();
      const trpc = await post(server, "/trpc/invoice.generate", key, valid);
      assertEquals(trpc.status, 200);
      const data = (await trpc.json()).result.data;
      assertEquals(data.content_type, "application/pdf");
    });
  } finally {
    await server.close();
  }
});

Deno.test("tRPC batches may not carry auth.* calls", async (t) => {
  const server = await start_test_server();
  try {
    const credentials = (n: number) => ({
      email: `batch-${n}-${crypto.randomUUID().slice(0, 8)}@example.com`,
      password: "correct horse battery staple",
    });
    await t.step("a batch of sign-ups is refused whole", async () => {
      const names = Array.from({ length: 10 }, () => "auth.sign_up");
      const input = Object.fromEntries(
        names.map((_, index) => [String(index), credentials(index)]),
      );
      const response = await fetch(
        `${server.url}/trpc/${names.join(",")}?batch=1`,
        {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(input),
        },
      );
      const body = await response.json();
      assertEquals(response.status, 400, JSON.stringify(body));
      assertEquals(body.error.code, "invalid_request");
      assertMatch(body.error.message, /cannot be batched/);
      const listed = await server.admin("/admin/accounts");
      const accounts = await listed.json();
      const emails = JSON.stringify(accounts);
      assertEquals(emails.includes("batch-"), false, "no account was created");
    });
    await t.step("one auth call hidden in a batch of others", async () => {
      const response = await fetch(
        `${server.url}/trpc/auth.session,auth.sign_in?batch=1&input=%7B%7D`,
      );
      assertEquals(response.status, 400);
      assertEquals((await response.json()).error.code, "invalid_request");
    });
    await t.step("single auth calls are unaffected", async () => {
      const response = await fetch(`${server.url}/trpc/auth.session`);
      assertEquals(response.status, 200);
      await response.body?.cancel();
    });
  } finally {
    await server.close();
  }
});

Deno.test("answers carrying a secret send Cache-Control: no-store", async (t) => {
  const server = await start_test_server();
  try {
    await t.step("a new key from the admin API", async () => {
      const { account_id } = await server.create_account();
      const response = await server.admin(
        `/admin/accounts/${account_id}/keys`,
        { body: { name: "ci" } },
      );
      assertEquals(response.status, 201);
      assertMatch((await response.json()).key, /\S{20,}/);
      assertEquals(response.headers.get("cache-control"), "no-store");
    });
    await t.step("the CSRF token of a session", async () => {
      const email = `nostore-${crypto.randomUUID()}@example.com`;
      const password = "correct horse battery staple";
      const headers = { "Content-Type": "application/json" };
      const signed_up = await fetch(`${server.url}/trpc/auth.sign_up`, {
        method: "POST",
        headers,
        body: JSON.stringify({ email, password }),
      });
      await signed_up.body?.cancel();
      const signed_in = await fetch(`${server.url}/trpc/auth.sign_in`, {
        method: "POST",
        headers,
        body: JSON.stringify({ email, password }),
      });
      assertEquals(signed_in.status, 200);
      await signed_in.body?.cancel();
      const cookie = /session=[^;]*/.exec(
        signed_in.headers.get("set-cookie") ?? "",
      )?.[0] ?? "";
      const session = await fetch(`${server.url}/trpc/auth.session`, {
        headers: { Cookie: cookie },
      });
      const data = (await session.json()).result.data;
      assertMatch(data.csrf_token, /\S{16,}/);
      assertEquals(session.headers.get("cache-control"), "no-store");
    });
  } finally {
    await server.close();
  }
});

Deno.test("/metrics: open without METRICS_TOKEN, Bearer token required with it", async () => {
  const open = await start_test_server();
  try {
    const response = await fetch(`${open.url}/metrics`);
    assertEquals(response.status, 200);
    assertMatch(await response.text(), /http_requests_total/);
  } finally {
    await open.close();
  }
  const token = "metrics-token-0123456789abcdef";
  const closed = await start_test_server({ env: { METRICS_TOKEN: token } });
  try {
    for (const authorization of [undefined, "Bearer wrong-token-0123456789"]) {
      const response = await fetch(`${closed.url}/metrics`, {
        headers: authorization ? { Authorization: authorization } : {},
      });
      assertEquals(response.status, 401);
      const body = await response.json();
      assertEquals(body.error.code, "unauthorized");
      assertMatch(body.error.message, /METRICS_TOKEN/);
    }
    const response = await fetch(`${closed.url}/metrics`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    assertEquals(response.status, 200);
    assertMatch(await response.text(), /http_requests_total/);
  } finally {
    await closed.close();
  }
});

Deno.test("one JSON reader: tRPC ?input= query strings get the same checks as bodies", async (t) => {
  const server = await start_test_server();
  try {
    const query = (input: string) =>
      fetch(
        `${server.url}/trpc/admin.list_upgrade_requests?input=${
          encodeURIComponent(input)
        }`,
        { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
      );
    await t.step("duplicate keys: the body's 400", async () => {
      const response = await query('{"status":"open","status":"all"}');
      const body = await response.json();
      assertEquals(response.status, 400, JSON.stringify(body));
      assertEquals(body.error.code, "invalid_request");
      assertEquals(
        body.error.message,
        "Invalid request: status appears more than once",
      );
      assertEquals(body.error.details, [{
        path: "status",
        message: "appears more than once",
      }]);
    });
    await t.step("nesting deeper than 64 levels: json_too_deep", async () => {
      const response = await query(
        `{"status":${"[".repeat(70)}${"]".repeat(70)}}`,
      );
      const body = await response.json();
      assertEquals(response.status, 400, JSON.stringify(body));
      assertEquals(body.error.code, "json_too_deep");
    });
    await t.step("malformed JSON: 400 naming the query parameter", async () => {
      const response = await query('{"status":');
      const body = await response.json();
      assertEquals(response.status, 400);
      assertEquals(body.error.code, "invalid_request");
      assertMatch(
        body.error.message,
        /input query parameter is not valid JSON/,
      );
    });
    await t.step("a valid input still works", async () => {
      const response = await query('{"status":"open"}');
      assertEquals(response.status, 200);
      assertEquals(
        Array.isArray((await response.json()).result.data.requests),
        true,
      );
    });
  } finally {
    await server.close();
  }
});
