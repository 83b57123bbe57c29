/**
 * Every dashboard page, both layouts and the HTML 404 included, starts with
 * a "Skip to content" link to the page's main landmark.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import {
  NOT_FOUND_KEY,
  PAGES,
  render_pages,
} from "../../server/dashboard/pages.ts";

Deno.test("every dashboard page starts with a skip link to its main content", async () => {
  const pages = await render_pages(
    new URL("../../server/dashboard/pages/", import.meta.url),
    {
      signup: { enabled: true, plan: "starter", subscription_status: "active" },
    },
  );
  assertEquals(
    [...pages.keys()].sort(),
    [...Object.keys(PAGES), NOT_FOUND_KEY].sort(),
  );
  for (const [path, page] of pages) {
    const body = /<body[^>]*>\s*([\s\S]*)<\/body>/.exec(page.html)?.[1];
    assert(body, path);
    // The first thing in the body, so it is the first stop of Tab.
    assertMatch(
      body,
      /^<a class="skip-link" href="#main">Skip to content<\/a>/,
      path,
    );
    assertEquals(
      page.html.match(/<main [^>]*\bid="main"[^>]*>/g)?.length,
      1,
      `${path}: one main landmark with id="main"`,
    );
    assertMatch(page.html, /<main [^>]*tabindex="-1"/, path);
  }
});
