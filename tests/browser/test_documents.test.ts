/**
 * The Usage page shows the month's test documents against their cap
 * ("used / 1,000 test documents this month"), and says when they are used
 * up, in Debian's Chromium. Screenshots go to
 * tests/artifacts/dashboard/test-documents-*.png.
 */
import { assertEquals, assertMatch } from "../assert.ts";
import { sql } from "drizzle-orm";
import { launch_browser, screenshot_both } from "../helpers/browser.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { sign_in_browser } from "../helpers/accounts.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { query_rows } from "../../db/_util.ts";
import { TEST_DOCUMENTS_PER_MONTH } from "../../contract/mod.ts";
import { month_of } from "../../server/services/calendar.ts";

Deno.test({
  name:
    "usage page: test documents used / 1,000 this month, and when they are used up",
  // playwright-core keeps its own pipes and timers open between steps.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const server = await start_test_server();
    const browser = await launch_browser();
    const { page } = browser;
    try {
      const { account_id } = await server.create_account({ plan: "pro" });
      const created = await server.admin(
        `/admin/accounts/${account_id}/keys`,
        { body: { name: "CI", mode: "test" } },
      );
      const test_key = (await created.json()).key;
      for (const number of ["T-1", "T-2"]) {
        const response = await server.generate(test_key, {
          ...full_invoice(),
          invoice_number: number,
        });
        assertEquals(response.status, 200);
        await response.arrayBuffer();
      }
      await sign_in_browser(browser, server, account_id);

      await t.step("2 / 1,000 test documents this month", async () => {
        await page.goto(`${server.url}/dashboard/usage`);
        await page.locator("[data-usage][aria-busy=false]").waitFor();
        const line = await page.locator("[data-test-calls]").innerText();
        assertMatch(line, /^2 \/ 1,000 test documents this month\./);
        assertMatch(line, /not counted against the plan/);
        const row = await page.locator("[data-by-key] tr", { hasText: "CI" })
          .innerText();
        assertMatch(row, /2 test documents/);
        await screenshot_both(page, "test-documents-2");
      });

      await t.step("used up: the page says test keys answer 403", async () => {
        await query_rows(
          server.test_database.database,
          sql`update usage_monthly set test_count = ${TEST_DOCUMENTS_PER_MONTH}
            where account_id = ${account_id}::uuid
              and month = ${month_of(new Date())}`,
        );
        await page.reload();
        await page.locator("[data-usage][aria-busy=false]").waitFor();
        const line = await page.locator("[data-test-calls]").innerText();
        assertMatch(line, /^1,000 \/ 1,000 test documents this month\./);
        assertMatch(line, /used up: test keys answer 403/);
      });
      assertEquals(browser.problems, []);
    } finally {
      await browser.close();
      await server.close();
    }
  },
});
