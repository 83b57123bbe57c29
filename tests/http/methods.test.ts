/**
 * Methods and bodies a client trips on: action endpoints without a body,
 * `HEAD` and `OPTIONS` on `/generate`, and `Allow` on every 405.
 */
import { assertEquals, assertMatch } from "../assert.ts";
import { start_test_server, TEST_ADMIN_TOKEN } from "../helpers/test_server.ts";

const ADMIN = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

Deno.test("action endpoints without a body, HEAD/OPTIONS on /generate, Allow on 405", async (t) => {
  const server = await start_test_server({
    env: { CORS_ORIGINS: "https://app.example" },
  });
  try {
    const { key_id } = await server.create_account();

    await t.step(
      "a body that is sent is still validated on an action endpoint",
      async () => {
        const unknown_field = await fetch(
          `${server.url}/admin/keys/${key_id}/revoke`,
          {
            method: "POST",
            headers: { ...ADMIN, "Content-Type": "application/json" },
            body: JSON.stringify({ reason: "x" }),
          },
        );
        assertEquals(unknown_field.status, 400);
        assertMatch((await unknown_field.json()).error.message, /reason/);
        const untyped = await fetch(
          `${server.url}/admin/keys/${key_id}/revoke`,
          {
            method: "POST",
            headers: ADMIN,
            body: new TextEncoder().encode("{}"),
          },
        );
        assertEquals(untyped.status, 400);
        assertMatch(
          (await untyped.json()).error.message,
          /Content-Type header is missing/,
        );
        const malformed = await fetch(
          `${server.url}/admin/keys/${key_id}/revoke`,
          {
            method: "POST",
            headers: { ...ADMIN, "Content-Type": "application/json" },
            body: "{nope",
          },
        );
        assertEquals(malformed.status, 400);
        await malformed.body?.cancel();
      },
    );

    await t.step(
      "POST /admin/keys/{id}/revoke with no body and no Content-Type",
      async () => {
        const revoked = await fetch(
          `${server.url}/admin/keys/${key_id}/revoke`,
          { method: "POST", headers: ADMIN },
        );
        assertEquals(revoked.status, 200);
        assertEquals((await revoked.json()).status, "revoked");
        const declared_empty = await fetch(
          `${server.url}/admin/keys/${key_id}/revoke`,
          { method: "POST", headers: { ...ADMIN, "Content-Length": "0" } },
        );
        assertEquals(declared_empty.status, 200);
        await declared_empty.body?.cancel();
      },
    );

    await t.step(
      "an endpoint that needs a body names the missing field",
      async () => {
        const response = await fetch(`${server.url}/admin/accounts`, {
          method: "POST",
          headers: ADMIN,
        });
        assertEquals(response.status, 400);
        const body = await response.json();
        assertEquals(body.error.code, "invalid_request");
        assertMatch(JSON.stringify(body.error), /email/);
      },
    );

    await t.step("OPTIONS /generate is 204 with Allow", async () => {
      const response = await fetch(`${server.url}/generate`, {
        method: "OPTIONS",
      });
      assertEquals(response.status, 204);
      assertEquals(response.headers.get("allow"), "POST, OPTIONS");
      await response.body?.cancel();
    });

    await t.step("a CORS preflight is answered", async () => {
      const response = await fetch(`${server.url}/generate`, {
        method: "OPTIONS",
        headers: {
          Origin: "https://app.example",
          "Access-Control-Request-Method": "POST",
        },
      });
      assertEquals(response.status, 204);
      assertEquals(
        response.headers.get("access-control-allow-origin"),
        "https://app.example",
      );
      assertMatch(
        response.headers.get("access-control-allow-methods")!,
        /POST/,
      );
      await response.body?.cancel();
    });

    await t.step("HEAD and GET /generate are 405 with Allow", async () => {
      for (const method of ["HEAD", "GET", "PUT", "DELETE"]) {
        const response = await fetch(`${server.url}/generate`, { method });
        assertEquals(response.status, 405, method);
        assertEquals(response.headers.get("allow"), "POST, OPTIONS", method);
        if (method !== "HEAD") {
          assertEquals(
            (await response.json()).error.code,
            "method_not_allowed",
          );
        } else await response.body?.cancel();
      }
    });

    await t.step(
      "a REST path with the wrong method is 405 with Allow",
      async () => {
        const response = await fetch(
          `${server.url}/admin/keys/${key_id}/revoke`,
          { headers: ADMIN },
        );
        assertEquals(response.status, 405);
        assertEquals(response.headers.get("allow"), "POST");
        assertEquals((await response.json()).error.code, "method_not_allowed");
        const account = await fetch(`${server.url}/admin/accounts/abc`, {
          method: "DELETE",
          headers: ADMIN,
        });
        assertEquals(account.status, 405);
        assertEquals(account.headers.get("allow"), "GET, PATCH");
        await account.body?.cancel();
        const missing = await fetch(`${server.url}/admin/nothing-here`, {
          headers: ADMIN,
        });
        assertEquals(missing.status, 404);
        await missing.body?.cancel();
      },
    );

    await t.step("tRPC and webhook 405s carry Allow", async () => {
      const mutation = await fetch(`${server.url}/trpc/auth.sign_in`);
      assertEquals(mutation.status, 405);
      assertEquals(mutation.headers.get("allow"), "POST");
      await mutation.body?.cancel();
      const page = await fetch(`${server.url}/dashboard`, { method: "POST" });
      assertEquals(page.status, 405);
      assertEquals(page.headers.get("allow"), "GET, HEAD");
      await page.body?.cancel();
    });
  } finally {
    await server.close();
  }
});
