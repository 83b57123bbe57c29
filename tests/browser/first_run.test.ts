/**
 * The first run of a lone `deno task start` (no SMTP_URL, no billing, no
 * OPERATOR_EMAIL) in Debian's Chromium, as a new user meets it: sign-up
 * says the mail was not sent and where its link is (the server's log, on a
 * line of its own), one "Sign in" action, a banner with "Send a new link"
 * on every page until the address is confirmed, Try it in an XML format
 * (highlighted, downloadable, marked as a test document) with true counting
 * texts for test and live keys, the Usage page's honest texts and a
 * withdrawable upgrade request, the Account page's small things, and tabs
 * that fit a phone. Screenshots at desktop and phone width go to
 * tests/artifacts/dashboard/first-run-*.png.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import type { Page } from "playwright-core";
import {
  assert_signed_in_as,
  launch_browser,
  screenshot_both,
  VIEWPORTS,
} from "../helpers/browser.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { sign_in_browser } from "../helpers/accounts.ts";
import { corpus_request } from "../fixtures/einvoice_corpus.ts";
import {
  LOGGED_LINK_MARK,
  TEST_DOCUMENTS_PER_MONTH,
} from "../../contract/mod.ts";

const PASSWORD = "correct horse battery staple";
const DASHBOARD_PAGES = [
  "/dashboard/keys",
  "/dashboard/usage",
  "/dashboard/try",
  "/dashboard/account",
];

/** Collects what the in-process server writes with console.log meanwhile. */
function capture_log(): { lines: string[]; restore(): void } {
  const lines: string[] = [];
  const original = console.log;
  console.log = (...parts: unknown[]) =>
    lines.push(parts.map(String).join(" "));
  return { lines, restore: () => console.log = original };
}

