/**
 * The OpenAPI document matches every answer: a broad set of REST calls
 * (every operation, success and every error class that can be provoked:
 * 400, 401, 403, 404, 405, 409, 413, 422, 429, 500, 503) is recorded through
 * the test server's `record` hook and each answer is checked against the
 * committed openapi/openapi.json: status listed, content type listed,
 * declared required headers present and valid, body valid against the schema.
 */
import { assert, assertEquals } from "../assert.ts";
import { ApiError, CONTRACT_VERSION } from "../../contract/mod.ts";
import { session_headers } from "../helpers/accounts.ts";
import {
  answer_checker,
  committed_document,
} from "../helpers/openapi_check.ts";
import { RestRecorder } from "../helpers/rest_recorder.ts";
import {
  start_test_server,
  TEST_ADMIN_TOKEN,
  type TestServer,
} from "../helpers/test_server.ts";
import { corpus_request } from "../fixtures/einvoice_corpus.ts";
import {
  INVOICE_FORMAT_TABLE,
  INVOICE_FORMATS,
  OUTPUT_CONTENT_TYPES,
} from "../../contract/mod.ts";

const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";
const JSON_TYPE = { "Content-Type": "application/json" };
const ADMIN = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const TOO_LARGE = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) });

/** The admin API: every operation, unknown ids, a duplicate, bad input, bad tokens. */
async function admin_calls(server: TestServer): Promise<void> {
  const { account_id, key_id } = await server.create_account();
  const account = await (await server.admin(`/admin/accounts/${account_id}`))
    .json();
  await server.admin("/admin/accounts", {
    body: { email: account.email, plan: "starter" },
  });
  await server.admin("/admin/accounts", { body: { email: "not an address" } });
  await server.admin(`/admin/accounts/${UNKNOWN_ID}`);
  await server.admin("/admin/accounts/not-an-id");
  await server.admin(`/admin/accounts/${account_id}`, {
    method: "PATCH",
    body: { plan: "pro" },
  });
  await server.admin(`/admin/accounts/${UNKNOWN_ID}`, {
    method: "PATCH",
    body: { plan: "pro" },
  });
  await server.admin(`/admin/accounts/${account_id}/keys`);
  await server.admin(`/admin/accounts/${UNKNOWN_ID}/keys`);
  await server.admin(`/admin/accounts/${UNKNOWN_ID}/keys`, {
    body: { name: "Nobody's" },
  });
  await server.admin(`/admin/keys/${key_id}/revoke`, { method: "POST" });
  await server.admin(`/admin/keys/${UNKNOWN_ID}/revoke`, { method: "POST" });
  await server.admin("/admin/upgrade-requests?status=all");
  await server.admin("/admin/upgrade-requests?status=nonsense");
  await server.fetch("/admin/accounts", { method: "DELETE", headers: ADMIN });
  await server.fetch(`/admin/accounts/${account_id}`);
  await server.fetch(`/admin/accounts/${account_id}`, {
    headers: { Authorization: "Bearer wrong-token-0123456789" },
  });
  await server.fetch("/admin/accounts", {
    method: "POST",
    headers: { ...ADMIN, ...JSON_TYPE },
    body: "{not json",
  });
  await server.fetch("/admin/accounts", {
    method: "POST",
    headers: { ...ADMIN, ...JSON_TYPE },
    body: TOO_LARGE,
  });
}

