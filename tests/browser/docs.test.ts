/**
 * The API reference at `/docs` in Debian's Chromium: rendered from our own
 * files under a CSP without inline scripts, no console errors or CSP
 * violations, no horizontal scrolling at phone width; screenshots go to
 * tests/artifacts/dashboard/.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import {
  launch_browser,
  screenshot_both,
  VIEWPORTS,
} from "../helpers/browser.ts";
import { start_test_server } from "../helpers/test_server.ts";

Deno.test("/docs is served from our own files with a strict CSP", async () => {
  const server = await start_test_server();
  try {
    const page = await fetch(`${server.url}/docs`);
    assertEquals(page.status, 200);
    const csp = page.headers.get("content-security-policy")!;
    assertMatch(csp, /script-src 'self'(;|$)/);
    assert(!csp.includes("unsafe-inline"), csp);
    assert(!csp.includes("unsafe-eval"), csp);
    const html = await page.text();
    // No script or style from anywhere else, no inline script.
    assert(!/(src|href)="(https?:)?\/\//.test(html), "an off-site reference");
    assert(!/<script>/.test(html), "an inline script");
    for (const file of ["/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css"]) {
      const response = await fetch(`${server.url}${file}`);
      assertEquals(response.status, 200, file);
      assert((await response.arrayBuffer()).byteLength > 100_000, file);
    }
    const post = await fetch(`${server.url}/docs`, { method: "POST" });
    assertEquals(post.status, 405);
    assertEquals(post.headers.get("allow"), "GET, HEAD");
    await post.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test({
  name:
    "/docs in a real browser: every operation listed, no console errors, fits a phone",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const server = await start_test_server();
    const browser = await launch_browser();
    const { page } = browser;
    try {
      await page.goto(`${server.url}/docs`);
      await page.locator(".opblock").first().waitFor({ timeout: 60_000 });
      const operations = await page.locator(".opblock").count();
      const document = await (await fetch(`${server.url}/openapi.json`))
        .json();
      const expected = Object.values(
        document.paths as Record<string, object>,
      ).reduce((sum, item) => sum + Object.keys(item).length, 0);
      assertEquals(operations, expected);
      // Open POST /generate: its example request and the PDF answer show.
      await page.locator(".opblock-post", { hasText: "/generate" }).first()
        .locator(".opblock-summary").click();
      await page.getByText("INV-2026-0001").first().waitFor();
      // The API is titled Ink; the file name's placeholder is shown as text.
      assertMatch(
        await page.locator(".info .title").first().innerText(),
        /^Ink\b/,
      );
      const generate = await page.locator(".opblock-post", {
        hasText: "/generate",
      }).first().innerText();
      assert(
        generate.includes('filename="invoice-<number>.pdf"'),
        "the Content-Disposition header shows invoice-<number>.pdf",
      );
      await screenshot_both(page, "20-api-reference");
      await page.setViewportSize(VIEWPORTS.phone);
      const overflow = await page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
      ) as number;
      assert(overflow <= 1, `scrolls sideways by ${overflow}px at phone width`);
      assertEquals(browser.problems, []);
    } finally {
      await browser.close();
      await server.close();
    }
  },
});