/** The link of the newest logged mail to `email` (waits up to 10 s). */
async function logged_link(
  lines: string[],
  email: string,
  after = 0,
): Promise<URL> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const line = lines.slice(after).findLast((text) =>
      text.startsWith(LOGGED_LINK_MARK) && text.includes(` for ${email}: `)
    );
    if (line) return new URL(/ open (\S+)$/.exec(line)![1]);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no logged link for ${email}`);
}

/** Waits until the dashboard's script has filled the page from the session. */
async function loaded(page: Page, email: string): Promise<void> {
  await assert_signed_in_as(page, email);
}

/** Paths of the tabs cut off at the current width (not wholly in view). */
async function cut_tabs(page: Page): Promise<string[]> {
  const width = page.viewportSize()!.width;
  const cut: string[] = [];
  for (const tab of await page.locator(".tabs a").all()) {
    const box = await tab.boundingBox();
    if (!box || box.x < 0 || box.x + box.width > width + 0.5) {
      cut.push(await tab.innerText());
    }
  }
  return cut;
}

Deno.test({
  name:
    "first run without SMTP in a real browser: where the link is, the banner, Try it in XML, usage texts, withdraw, small things",
  // playwright-core keeps its own pipes and timers open between steps.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const log = capture_log();
    const server = await start_test_server({
      env: { RENDER_TIMEOUT_MS: "120000" },
    });
    const browser = await launch_browser();
    const { page } = browser;
    const email = `first-${crypto.randomUUID().slice(0, 8)}@example.com`;
    let test_key = "";
    try {
      await t.step(
        "sign-up says the mail was not sent and where the link is; one Sign in",
        async () => {
          await page.goto(`${server.url}/signup`);
          await page.getByLabel("Work e-mail").fill(email);
          await page.getByLabel("Password").fill(PASSWORD);
          await page.getByRole("button", { name: "Create account" }).click();
          const done = page.locator("[data-form-done]");
          await done.waitFor();
          const text = await done.innerText();
          assertMatch(text, /sends no mail \(its SMTP_URL is not set\)/);
          assert(text.includes(LOGGED_LINK_MARK), text);
          assert(!text.includes("Check your inbox"), text);
          const sign_in = page.getByRole("button", { name: "Sign in" })
            .or(page.getByRole("link", { name: "Sign in" }));
          assertEquals(await sign_in.count(), 1, "one Sign in action");
          await screenshot_both(page, "first-run-01-signed-up");
          const link = await logged_link(log.lines, email);
          assertEquals(link.pathname, "/verify-email");
          await page.getByRole("button", { name: "Sign in" }).click();
          await page.waitForURL("**/dashboard/keys");
          await loaded(page, email);
        },
      );

      await t.step(
        "until confirmed, every page has the banner; it sends a new link",
        async () => {
          for (const path of DASHBOARD_PAGES) {
            await page.goto(`${server.url}${path}`);
            await loaded(page, email);
            const banner = page.locator("[data-verify-banner]");
            await banner.waitFor();
            assertMatch(
              await banner.innerText(),
              /Confirm your e-mail address\. This server sends no mail/,
            );
            assert((await banner.innerText()).includes(LOGGED_LINK_MARK));
          }
          await page.goto(`${server.url}/dashboard/keys`);
          await loaded(page, email);
          const before = log.lines.length;
          await page.getByRole("button", { name: "Send a new link" }).click();
          const status = page.locator("[data-verify-status]");
          await status.filter({ hasText: "new confirmation link" }).waitFor();
          assertMatch(await status.innerText(), /written to the server's log/);
          await logged_link(log.lines, email, before);
          await screenshot_both(page, "first-run-02-banner");
        },
      );

      await t.step(
        "a live key needs the confirmed address; the dialog says so in a sentence",
        async () => {
          await page.getByRole("button", { name: "Generate New Key" }).click();
          const dialog = page.locator("dialog[data-create-dialog]");
          await dialog.getByLabel("Key name").fill("Production");
          await dialog.getByRole("button", { name: "Generate" }).click();
          const error = dialog.locator("[data-create-error]");
          await error.waitFor();
          const text = await error.innerText();
          assertMatch(text, /^Confirm your e-mail address/);
          assertMatch(
            text,
            /this server sends no mail, so open the link from the server's log/,
          );
          assert(text.endsWith("."), `no full stop: ${text}`);
          await screenshot_both(page, "first-run-03-live-key-refused", {
            full_page: false,
          });
          await dialog.getByLabel("Test").check();
          await dialog.getByLabel("Key name").fill("CI");
          await dialog.getByRole("button", { name: "Generate" }).click();
          const value = page.locator("[data-new-key-value]");
          await value.filter({ hasText: "ink_test_" }).waitFor();
          test_key = await value.innerText();
          assertMatch(test_key, /^ink_test_/);
          await page.getByRole("button", {
            name: "Done, I have stored it safely",
          })
            .click();
        },
      );

      await t.step("the logged link confirms; the banner goes", async () => {
        const link = await logged_link(log.lines, email);
        await page.goto(link.href);
        await page.getByRole("button", { name: "Confirm my address" }).click();
        await page.locator("[data-form-done]").waitFor();
        await page.goto(`${server.url}/dashboard/keys`);
        await loaded(page, email);
        await page.getByText("Your keys").waitFor();
        assertEquals(
          await page.locator("[data-verify-banner]").isHidden(),
          true,
        );
      });

      await t.step(
        "try it: an XML format previews highlighted, marked, downloadable",
        async () => {
          await page.goto(`${server.url}/dashboard/try`);
          await loaded(page, email);
          const request = corpus_request("standard", 1);
          await page.getByRole("textbox", { name: "Invoice JSON" }).fill(
            JSON.stringify(request, null, 2),
          );
          await page.getByLabel("Output format").selectOption("cii");
          const render = page.getByRole("button", { name: "Render XML" });
          await render.click();
          const view = page.locator("[data-xml-view]");
          await view.waitFor();
          assertEquals(
            await page.locator("[data-result-title]").innerText(),
            "EN 16931, CII (XML)",
          );
          assert(await page.locator(".xml-tag").count() > 20, "highlighted");
          const xml = await view.innerText();
          assert(xml.includes(`TEST-${request.invoice_number}`), "TEST-");
          assert(xml.includes("TEST – not valid for accounting"), "note");
          assert(xml.split("\n").length > 20, "one element a line");
          assertMatch(
            await page.locator("[data-pdf-meta]").innerText(),
            /free preview, not counted; marked as a test document/,
          );
          const download = page.locator("[data-pdf-download]");
          assertMatch(
            (await download.getAttribute("download")) ?? "",
            /\.xml$/,
          );
          assertEquals(await page.getByText("Render PDF").count(), 0);
          await screenshot_both(page, "first-run-04-try-xml");
          // Back to the PDF: the labels follow.
          await page.getByLabel("Output format").selectOption("pdf");
          await page.getByRole("button", { name: "Render PDF" }).waitFor();
        },
      );

      await t.step(
        "try it with keys: true counting texts for test and live keys",
        async () => {
          await page.getByLabel("One of your API keys").check();
          const hint = page.locator("[data-key-hint]");
          await page.getByRole("textbox", { name: "API key" }).fill(test_key);
          const all = TEST_DOCUMENTS_PER_MONTH.toLocaleString("en-US");
          await hint.filter({ hasText: "test documents are not charged" })
            .waitFor();
          assertEquals(
            await hint.innerText(),
            `Test key “CI”: test documents are not charged; ${all} of ${all} test documents left this month.`,
          );
          await page.getByLabel("Output format").selectOption("pdf");
          await page.getByRole("button", { name: "Generate PDF" }).click();
          const meta = page.locator("[data-pdf-meta]");
          await meta.filter({ hasText: "test documents left this month" })
            .waitFor();
          const left = (TEST_DOCUMENTS_PER_MONTH - 1).toLocaleString("en-US");
          assertMatch(
            await meta.innerText(),
            new RegExp(
              `test document: test documents are not charged; ${left} of ${all} test documents left this month`,
            ),
          );
          // Nothing of the plan's invoices: a test key never uses them.
          assert(!/counted:|of 150/.test(await meta.innerText()));
          await screenshot_both(page, "first-run-05-try-test-key");

          // A live key (the address is confirmed now): the plan's count.
          const created = await page.evaluate(`(async () => {
            const session = await (await fetch("/trpc/auth.session")).json();
            const response = await fetch("/trpc/account.create_key", {
              method: "POST",
              headers: {
                "Content-Type": "application/json",
                "X-CSRF-Token": session.result.data.csrf_token,
              },
              body: JSON.stringify({ name: "Production", mode: "live" }),
            });
            return (await response.json()).result.data.key;
          })()`) as string;
          await page.reload();
          await loaded(page, email);
          await page.getByLabel("One of your API keys").check();
          await page.getByRole("textbox", { name: "API key" }).fill(created);
          await hint.filter({ hasText: "Live key" }).waitFor();
          assertEquals(
            await hint.innerText(),
            "Live key “Production”: each render uses one invoice of your plan; 150 of 150 left this month.",
          );
        },
      );

      await t.step(
        "usage without billing: no prices, how plans change, a withdrawable request",
        async () => {
          await page.goto(`${server.url}/dashboard/usage`);
          await loaded(page, email);
          await page.locator("[data-usage][aria-busy=false]").waitFor();
          await page.getByRole("heading", { name: "Invoices per day" })
            .waitFor();
          const plans = page.locator("section", {
            has: page.getByRole("heading", { name: "Plans" }),
          });
          assert(!(await plans.innerText()).includes("$"), "no price shown");
          assertMatch(
            await plans.innerText(),
            /takes no payments online: its operator changes plans on request/,
          );
          assert(!(await plans.innerText()).includes("notified"));
          assertMatch(await plans.innerText(), /mails no notice/);
          assertEquals(
            await page.locator("[data-plan-detail]").innerText(),
            "150 invoices a month",
          );
          await page.getByRole("button", { name: "Send request" }).click();
          const status = page.locator("[data-upgrade-status]");
          await status.filter({ hasText: "Request sent" }).waitFor();
          const withdraw = page.getByRole("button", {
            name: "Withdraw the request",
          });
          await withdraw.waitFor();
          await screenshot_both(page, "first-run-06-usage-pending");
          await withdraw.click();
          await status.filter({ hasText: "was withdrawn" }).waitFor();
          await page.getByRole("button", { name: "Send request" }).waitFor();
          assertEquals(await withdraw.isHidden(), true);
          await page.reload();
          await status.filter({ hasText: "was withdrawn" }).waitFor();
          await screenshot_both(page, "first-run-07-usage-withdrawn");
        },
      );

      await t.step(
        "account: no check marks on what deletion does, no stale confirmation, nobody signed in after deletion",
        async () => {
          await page.goto(`${server.url}/dashboard/account`);
          await loaded(page, email);
          const marks = await page.evaluate(`[...document.querySelectorAll(
            ".danger-zone li")].map((item) =>
              getComputedStyle(item, "::before").content)`) as string[];
          assert(marks.length >= 2);
          assert(marks.every((content) => content === "none"), `${marks}`);
          const form = page.locator(
            "form[data-account-form='auth.change_password']",
          );
          await form.getByLabel("Current password").fill(PASSWORD);
          await form.getByLabel("New password").fill(`${PASSWORD} 2`);
          await form.getByRole("button", { name: "Change password" }).click();
          const done = form.locator("[data-form-done]");
          await done.filter({ hasText: "Password changed" }).waitFor();
          await form.getByLabel("Current password").fill("typing again");
          assertEquals(await done.isHidden(), true, "stale box cleared");

          await page.getByRole("button", { name: "Delete account…" }).click();
          const dialog = page.locator("dialog[data-delete-dialog]");
          await dialog.getByLabel(/^Type/).fill(email);
          await dialog.getByLabel("Password").fill(`${PASSWORD} 2`);
          await dialog.getByRole("button", { name: "Delete my account" })
            .click();
          await page.getByRole("heading", { name: "Your account was deleted" })
            .waitFor();
          const visible = (text: string) =>
            page.getByText(text).filter({ visible: true }).count();
          assertEquals(await visible("Signed in as"), 0);
          assertEquals(await visible(email), 0);
          await screenshot_both(page, "first-run-08-deleted");
        },
      );

      await t.step("phone width: every top tab is whole", async () => {
        const { account_id } = await server.create_account();
        await sign_in_browser(browser, server, account_id);
        for (const [label, size] of Object.entries(VIEWPORTS)) {
          await page.setViewportSize(size);
          await page.goto(`${server.url}/dashboard/try`);
          await page.locator("[data-account-email]").filter({ hasText: "@" })
            .waitFor();
          assertEquals(await cut_tabs(page), [], label);
        }
        await page.setViewportSize({ width: 320, height: 700 });
        assertEquals(await cut_tabs(page), [], "320 px");
        await screenshot_both(page, "first-run-09-tabs", { full_page: false });
      });

      assertEquals(browser.problems, []);
    } finally {
      log.restore();
      await browser.close();
      await server.close();
    }
  },
});
