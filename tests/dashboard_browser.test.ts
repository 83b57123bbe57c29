/**
 * The dashboard end to end in Debian's Chromium: sign up, generate a key
 * (shown once), use it, see the usage, try the renderer, revoke the key,
 * sign out, reset the password from the mailed link (a real SMTP server on
 * loopback receives the verification and reset mails). Screenshots of every page, at desktop and phone width, go to
 * tests/artifacts/dashboard/.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import {
  launch_browser,
  screenshot_both,
  show_pdf,
} from "./helpers/browser.ts";
import { start_test_server } from "./helpers/test_server.ts";
import { link_in, start_smtp_sink } from "./helpers/smtp_sink.ts";
import { full_invoice } from "./fixtures/invoices.ts";

const PASSWORD = "correct horse battery staple";

async function used_this_month(
  admin: (path: string) => Promise<Response>,
  account_id: string,
): Promise<number> {
  const response = await admin(`/admin/accounts/${account_id}`);
  assertEquals(response.status, 200);
  return (await response.json()).usage.used;
}

Deno.test({
  name:
    "dashboard in a real browser: sign up, key shown once, use it, usage, try it, revoke, sign out",
  // playwright-core keeps its own pipes and timers open between steps.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const smtp = await start_smtp_sink();
    const server = await start_test_server({
      env: { SMTP_URL: smtp.url, MAIL_FROM: "Ink <no-reply@ink.test>" },
    });
    const browser = await launch_browser();
    const { page } = browser;
    const email = `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
    let key = "";
    let account_id = "";
    try {
      await browser.context.grantPermissions(
        ["clipboard-read", "clipboard-write"],
        { origin: server.url },
      );

      await t.step("the home page sends a visitor to sign in", async () => {
        await page.goto(`${server.url}/`);
        assertEquals(new URL(page.url()).pathname, "/signin");
        await page.getByRole("heading", { name: "Sign in" }).waitFor();
        await screenshot_both(page, "01-signin");
      });

      await t.step(
        "sign up (a too-short password is refused first)",
        async () => {
          await page.getByRole("link", { name: "Create an account" }).click();
          await page.waitForURL("**/signup");
          await page.getByLabel("Work e-mail").fill(email);
          await page.getByLabel("Password").fill("short");
          await page.getByRole("button", { name: "Create account" }).click();
          await page.locator("[data-form-error]").waitFor();
          assertMatch(
            await page.locator("[data-form-error]").innerText(),
            /at least 10 characters/,
          );
          await screenshot_both(page, "02-signup-error");
          await page.getByLabel("Password").fill(PASSWORD);
          await page.getByRole("button", { name: "Create account" }).click();
          await page.waitForURL("**/dashboard/keys");
          await page.getByText("No API keys yet").waitFor();
          assertEquals(
            await page.locator("[data-account-email]").innerText(),
            email,
          );
          await screenshot_both(page, "03-keys-empty");
        },
      );

      await t.step(
        "confirm the address from the verification mail",
        async () => {
          const link = link_in(await smtp.next_for(email), "/verify-email");
          await page.goto(link.href);
          await page.getByRole("button", { name: "Confirm my address" })
            .click();
          await page.locator("[data-form-done]").waitFor();
          assertMatch(
            await page.locator("[data-form-done]").innerText(),
            /is confirmed/,
          );
          await screenshot_both(page, "03b-email-confirmed");
          await page.goto(`${server.url}/dashboard/keys`);
          await page.getByText("No API keys yet").waitFor();
        },
      );

      await t.step(
        "generate a key: named, shown once with a copy button",
        async () => {
          await page.getByRole("button", { name: "Generate New Key" }).click();
          const dialog = page.locator("dialog[data-create-dialog]");
          await dialog.waitFor();
          await dialog.getByRole("button", { name: "Generate" }).click();
          assertMatch(
            await dialog.locator("[data-create-error]").innerText(),
            /name/,
          );
          await dialog.getByLabel("Key name").fill("Production server");
          assertEquals(
            await dialog.locator("[data-create-error]").isHidden(),
            true,
          );
          await screenshot_both(page, "04-keys-generate-dialog", {
            full_page: false,
          });
          await dialog.getByRole("button", { name: "Generate" }).click();
          const value = page.locator("[data-new-key-value]");
          await value.waitFor();
          key = (await value.innerText()).trim();
          assertMatch(key, /^ink_live_[A-Za-z0-9_-]{43}$/);
          assertMatch(
            await page.locator("[data-new-key]").innerText(),
            /cannot be shown again/,
          );
          await page.getByRole("button", { name: "Copy", exact: true }).click();
          await page.getByRole("button", { name: "Copied ✓" }).waitFor();
          assertEquals(
            await page.evaluate("navigator.clipboard.readText()"),
            key,
          );
          await screenshot_both(page, "05-keys-new-key");
        },
      );

      await t.step(
        "leaving the page loses the key: it is never shown again",
        async () => {
          await page.reload();
          const row = page.locator("tr", { hasText: "Production server" });
          await row.waitFor();
          assertEquals(await page.locator("[data-new-key]").isHidden(), true);
          assert(
            !(await page.content()).includes(key),
            "key still on the page",
          );
          assertEquals(
            (await row.locator("[data-cell=prefix]").innerText()).trim(),
            `${key.slice(0, 17)}…`,
          );
          assertEquals(
            await row.locator("[data-cell=status]").innerText(),
            "Active",
          );
          const listed = await page.evaluate(
            "fetch('/trpc/account.list_keys').then((r) => r.text())",
          );
          assert(
            typeof listed === "string" && !listed.includes(key.slice(17)),
            "the secret must never be listed",
          );
        },
      );

      await t.step("the key works with /generate", async () => {
        const response = await server.generate(key, full_invoice());
        assertEquals(response.status, 200);
        const bytes = new Uint8Array(await response.arrayBuffer());
        assertEquals(new TextDecoder().decode(bytes.subarray(0, 5)), "%PDF-");
        account_id = (await page.evaluate(
          "fetch('/trpc/auth.session').then((r) => r.json())",
        ) as { result: { data: { account: { id: string } } } }).result.data
          .account.id;
      });

      await t.step("the usage page shows 1 invoice this month", async () => {
        await page.getByRole("link", { name: "Usage & plan" }).click();
        await page.waitForURL("**/dashboard/usage");
        await page.locator("[data-usage][aria-busy=false]").waitFor();
        assertEquals(await page.locator("[data-used]").innerText(), "1");
        assertEquals(await page.locator("[data-limit]").innerText(), "150");
        assertEquals(
          await page.locator("[data-current-plan]").innerText(),
          "Starter",
        );
        assertEquals(
          await page.locator(".chart rect.bar, .chart rect.bar-today").count(),
          1,
        );
        await screenshot_both(page, "06-usage");
      });

      await t.step(
        "try it: validation errors are listed with their paths",
        async () => {
          await page.getByRole("link", { name: "Try it" }).click();
          await page.waitForURL("**/dashboard/try");
          const invoice = JSON.parse(
            await page.locator("[data-editor]").inputValue(),
          );
          invoice.items[1].amount = 301;
          delete invoice.bill_to;
          await page.locator("[data-editor]").fill(
            JSON.stringify(invoice, null, 2),
          );
          await page.getByRole("button", { name: "Render PDF" }).click();
          const errors = page.locator("[data-errors]");
          await errors.waitFor();
          const text = await errors.innerText();
          assertMatch(text, /items\[1\]\.amount/);
          assertMatch(text, /must equal quantity × rate = 300\.00/);
          assertMatch(text, /bill_to/);
          await errors.getByRole("button", { name: "items[1].amount" }).click();
          const selected = await page.locator("[data-editor]").evaluate(
            (element) => {
              const editor = element as unknown as {
                value: string;
                selectionStart: number;
                selectionEnd: number;
              };
              return editor.value.slice(
                editor.selectionStart,
                editor.selectionEnd,
              );
            },
          );
          assertEquals(selected, "301");
          await screenshot_both(page, "07-try-errors");
        },
      );

      await t.step(
        "try it: a free preview in the page, not counted",
        async () => {
          await page.getByRole("button", { name: "Reset example" }).click();
          const render = () =>
            page.getByRole("button", { name: "Render PDF" }).click();
          await show_pdf(page, render);
          await page.locator("iframe[data-preview-frame]").waitFor();
          assertMatch(
            await page.locator("[data-pdf-meta]").innerText(),
            /free preview, not counted/,
          );
          const src = await page.locator("iframe[data-preview-frame]")
            .getAttribute("src");
          assertMatch(src ?? "", /^blob:/);
          // Rendered again at each width: the viewer does not repaint on resize.
          await screenshot_both(page, "08-try-preview", {
            before_each: () => show_pdf(page, render),
          });
          assertEquals(await used_this_month(server.admin, account_id), 1);
        },
      );

      await t.step(
        "try it with the API key: a real, counted /generate",
        async () => {
          await page.getByRole("button", { name: "Reset example" }).click();
          await page.getByText("One of your API keys").click();
          await page.getByRole("textbox", { name: "API key" }).fill(key);
          await page.getByText("Key “Production server”").waitFor();
          await page.getByRole("button", { name: "Generate PDF" }).click();
          await page.locator("[data-pdf-meta]", { hasText: "left this month" })
            .waitFor();
          assertMatch(
            await page.locator("[data-pdf-meta]").innerText(),
            /148 of 150 left/,
          );
          assertEquals(await used_this_month(server.admin, account_id), 2);
        },
      );

      await t.step(
        "revoke asks for confirmation; cancel keeps the key",
        async () => {
          await page.getByRole("link", { name: "API Keys" }).click();
          await page.waitForURL("**/dashboard/keys");
          const row = page.locator("tr", { hasText: "Production server" });
          await row.getByRole("button", { name: "Revoke" }).click();
          const dialog = page.locator("dialog[data-revoke-dialog]");
          await dialog.waitFor();
          assertMatch(await dialog.innerText(), /permanent/);
          await screenshot_both(page, "09-keys-revoke-confirm", {
            full_page: false,
          });
          await dialog.getByRole("button", { name: "Cancel" }).click();
          await dialog.waitFor({ state: "hidden" });
          assertEquals(
            await row.locator("[data-cell=status]").innerText(),
            "Active",
          );
          const still = await server.generate(key, {
            ...full_invoice(),
            invoice_number: "STILL-ACTIVE",
          });
          assertEquals(still.status, 200);
          await still.body?.cancel();

          await row.getByRole("button", { name: "Revoke" }).click();
          await dialog.getByRole("button", { name: "Revoke key" }).click();
          await dialog.waitFor({ state: "hidden" });
          await row.locator("[data-cell=status]", { hasText: "Revoked" })
            .waitFor();
          assertEquals(
            await row.getByRole("button", { name: "Revoke" }).count(),
            0,
          );
          await screenshot_both(page, "10-keys-revoked");
        },
      );

      await t.step("the revoked key now gets 403", async () => {
        const response = await server.generate(key, full_invoice());
        assertEquals(response.status, 403);
        assertEquals((await response.json()).error.code, "key_revoked");
      });

      await t.step("sign out ends the session", async () => {
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.waitForURL("**/signin");
        await page.goto(`${server.url}/dashboard/usage`);
        assertEquals(new URL(page.url()).pathname, "/signin");
      });

      await t.step(
        "forgot password: the mailed link sets a new one and signs in",
        async () => {
          await page.goto(`${server.url}/signin`);
          await page.getByRole("link", { name: "Forgot password?" }).click();
          await page.waitForURL("**/forgot-password");
          await page.getByLabel("E-mail").fill(email);
          await page.getByRole("button", { name: "Send reset link" }).click();
          await page.locator("[data-form-done]").waitFor();
          assertMatch(
            await page.locator("[data-form-done]").innerText(),
            /on its way/,
          );
          await screenshot_both(page, "12-forgot-password");
          const link = link_in(await smtp.next_for(email), "/reset-password");
          await page.goto(link.href);
          await page.getByRole("heading", { name: "Choose a new password" })
            .waitFor();
          await screenshot_both(page, "13-reset-password");
          await page.getByLabel("New password").fill("a new passphrase here");
          await page.getByRole("button", { name: "Set password and sign in" })
            .click();
          await page.waitForURL("**/dashboard/keys");
          assertEquals(
            await page.locator("[data-account-email]").innerText(),
            email,
          );
          // The link worked once.
          await page.goto(link.href);
          await page.getByLabel("New password").fill("yet another passphrase");
          await page.getByRole("button", { name: "Set password and sign in" })
            .click();
          await page.locator("[data-form-error]").waitFor();
          assertMatch(
            await page.locator("[data-form-error]").innerText(),
            /invalid, used or expired/,
          );
        },
      );

      await t.step("no console errors and no CSP violations", () => {
        assertEquals(browser.problems, []);
      });
    } finally {
      await browser.close();
      await server.close();
      await smtp.close();
    }
  },
});
