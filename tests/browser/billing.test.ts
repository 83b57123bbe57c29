/**
 * Upgrading by oneself, in Debian's Chromium: a Starter account with its
 * month used up clicks Pro, pays on the (stand-in) Stripe Checkout page,
 * comes back, the webhook lands, and the Usage page shows Pro and 1,000 while
 * `/generate` works past 150. Screenshots go to tests/artifacts/dashboard/.
 */
import { assertEquals, assertMatch } from "../assert.ts";
import { launch_browser, screenshot_both } from "../helpers/browser.ts";
import { start_test_server } from "../helpers/test_server.ts";
import {
  sign_event,
  start_stripe_stand_in,
  stripe_env,
} from "../helpers/stripe_stand_in.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { sign_in_browser, use_invoices } from "../helpers/accounts.ts";

Deno.test({
  name:
    "billing in a real browser: Starter → Pro through Checkout and the webhook; the limit rises at once",
  // playwright-core keeps its own pipes and timers open between steps.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const stand_in = await start_stripe_stand_in();
    const server = await start_test_server({ env: stripe_env(stand_in.url) });
    const browser = await launch_browser();
    const { page } = browser;
    try {
      const { account_id, key } = await server.create_account({
        plan: "starter",
      });
      const now = new Date();
      await use_invoices(server, account_id, { count: 150, limit: 150 });
      await sign_in_browser(browser, server, account_id);

      await t.step("the Usage page offers the plans as buttons", async () => {
        await page.goto(`${server.url}/dashboard/usage`);
        await page.getByRole("button", { name: "Current plan" }).waitFor();
        assertEquals(
          await page.locator("[data-current-plan]").innerText(),
          "Starter",
        );
        await screenshot_both(page, "billing-01-usage-starter");
      });

      await t.step(
        "Choose Pro → Checkout → back on the Usage page",
        async () => {
          await page.getByRole("button", { name: "Choose Pro" }).click();
          await page.waitForURL("**/dashboard/usage?billing=success**");
          await page.getByText("Payment received").waitFor();
          await screenshot_both(page, "billing-02-waiting-for-stripe");
        },
      );

      await t.step(
        "the webhook lands; the page shows Pro and 1,000",
        async () => {
          const [checkout] = stand_in.calls_to("POST", "/v1/checkout/sessions");
          assertEquals(checkout.params["line_items[0][price]"], "price_pro");
          assertEquals(checkout.params.client_reference_id, account_id);
          stand_in.subscriptions.set("sub_browser", {
            id: "sub_browser",
            customer: "cus_browser",
            status: "active",
            price: "price_pro",
            current_period_start: Math.floor(now.getTime() / 1000),
            current_period_end: Math.floor(now.getTime() / 1000) + 30 * 86400,
            cancel_at_period_end: false,
            schedule: null,
            metadata: { account_id },
          });
          const delivery = await sign_event({
            id: "evt_browser_checkout",
            type: "checkout.session.completed",
            object: {
              object: "checkout.session",
              mode: "subscription",
              client_reference_id: account_id,
              customer: "cus_browser",
              subscription: "sub_browser",
            },
          });
          const response = await fetch(`${server.url}/billing/stripe/webhook`, {
            method: "POST",
            headers: { "Stripe-Signature": delivery.signature },
            body: delivery.body,
          });
          assertEquals(response.status, 200);
          await response.body?.cancel();
          await page.waitForURL("**/dashboard/usage?billing=updated");
          await page.getByText("Your plan was updated.").waitFor();
          assertEquals(
            await page.locator("[data-current-plan]").innerText(),
            "Pro",
          );
          await page.locator("[data-limit]").filter({ hasText: "1,000" })
            .waitFor();
          await page.getByRole("button", { name: "Manage billing" }).waitFor();
          await screenshot_both(page, "billing-03-usage-pro");
        },
      );

      await t.step("/generate is allowed past 150", async () => {
        const response = await server.generate(key, full_invoice());
        assertEquals(response.status, 200);
        assertEquals(response.headers.get("x-quota-limit"), "1000");
        assertMatch(response.headers.get("content-type") ?? "", /pdf/);
        await response.body?.cancel();
      });
      assertEquals(browser.problems, []);
    } finally {
      await browser.close();
      await server.close();
      await stand_in.close();
    }
  },
});