/** The dashboard account's REST face, with a session and without. */
async function account_calls(server: TestServer): Promise<void> {
  const { account_id } = await server.create_account();
  const session = await session_headers(server, account_id);
  const post = (path: string, body?: unknown) =>
    server.fetch(path, {
      method: "POST",
      headers: body === undefined ? session : { ...session, ...JSON_TYPE },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  for (
    const path of [
      "/account/usage",
      "/account/keys",
      "/account/billing",
      "/account/upgrade",
    ]
  ) {
    await server.fetch(path, { headers: session });
  }
  await server.fetch("/account/usage");
  await server.fetch("/account/usage", {
    headers: { Authorization: "Bearer ink_live_unknown" },
  });
  const created = await (await post("/account/keys", {
    name: "CI",
    mode: "test",
  })).json();
  await post("/account/keys", { name: "" });
  await post(`/account/keys/${created.id}/revoke`);
  await post(`/account/keys/${UNKNOWN_ID}/revoke`);
  const { "X-CSRF-Token": _, ...without_csrf } = session;
  await server.fetch("/account/keys", {
    method: "POST",
    headers: { ...without_csrf, ...JSON_TYPE },
    body: JSON.stringify({ name: "No CSRF" }),
  });
  await server.fetch("/account/keys", {
    method: "POST",
    headers: { ...session, ...JSON_TYPE },
    body: TOO_LARGE,
  });
  await post("/account/billing/plan", { plan: "pro" });
  await post("/account/billing/portal");
  const request = await (await post("/account/upgrade-requests", {
    plan: "pro",
  })).json();
  await post("/account/upgrade-requests", { plan: "team" });
  await post(`/account/upgrade-requests/${request.id}/withdraw`);
  await post(`/account/upgrade-requests/${request.id}/withdraw`);
  await post(`/account/upgrade-requests/${UNKNOWN_ID}/withdraw`);
}

/** `POST /generate`: every format, and its client errors. */
async function generate_calls(server: TestServer): Promise<void> {
  const { key, key_id } = await server.create_account({ plan: "team" });
  const invoice = corpus_request("standard", 1);
  for (const format of INVOICE_FORMATS) {
    const response = await server.generate(key, { ...invoice, format });
    await response.body?.cancel();
    assertEquals(response.status, 200, format);
    assertEquals(
      response.headers.get("content-type"),
      OUTPUT_CONTENT_TYPES[INVOICE_FORMAT_TABLE[format].extension],
      format,
    );
  }
  await server.generate(key, { ...invoice, items: [] });
  await server.generate(null, invoice);
  await server.generate("ink_live_unknown", invoice);
  const headers = { "Idempotency-Key": crypto.randomUUID() };
  await server.generate(key, invoice, { headers });
  await server.generate(key, { ...invoice, notes: "Changed" }, { headers });
  await server.generate(key, TOO_LARGE);
  await server.fetch("/generate", {
    headers: { Authorization: `Bearer ${key}` },
  });
  await server.admin(`/admin/keys/${key_id}/revoke`, { method: "POST" });
  await server.generate(key, invoice);
}

/** 429, 500 and 503 from a server whose renderer fails on request. */
async function failure_calls(record: RestRecorder): Promise<void> {
  const { render_invoice_pdf } = await import("../../server/pdf/mod.ts");
  const server = await start_test_server({
    record,
    env: { RATE_LIMIT_PER_MINUTE: "3" },
    render_document: (invoice) => {
      if (invoice.invoice_number === "FAULT") {
        return Promise.reject(new Error("renderer crashed"));
      }
      if (invoice.invoice_number === "BUSY") {
        return Promise.reject(
          new ApiError("unavailable", "Every renderer is busy", {
            headers: { "Retry-After": "1" },
          }),
        );
      }
      return Promise.resolve(render_invoice_pdf(invoice));
    },
  });
  try {
    const { key } = await server.create_account({ plan: "team" });
    const invoice = corpus_request("standard", 2);
    await server.generate(key, { ...invoice, invoice_number: "FAULT" });
    await server.generate(key, { ...invoice, invoice_number: "BUSY" });
    await server.generate(key, invoice);
    await server.generate(key, invoice);
  } finally {
    await server.close();
  }
}

Deno.test("every REST answer matches openapi/openapi.json: status, content type, headers and body", async () => {
  const record = new RestRecorder();
  const server = await start_test_server({
    record,
    env: { RENDER_TIMEOUT_MS: "120000" },
  });
  try {
    await admin_calls(server);
    await account_calls(server);
    await generate_calls(server);
  } finally {
    await server.close();
  }
  await failure_calls(record);
  const check = answer_checker(await committed_document());
  const problems = record.answers.flatMap((answer) =>
    check(answer).map((problem) =>
      `${answer.method} ${answer.path} → ${answer.status}: ${problem}`
    )
  );
  assertEquals(problems, []);
  const statuses = new Set(record.answers.map((answer) => answer.status));
  for (
    const status of [
      200,
      201,
      400,
      401,
      403,
      404,
      405,
      409,
      413,
      422,
      429,
      500,
      503,
    ]
  ) {
    assert(statuses.has(status), `no answer with status ${status} was checked`);
  }
  const types = new Set(record.answers.map((answer) => answer.content_type));
  assert(types.has("application/pdf"));
  assert(types.has("application/xml; charset=utf-8"));
  for (const answer of record.answers) {
    assertEquals(answer.headers.get("ink-version"), CONTRACT_VERSION);
  }
});

Deno.test('401 answers challenge with WWW-Authenticate: Bearer (error="invalid_token" for a refused token); every answer carries Ink-Version', async () => {
  const server = await start_test_server();
  try {
    const challenge = async (path: string, init: RequestInit) => {
      const response = await server.fetch(path, init);
      await response.body?.cancel();
      assertEquals(response.status, 401, path);
      return response.headers.get("www-authenticate");
    };
    const invoice = { method: "POST", headers: JSON_TYPE, body: "{}" };
    assertEquals(await challenge("/generate", invoice), "Bearer");
    assertEquals(
      await challenge("/generate", {
        ...invoice,
        headers: { ...JSON_TYPE, Authorization: "Bearer ink_live_unknown" },
      }),
      'Bearer error="invalid_token"',
    );
    assertEquals(await challenge("/admin/upgrade-requests", {}), "Bearer");
    assertEquals(
      await challenge("/admin/upgrade-requests", {
        headers: { Authorization: "Bearer wrong-token-0123456789" },
      }),
      'Bearer error="invalid_token"',
    );
    assertEquals(await challenge("/account/usage", {}), "Bearer");
    for (
      const path of [
        "/healthz",
        "/openapi.json",
        "/docs",
        "/trpc/auth.session",
        "/no-such-path",
      ]
    ) {
      const response = await server.fetch(path);
      await response.body?.cancel();
      assertEquals(response.headers.get("ink-version"), CONTRACT_VERSION, path);
    }
  } finally {
    await server.close();
  }
});
