/**
 * A person who follows a bad link gets an HTML page with navigation; API
 * clients keep the JSON error shape; a known page with a trailing slash
 * redirects to the page.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { start_test_server } from "../helpers/test_server.ts";

const BROWSER_ACCEPT =
  "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

Deno.test("unknown addresses: HTML 404 with links for browsers, JSON for API clients; trailing slashes redirect", async () => {
  const server = await start_test_server();
  try {
    for (const path of ["/dashboard/nope", "/no-such-page", "/signup/x"]) {
      const page = await fetch(`${server.url}${path}`, {
        headers: { Accept: BROWSER_ACCEPT },
      });
      assertEquals(page.status, 404, path);
      assertStringIncludes(
        page.headers.get("content-type") ?? "",
        "text/html",
      );
      assert(page.headers.get("content-security-policy"));
      const html = await page.text();
      assertStringIncludes(html, "<h1>Page not found</h1>");
      for (const link of ['href="/"', 'href="/signin"']) {
        assertStringIncludes(html, link);
      }
    }

    const api = await fetch(`${server.url}/dashboard/nope`, {
      headers: { Accept: "application/json" },
    });
    assertEquals(api.status, 404);
    assertEquals((await api.json()).error.code, "not_found");
    const plain = await fetch(`${server.url}/no-such-page`);
    assertEquals(plain.status, 404);
    assertEquals((await plain.json()).error.code, "not_found");
    // The operator API stays JSON even for a browser.
    const admin = await fetch(`${server.url}/admin/nothing`, {
      headers: { Accept: BROWSER_ACCEPT },
    });
    assertEquals(admin.status, 404);
    assertEquals((await admin.json()).error.code, "not_found");

    const slash = await fetch(`${server.url}/signup/?from=ad`, {
      headers: { Accept: BROWSER_ACCEPT },
      redirect: "manual",
    });
    assertEquals(slash.status, 303);
    assertEquals(slash.headers.get("location"), "/signup?from=ad");
    await slash.body?.cancel();
  } finally {
    await server.close();
  }
});
