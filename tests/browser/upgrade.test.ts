/**
 * Upgrading without billing, in Debian's Chromium: a Starter account at
 * 150/150 follows the Usage page to the "Ask for an upgrade" form, picks Team
 * on its card, writes a message and sends the request; the operator's mail
 * arrives, the page shows the pending request after a reload (no second
 * form), and the operator's PATCH turns it into "granted". Screenshots at
 * desktop and phone width go to tests/artifacts/dashboard/upgrade-*.png.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { launch_browser, screenshot_both } from "../helpers/browser.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { start_smtp_sink } from "../helpers/smtp_sink.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { sign_in_browser, use_invoices } from "../helpers/accounts.ts";

const OPERATOR = "ops@ink.example";
const SUPPORT = "help@ink.example";

Deno.test({
  name:
    "upgrade request in a real browser: Starter at 150/150 asks for Team, sees it pending, then granted",
  // playwright-core keeps its own pipes and timers open between steps.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const smtp = await start_smtp_sink();
    const server = await start_test_server({
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: "Ink <no-reply@ink.example>",
        OPERATOR_EMAIL: OPERATOR,
        SUPPORT_EMAIL: SUPPORT,
      },
    });
    const browser = await launch_browser();
    const { page } = browser;
    try {
      const { account_id, key } = await server.create_account({
        plan: "starter",
      });
      await use_invoices(server, account_id, { count: 150, limit: 150 });
      await sign_in_browser(browser, server, account_id);

      await t.step(
        "the 403 names the page the user is about to use",
        async () => {
          const over = await server.generate(key, full_invoice());
          assertEquals(over.status, 403);
          assertMatch(
            (await over.json()).error.message,
            /\/dashboard\/usage#upgrade/,
          );
        },
      );

      await t.step("the Usage page at 150/150 links to the form", async () => {
        await page.goto(`${server.url}/dashboard/usage`);
        await page.locator("[data-used]").filter({ hasText: "150" }).waitFor();
        const link = page.getByRole("link", { name: "Ask for an upgrade" });
        await link.waitFor();
        assertEquals(
          await page.locator("[data-current-plan]").innerText(),
          "Starter",
        );
        // Starter may ask for Pro or Team, never for Starter.
        await page.getByRole("link", { name: "Ask for Team" }).waitFor();
        await page.getByRole("link", { name: "Ask for Pro" }).waitFor();
        assertEquals(
          await page.getByRole("link", { name: "Ask for Starter" }).count(),
          0,
        );
        assertEquals(
          await page.getByRole("link", { name: `E-mail ${SUPPORT}` }).count(),
          1,
        );
        await screenshot_both(page, "upgrade-01-usage-limit-reached");
        await link.click();
        await page.waitForURL("**/dashboard/usage#upgrade");
        assertEquals(
          await page.getByRole("radio").count(),
          2,
          "Pro and Team",
        );
      });

      await t.step(
        "Ask for Team picks Team; the message is typed",
        async () => {
          await page.getByRole("link", { name: "Ask for Team" }).click();
          assert(await page.getByRole("radio", { name: /Team/ }).isChecked());
          await page.getByLabel(/Message to the operator/).fill(
            "We expect about 3,000 invoices in December.",
          );
          await screenshot_both(page, "upgrade-02-form");
        },
      );

      await t.step("Send request: the page says it was sent", async () => {
        await page.getByRole("button", { name: "Send request" }).click();
        const status = page.locator("[data-upgrade-status]");
        await status.filter({ hasText: "Request sent." }).waitFor();
        assertMatch(await status.innerText(), /Team/);
        assertEquals(
          await page.locator("[data-upgrade-form]").isHidden(),
          true,
        );
        await screenshot_both(page, "upgrade-03-sent");
      });

      await t.step(
        "the operator is mailed and the admin API lists it",
        async () => {
          const mail = await smtp.next_for(OPERATOR);
          assertMatch(mail.headers.subject, /asks for Team/);
          assertMatch(mail.text, /about 3,000 invoices in December/);
          const listed = await (await server.admin(
            "/admin/upgrade-requests?status=open",
          )).json();
          assertEquals(listed.requests.length, 1);
          assertEquals(listed.requests[0].account_id, account_id);
          assertEquals(listed.requests[0].requested_plan, "team");
        },
      );

      await t.step(
        "after a reload the pending request shows, not the form",
        async () => {
          await page.reload();
          const status = page.locator("[data-upgrade-status]");
          await status.filter({ hasText: "waiting for the operator" })
            .waitFor();
          assertEquals(
            await page.locator("[data-upgrade-form]").isHidden(),
            true,
          );
          assertEquals(
            await page.getByRole("link", { name: "Ask for Team" }).count(),
            0,
          );
          await screenshot_both(page, "upgrade-04-pending");
        },
      );

      await t.step(
        "the operator's PATCH grants it; the page says so",
        async () => {
          const patched = await server.admin(`/admin/accounts/${account_id}`, {
            method: "PATCH",
            body: { plan: "team" },
          });
          assertEquals(patched.status, 200);
          await patched.body?.cancel();
          await page.reload();
          await page.locator("[data-upgrade-status]").filter({
            hasText: "was granted",
          }).waitFor();
          assertEquals(
            await page.locator("[data-current-plan]").innerText(),
            "Team",
          );
          await page.locator("[data-limit]").filter({ hasText: "10,000" })
            .waitFor();
          await screenshot_both(page, "upgrade-05-granted");
        },
      );
      assertEquals(browser.problems, []);
    } finally {
      await browser.close();
      await server.close();
      await smtp.close();
    }
  },
});
