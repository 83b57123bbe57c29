/**
 * Operations: health and readiness, metrics, request ids, structured logs
 * that never contain secrets, security headers and CORS.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
} from "../assert.ts";
import { start_test_server, TEST_ADMIN_TOKEN } from "../helpers/test_server.ts";
import { full_invoice } from "../fixtures/invoices.ts";

Deno.test("health, readiness, metrics, request ids and logs", async (t) => {
  const records: Record<string, unknown>[] = [];
  const server = await start_test_server({
    log: (record) => records.push(record),
    env: { RATE_LIMIT_PER_MINUTE: "2" },
  });
  try {
    const { key, account_id } = await server.create_account();

    await t.step("/healthz and /readyz", async () => {
      const health = await fetch(`${server.url}/healthz`);
      assertEquals(health.status, 200);
      assertEquals(await health.json(), { status: "ok" });
      const ready = await fetch(`${server.url}/readyz`);
      assertEquals(ready.status, 200);
      assertEquals(await ready.json(), { status: "ready" });
    });

    await t.step(
      "X-Request-Id is echoed when sane, generated otherwise",
      async () => {
        const echoed = await fetch(`${server.url}/healthz`, {
          headers: { "X-Request-Id": "abc-123" },
        });
        assertEquals(echoed.headers.get("x-request-id"), "abc-123");
        await echoed.body?.cancel();
        const replaced = await fetch(`${server.url}/healthz`, {
          headers: { "X-Request-Id": "bad id\twith spaces" },
        });
        assertMatch(replaced.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/);
        await replaced.body?.cancel();
      },
    );

    await t.step(
      "security headers on every answer, CORS off by default",
      async () => {
        for (
          const path of ["/generate", "/healthz", "/nope", "/openapi.json"]
        ) {
          const response = await fetch(`${server.url}${path}`, {
            headers: { Origin: "https://evil.example" },
          });
          assertEquals(
            response.headers.get("x-content-type-options"),
            "nosniff",
            path,
          );
          assert(response.headers.get("content-security-policy"), path);
          assertEquals(
            response.headers.get("access-control-allow-origin"),
            null,
            path,
          );
          await response.body?.cancel();
        }
      },
    );

    await t.step(
      "metrics count requests, statuses and rejections",
      async () => {
        for (let i = 0; i < 3; i++) {
          const response = await server.generate(key, full_invoice());
          await response.body?.cancel();
        }
        const metrics = await (await fetch(`${server.url}/metrics`)).text();
        assertMatch(
          metrics,
          /http_requests_total\{route="\/generate",status="200"\} 2/,
        );
        assertMatch(
          metrics,
          /http_requests_total\{route="\/generate",status="429"\} 1/,
        );
        assertMatch(metrics, /rejections_total\{code="rate_limited"\} 1/);
        assertMatch(metrics, /pdf_render_duration_seconds_count 2/);
        assertStringIncludes(
          metrics,
          "# TYPE http_request_duration_seconds histogram",
        );
        assertStringIncludes(metrics, "render_queue_depth");
        assertMatch(metrics, /\nrender_workers_running [1-9]\d*\n/);
      },
    );

    await t.step(
      "one log record per request, with ids and never a secret",
      () => {
        const generate_records = records.filter((record) =>
          record.path === "/generate" && record.status === 200
        );
        assert(generate_records.length >= 2);
        for (const record of generate_records) {
          assertEquals(record.account_id, account_id);
          assertEquals(record.method, "POST");
          assert(typeof record.request_id === "string");
          assert(typeof record.duration_ms === "number");
        }
        const limited = records.find((record) => record.status === 429);
        assertEquals(limited?.error, "rate_limited");
        const all = JSON.stringify(records);
        assert(!all.includes(key.slice(9)), "an API key leaked into the log");
        assert(
          !all.includes(TEST_ADMIN_TOKEN),
          "the admin token leaked into the log",
        );
        assert(!all.includes("Łukasz"), "invoice content leaked into the log");
      },
    );
  } finally {
    await server.close();
  }
});

Deno.test("CORS for browser callers of /generate, when configured", async () => {
  const server = await start_test_server({
    env: { CORS_ORIGINS: "https://app.example.com" },
  });
  try {
    const { key } = await server.create_account();
    const preflight = await fetch(`${server.url}/generate`, {
      method: "OPTIONS",
      headers: {
        Origin: "https://app.example.com",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
      },
    });
    assertEquals(preflight.status, 204);
    assertEquals(
      preflight.headers.get("access-control-allow-origin"),
      "https://app.example.com",
    );
    assertMatch(
      preflight.headers.get("access-control-allow-headers")!,
      /Authorization/,
    );
    await preflight.body?.cancel();
    const response = await server.generate(key, full_invoice(), {
      headers: { Origin: "https://app.example.com" },
    });
    assertEquals(response.status, 200);
    assertEquals(
      response.headers.get("access-control-allow-origin"),
      "https://app.example.com",
    );
    assertMatch(
      response.headers.get("access-control-expose-headers")!,
      /Content-Disposition/,
    );
    await response.arrayBuffer();
    const other = await server.generate(key, full_invoice(), {
      headers: { Origin: "https://other.example" },
    });
    assertEquals(other.headers.get("access-control-allow-origin"), null);
    await other.arrayBuffer();
  } finally {
    await server.close();
  }
});

Deno.test("slow bodies get 408 and oversized headers are refused; the server keeps serving", async () => {
  const server = await start_test_server({ env: { BODY_TIMEOUT_MS: "300" } });
  try {
    const { key } = await server.create_account();
    // A body that starts and then stalls.
    let stalled: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        stalled = controller;
        controller.enqueue(
          new TextEncoder().encode('{"invoice_number": "A-1",'),
        );
      },
    });
    const slow = await fetch(`${server.url}/generate`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "Content-Type": "application/json",
      },
      body,
    });
    assertEquals(slow.status, 408);
    assertEquals((await slow.json()).error.code, "request_timeout");
    stalled?.close();

    const huge_header = await fetch(`${server.url}/generate`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "X-Padding": "a".repeat(256 * 1024),
      },
      body: "{}",
    });
    assertEquals(huge_header.status, 400);
    await huge_header.body?.cancel();

    const after = await server.generate(key, full_invoice());
    assertEquals(after.status, 200);
    await after.arrayBuffer();
  } finally {
    await server.close();
  }
});
