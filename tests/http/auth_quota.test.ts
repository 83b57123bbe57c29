/**
 * Authentication, key lifecycle, rate limits and monthly quotas through
 * HTTP, on PGlite or (with TEST_DATABASE_URL) PostgreSQL.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import type { InvoiceRequest } from "../../contract/mod.ts";

async function code_of(response: Response): Promise<string> {
  const body = await response.json();
  return body.error?.code;
}

function numbered_invoice(n: number): InvoiceRequest {
  return { ...full_invoice(), invoice_number: `Q-${n}` };
}

async function usage_of(
  server: TestServer,
  account_id: string,
): Promise<number> {
  const response = await server.admin(`/admin/accounts/${account_id}`);
  assertEquals(response.status, 200);
  return (await response.json()).usage.used;
}

Deno.test("authentication and key lifecycle", async (t) => {
  const server = await start_test_server();
  try {
    const { key, key_id, account_id } = await server.create_account();

    await t.step(
      "missing header, wrong scheme, malformed or unknown key are 401",
      async () => {
        const cases: (string | null)[] = [
          null,
          `Basic ${btoa("user:pass")}`,
          "Bearer",
          "Bearer not-a-key",
          `Bearer ink_live_${"A".repeat(43)}`,
          `Bearer ${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`,
        ];
        for (const authorization of cases) {
          const response = await fetch(`${server.url}/generate`, {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              ...(authorization === null
                ? {}
                : { Authorization: authorization }),
            },
            body: JSON.stringify(full_invoice()),
          });
          assertEquals(response.status, 401, String(authorization));
          assertEquals(await code_of(response), "unauthorized");
        }
      },
    );

    await t.step(
      "an anonymous request with a bad body is still 401",
      async () => {
        const response = await server.generate(null, "{not json");
        assertEquals(response.status, 401);
        assertEquals(await code_of(response), "unauthorized");
        const huge = await server.generate(
          "ink_live_x",
          "x".repeat(2 * 1024 * 1024),
        );
        assertEquals(huge.status, 401);
        await huge.body?.cancel();
      },
    );

    await t.step(
      "a valid key works and is never listed with its secret",
      async () => {
        const response = await server.generate(key, full_invoice());
        assertEquals(response.status, 200);
        await response.arrayBuffer();
        const listed = await server.admin(`/admin/accounts/${account_id}/keys`);
        const text = await listed.text();
        assert(
          !text.includes(key.slice(12)),
          "the secret must never be listed",
        );
        const keys = JSON.parse(text).keys;
        assertEquals(keys.length, 1);
        assertEquals(keys[0].prefix, key.slice(0, 17));
        assertEquals(keys[0].status, "active");
      },
    );

    await t.step(
      "a revoked key is 403 key_revoked, and revoking twice is harmless",
      async () => {
        const revoked = await server.admin(`/admin/keys/${key_id}/revoke`, {
          method: "POST",
          body: {},
        });
        assertEquals(revoked.status, 200);
        assertEquals((await revoked.json()).status, "revoked");
        const again = await server.admin(`/admin/keys/${key_id}/revoke`, {
          method: "POST",
          body: {},
        });
        assertEquals(again.status, 200);
        await again.body?.cancel();
        const response = await server.generate(key, full_invoice());
        assertEquals(response.status, 403);
        const body = await response.json();
        assertEquals(body.error.code, "key_revoked");
        assertMatch(body.error.message, /revoked/);
      },
    );

    await t.step(
      "rotation: a new key works while the old one stays dead",
      async () => {
        const created = await server.admin(
          `/admin/accounts/${account_id}/keys`,
          { body: { name: "Rotated" } },
        );
        assertEquals(created.status, 201);
        const fresh = await created.json();
        assertMatch(fresh.key, /^ink_live_[A-Za-z0-9_-]{43}$/);
        const ok = await server.generate(fresh.key, full_invoice());
        assertEquals(ok.status, 200);
        await ok.arrayBuffer();
        const old = await server.generate(key, full_invoice());
        assertEquals(old.status, 403);
        await old.body?.cancel();
      },
    );

    await t.step(
      "an inactive subscription is 403 subscription_inactive until reactivated",
      async () => {
        const other = await server.create_account({
          subscription_status: "inactive",
        });
        const response = await server.generate(other.key, full_invoice());
        assertEquals(response.status, 403);
        assertEquals(await code_of(response), "subscription_inactive");
        const patched = await server.admin(
          `/admin/accounts/${other.account_id}`,
          {
            method: "PATCH",
            body: { subscription_status: "active" },
          },
        );
        assertEquals(patched.status, 200);
        await patched.body?.cancel();
        const after = await server.generate(other.key, full_invoice());
        assertEquals(after.status, 200);
        await after.arrayBuffer();
      },
    );
  } finally {
    await server.close();
  }
});

Deno.test("admin API: token, validation and paths", async (t) => {
  const server = await start_test_server();
  try {
    await t.step("wrong or missing admin token is 401", async () => {
      for (
        const authorization of [undefined, "Bearer wrong-token-wrong-token"]
      ) {
        const response = await fetch(`${server.url}/admin/accounts`, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            ...(authorization ? { Authorization: authorization } : {}),
          },
          body: JSON.stringify({ email: "a@example.com", plan: "pro" }),
        });
        assertEquals(response.status, 401);
        assertEquals(await code_of(response), "unauthorized");
      }
    });

    await t.step(
      "create validates its body and answers 201 with the account",
      async () => {
        const bad = await server.admin("/admin/accounts", {
          body: { email: "nope", plan: "gold" },
        });
        assertEquals(bad.status, 400);
        const body = await bad.json();
        assertEquals(body.error.code, "invalid_request");
        assertEquals(
          body.error.details.map((d: { path: string }) => d.path).sort(),
          ["email", "plan"],
        );
        const created = await server.admin("/admin/accounts", {
          body: { email: "Owner@Example.com", name: "Owner", plan: "pro" },
        });
        assertEquals(created.status, 201);
        const account = await created.json();
        assertEquals(account.email, "owner@example.com");
        assertEquals(account.plan, "pro");
        assertEquals(account.subscription_status, "active");
        const duplicate = await server.admin("/admin/accounts", {
          body: { email: "owner@example.com", plan: "pro" },
        });
        assertEquals(duplicate.status, 409);
        assertEquals(await code_of(duplicate), "conflict");
        const fetched = await server.admin(`/admin/accounts/${account.id}`);
        const with_usage = await fetched.json();
        assertEquals(with_usage.usage.used, 0);
        assertEquals(with_usage.usage.limit, 1000);
      },
    );

    await t.step(
      "unknown or malformed ids are 404 / 400, never 500",
      async () => {
        const missing = await server.admin(
          `/admin/accounts/${crypto.randomUUID()}`,
        );
        assertEquals(missing.status, 404);
        await missing.body?.cancel();
        const malformed = await server.admin("/admin/accounts/not-a-uuid");
        assertEquals(malformed.status, 400);
        await malformed.body?.cancel();
        const key_name = await server.admin(
          `/admin/accounts/${crypto.randomUUID()}/keys`,
          { body: { name: "" } },
        );
        assertEquals(key_name.status, 400);
        await key_name.body?.cancel();
      },
    );
  } finally {
    await server.close();
  }
  const disabled = await start_test_server({ env: { ADMIN_TOKEN: "" } });
  try {
    const response = await fetch(
      `${disabled.url}/admin/accounts/${crypto.randomUUID()}`,
      {
        headers: { Authorization: "Bearer anything-at-all-here" },
      },
    );
    assertEquals(response.status, 404);
    assertMatch((await response.json()).error.message, /disabled/);
  } finally {
    await disabled.close();
  }
});

Deno.test("rate limit per account per minute", async () => {
  let now = new Date("2026-11-23T10:00:10Z");
  const server = await start_test_server({
    env: { RATE_LIMIT_PER_MINUTE: "3" },
    now: () => now,
  });
  try {
    const { key, account_id } = await server.create_account();
    const second_key =
      await (await server.admin(`/admin/accounts/${account_id}/keys`, {
        body: { name: "Second" },
      })).json();
    const first = await server.generate(key, full_invoice());
    assertEquals(first.status, 200);
    assertEquals(first.headers.get("ratelimit-limit"), "3");
    assertEquals(first.headers.get("ratelimit-remaining"), "2");
    // Seconds until the whole limit is free again (sliding window): this
    // minute's request weighs until the end of the next minute.
    assertEquals(first.headers.get("ratelimit-reset"), "110");
    await first.arrayBuffer();
    // Invalid bodies count too, and all keys of the account share the limit.
    const invalid = await server.generate(second_key.key, { nope: true });
    assertEquals(invalid.status, 400);
    assertEquals(invalid.headers.get("ratelimit-remaining"), "1");
    await invalid.body?.cancel();
    const third = await server.generate(second_key.key, full_invoice());
    assertEquals(third.status, 200);
    await third.arrayBuffer();
    const limited = await server.generate(key, full_invoice());
    assertEquals(limited.status, 429);
    // Three counted in 10:00: one of them has aged out of the sliding window
    // a third of the way into 10:01, 70 s from now.
    assertEquals(limited.headers.get("retry-after"), "70");
    assertEquals(limited.headers.get("ratelimit-reset"), "70");
    assertEquals(limited.headers.get("ratelimit-remaining"), "0");
    const body = await limited.json();
    assertEquals(body.error.code, "rate_limited");
    assertMatch(body.error.message, /retry in 70 seconds/);
    // Another account is not affected.
    const other = await server.create_account();
    const other_response = await server.generate(other.key, full_invoice());
    assertEquals(other_response.status, 200);
    await other_response.arrayBuffer();
    // No fresh start at the minute boundary: the window slides.
    now = new Date("2026-11-23T10:01:00Z");
    const boundary = await server.generate(key, full_invoice());
    assertEquals(boundary.status, 429);
    assertEquals(boundary.headers.get("retry-after"), "20");
    await boundary.body?.cancel();
    now = new Date("2026-11-23T10:01:20Z");
    const next = await server.generate(key, full_invoice());
    assertEquals(next.status, 200);
    await next.arrayBuffer();
  } finally {
    await server.close();
  }
});

Deno.test("monthly quota: exact limit, replay, upgrade, rollover, failed renders", async (t) => {
  let now = new Date("2026-11-30T23:59:00Z");
  let fail_render_for: string | undefined;
  const { render_invoice_pdf } = await import("../../server/pdf/mod.ts");
  const server = await start_test_server({
    env: { RATE_LIMIT_PER_MINUTE: "100000" },
    now: () => now,
    render_document: (invoice) => {
      if (invoice.invoice_number === fail_render_for) {
        return Promise.reject(new Error("renderer crashed"));
      }
      return Promise.resolve(render_invoice_pdf(invoice));
    },
  });
  try {
    const { key, account_id } = await server.create_account({
      plan: "starter",
    });

    await t.step("Starter allows exactly 150 invoices a month", async () => {
      for (let n = 1; n <= 150; n++) {
        const response = await server.generate(key, numbered_invoice(n));
        assertEquals(response.status, 200, `invoice ${n}`);
        if (n === 150) {
          assertEquals(response.headers.get("x-quota-remaining"), "0");
        }
        await response.arrayBuffer();
      }
      const over = await server.generate(key, numbered_invoice(151));
      assertEquals(over.status, 403);
      const body = await over.json();
      assertEquals(body.error.code, "quota_exceeded");
      assertMatch(body.error.message, /150 invoices/);
      assertMatch(body.error.message, /resets on 2026-12-01/);
      assertEquals(await usage_of(server, account_id), 150);
    });

    await t.step(
      "an identical retry returns the same PDF and is free, even when used up",
      async () => {
        const first = await server.generate(key, numbered_invoice(7));
        assertEquals(first.status, 200);
        assertEquals(first.headers.get("idempotent-replayed"), "true");
        const again = await server.generate(key, numbered_invoice(7));
        assertEquals(
          new Uint8Array(await first.arrayBuffer()),
          new Uint8Array(await again.arrayBuffer()),
        );
        assertEquals(await usage_of(server, account_id), 150);
      },
    );

    await t.step("an upgrade raises the limit at once", async () => {
      const patched = await server.admin(`/admin/accounts/${account_id}`, {
        method: "PATCH",
        body: { plan: "pro" },
      });
      assertEquals(patched.status, 200);
      assertEquals((await patched.json()).usage.limit, 1000);
      const response = await server.generate(key, numbered_invoice(151));
      assertEquals(response.status, 200);
      assertEquals(
        response.headers.get("x-quota-remaining"),
        String(1000 - 151),
      );
      await response.arrayBuffer();
    });

    await t.step("a render that fails does not consume quota", async () => {
      fail_render_for = "Q-999";
      const response = await server.generate(key, numbered_invoice(999));
      assertEquals(response.status, 500);
      const body = await response.json();
      assertEquals(body.error.code, "internal");
      assert(
        !JSON.stringify(body).includes("renderer crashed"),
        "internal details must not leak",
      );
      assertEquals(await usage_of(server, account_id), 151);
      fail_render_for = undefined;
      const retry = await server.generate(key, numbered_invoice(999));
      assertEquals(retry.status, 200);
      await retry.arrayBuffer();
      assertEquals(await usage_of(server, account_id), 152);
    });

    await t.step("the quota resets on the 1st (UTC)", async () => {
      await server.admin(`/admin/accounts/${account_id}`, {
        method: "PATCH",
        body: { plan: "starter" },
      }).then((r) => r.body?.cancel());
      now = new Date("2026-12-01T00:00:05Z");
      assertEquals(await usage_of(server, account_id), 0);
      const response = await server.generate(key, numbered_invoice(1));
      assertEquals(response.status, 200);
      assertEquals(response.headers.get("x-quota-remaining"), "149");
      assertEquals(response.headers.get("x-quota-reset"), "2027-01-01");
      await response.arrayBuffer();
    });
  } finally {
    await server.close();
  }
});
