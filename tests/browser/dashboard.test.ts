/**
 * The dashboard end to end in Debian's Chromium: sign up, generate a key
 * (shown once), use it, see the usage, try the renderer, revoke the key,
 * sign out, reset the password from the mailed link (a real SMTP server on
 * loopback receives the verification and reset mails). A second test walks
 * what a new user trips on: the HTML 404, the skip link, each kind
 * of Try it problem, a replayed request, the kept draft, and the Usage page
 * empty and broken down by key. Screenshots of every page, at desktop and
 * phone width, go to tests/artifacts/dashboard/.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import type { Page } from "playwright-core";
import { sql } from "drizzle-orm";
import {
  assert_signed_in_as,
  launch_browser,
  screenshot_both,
  show_pdf,
  type TestBrowser,
  VIEWPORTS,
} from "../helpers/browser.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { set_email_verified } from "../../db/mod.ts";
import { query_rows } from "../../db/_util.ts";
import { link_in, start_smtp_sink } from "../helpers/smtp_sink.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { EXAMPLE_INVOICE } from "../../server/example_invoice.ts";

const PASSWORD = "correct horse battery staple";

/** What Try it starts from: the server's example invoice, dated today (UTC), due 30 days later. */
function example_dated_today(): Record<string, unknown> {
  const today = new Date();
  const day = (date: Date) => date.toISOString().slice(0, 10);
  return {
    ...EXAMPLE_INVOICE,
    invoice_number: `INV-${today.getUTCFullYear()}-0001`,
    date: day(today),
    due_date: day(new Date(today.getTime() + 30 * 86_400_000)),
  };
}

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
          // The answer is the same for a taken address: check the inbox,
          // then sign in with the password just chosen.
          await page.locator("[data-form-done]").waitFor();
          assertMatch(
            await page.locator("[data-form-done]").innerText(),
            /Check your inbox/,
          );
          assertEquals(new URL(page.url()).pathname, "/signup");
          await screenshot_both(page, "02b-signup-check-inbox");
          await page.getByRole("button", { name: "Sign in" }).click();
          await page.waitForURL("**/dashboard/keys");
          await page.getByText("No API keys yet").waitFor();
          await assert_signed_in_as(page, email);
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
          const example = await page.locator("[data-editor]").inputValue();
          assertEquals(JSON.parse(example), example_dated_today());
          const invoice = JSON.parse(example);
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
          await assert_signed_in_as(page, email);
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

/** Signs up and in over tRPC and hands the session cookie to the browser. */
async function signed_up_browser(
  server: TestServer,
  browser: TestBrowser,
): Promise<{ account_id: string; email: string }> {
  const email = `try-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const response = await fetch(`${server.url}/trpc/auth.sign_up`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  assertEquals(response.status, 200);
  await response.body?.cancel();
  // Sign-up starts no session; signing in with the new password does.
  const signed_in = await fetch(`${server.url}/trpc/auth.sign_in`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  assertEquals(signed_in.status, 200);
  const account_id = (await signed_in.json()).result.data.account.id;
  const value = /session=([^;]*)/.exec(
    signed_in.headers.get("set-cookie") ?? "",
  )?.[1];
  assert(value, "no session cookie");
  await browser.context.addCookies([{
    name: "session",
    value,
    url: server.url,
  }]);
  // Live keys need a confirmed address; the mail itself is tested above.
  await set_email_verified(server.test_database.database, account_id);
  return { account_id, email };
}

async function new_key(
  server: TestServer,
  account_id: string,
  name: string,
): Promise<{ id: string; key: string }> {
  const response = await server.admin(`/admin/accounts/${account_id}/keys`, {
    body: { name },
  });
  assertEquals(response.status, 201);
  return await response.json();
}

/** The editor's text and selection. */
function editor_state(page: Page): Promise<
  { value: string; start: number; end: number; focused: boolean }
> {
  return page.locator("[data-editor]").evaluate((element) => {
    const editor = element as unknown as {
      value: string;
      selectionStart: number;
      selectionEnd: number;
      ownerDocument: { activeElement: unknown };
    };
    return {
      value: editor.value,
      start: editor.selectionStart,
      end: editor.selectionEnd,
      focused: editor.ownerDocument.activeElement === element,
    };
  });
}

/**
 * Waits until `expression` is true in the page. (waitForFunction would
 * evaluate it with eval, which the dashboard's CSP rightly refuses.)
 */
async function wait_until(page: Page, expression: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out: ${expression}`);
    await page.waitForTimeout(100);
  }
}

/** Fills the API key field and clicks Generate PDF. */
async function render_with_key(page: Page, key: string): Promise<void> {
  await page.getByRole("textbox", { name: "API key" }).fill(key);
  await page.getByRole("button", { name: "Generate PDF" }).click();
}

Deno.test({
  name:
    "dashboard in a real browser: HTML 404, skip link, Try it error kinds, replay, draft, usage empty and by key",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    // A low rate limit, so a 429 is quick to reach (the last step); the
    // steps before it stay under it.
    const server = await start_test_server({
      env: { RATE_LIMIT_PER_MINUTE: "12" },
    });
    const browser = await launch_browser();
    const { page } = browser;
    const errors = page.locator("[data-errors]");
    try {
      await t.step(
        "an unknown dashboard address: the HTML 404 page",
        async () => {
          const response = await page.goto(`${server.url}/dashboard/nope`);
          assertEquals(response?.status(), 404);
          await page.getByRole("heading", { name: "Page not found" }).waitFor();
          await page.getByRole("link", { name: "Go to the dashboard" })
            .waitFor();
          await screenshot_both(page, "20-not-found");
        },
      );

      await t.step(
        "the skip link: first on Tab, visible, jumps to the content",
        async () => {
          const skip = page.getByRole("link", { name: "Skip to content" });
          // Out of sight until focused.
          const hidden_box = await skip.boundingBox();
          assert(hidden_box && hidden_box.y + hidden_box.height <= 0);
          await page.keyboard.press("Tab");
          assert(
            await page.evaluate(
              "document.activeElement?.textContent === 'Skip to content'",
            ),
          );
          const box = await skip.boundingBox();
          assert(box && box.y >= 0 && box.height > 0, "visible on focus");
          await screenshot_both(page, "21-skip-link", {
            full_page: false,
            before_each: () => skip.focus(),
          });
          await page.keyboard.press("Enter");
          assertEquals(
            await page.evaluate("document.activeElement.id"),
            "main",
          );
        },
      );

      const { account_id } = await signed_up_browser(server, browser);
      const production = await new_key(server, account_id, "Production");

      await t.step(
        "usage before the first invoice: the empty state",
        async () => {
          await page.goto(`${server.url}/dashboard/usage`);
          await page.locator("[data-usage][aria-busy=false]").waitFor();
          const empty = page.locator("[data-chart-empty]");
          assertMatch(await empty.innerText(), /No invoices yet this month/);
          assertEquals(
            await empty.getByRole("link", { name: "Get an API key" })
              .getAttribute("href"),
            "/dashboard/keys",
          );
          assertEquals(
            await page.locator("[data-chart-values]").isHidden(),
            true,
          );
          const row = page.locator("[data-by-key] tr");
          assertEquals(await row.count(), 1);
          assertMatch(
            await row.innerText(),
            /Production[\s\S]*Active[\s\S]*0 invoices/,
          );
          // The skip link is on the app layout too.
          await page.keyboard.press("Tab");
          assertEquals(
            await page.evaluate("document.activeElement.textContent"),
            "Skip to content",
          );
          await page.locator("body").click({ position: { x: 5, y: 400 } });
          await screenshot_both(page, "22-usage-empty");
        },
      );

      await t.step(
        "try it: a JSON syntax error names the line and puts the caret there",
        async () => {
          await page.goto(`${server.url}/dashboard/try`);
          const editor = page.locator("[data-editor]");
          const example = await editor.inputValue();
          const broken = example.replace(
            '"currency": "USD",',
            '"currency": "USD"',
          );
          assert(broken !== example);
          await editor.fill(broken);
          await page.getByRole("button", { name: "Render PDF" }).click();
          await errors.waitFor();
          assertEquals(await errors.getAttribute("data-kind"), "json");
          const offset = broken.indexOf('"sender"');
          const line = broken.slice(0, offset).split("\n").length;
          const column = offset - broken.lastIndexOf("\n", offset - 1);
          assertMatch(
            await errors.innerText(),
            new RegExp(`line ${line}, column ${column}`),
          );
          const state = await editor_state(page);
          assertEquals([state.start, state.end, state.focused], [
            offset,
            offset,
            true,
          ]);
          // The line is highlighted behind the text.
          assertEquals(
            (await page.locator("[data-editor-marks] mark").innerText()).trim(),
            '"sender": {',
          );
          await screenshot_both(page, "23-try-json-syntax");
        },
      );

      await t.step(
        "try it: field errors are listed with their lines and highlighted",
        async () => {
          await page.getByRole("button", { name: "Reset example" }).click();
          const editor = page.locator("[data-editor]");
          const invoice = JSON.parse(await editor.inputValue());
          invoice.items[1].amount = 301;
          invoice.currency = "XYZ";
          await editor.fill(JSON.stringify(invoice, null, 2));
          await page.getByRole("button", { name: "Render PDF" }).click();
          await errors.waitFor();
          assertEquals(await errors.getAttribute("data-kind"), "fields");
          const text = await errors.innerText();
          assertMatch(text, /2 problems with the invoice/);
          assertMatch(text, /items\[1\]\.amount\s+line \d+/);
          assertMatch(text, /currency\s+line \d+/);
          const marked = await page.locator("[data-editor-marks] mark")
            .allInnerTexts();
          assertEquals(marked.sort(), ['"XYZ"', "301"]);
          await screenshot_both(page, "24-try-field-errors");
        },
      );

      await t.step(
        "try it: the draft is kept across a reload; Reset example starts over",
        async () => {
          const editor = page.locator("[data-editor]");
          const draft = (await editor.inputValue()).replace(
            /"invoice_number": "[^"]*"/,
            '"invoice_number": "DRAFT-7"',
          );
          await editor.fill(draft);
          await wait_until(
            page,
            "Object.values(localStorage).some((v) => v.includes('DRAFT-7'))",
          );
          await page.reload();
          await page.locator("[data-draft-note]", { hasText: "from last time" })
            .waitFor();
          assertEquals(await editor.inputValue(), draft);
          await screenshot_both(page, "25-try-draft-restored");
          await page.getByRole("button", { name: "Reset example" }).click();
          assertEquals(
            JSON.parse(await editor.inputValue()),
            example_dated_today(),
          );
          assertEquals(
            await page.evaluate(
              "Object.keys(localStorage).filter((k) => k.startsWith('ink.try.draft.')).length",
            ),
            0,
          );
          await page.reload();
          assert(!(await editor.inputValue()).includes("DRAFT-7"));
        },
      );

      await t.step(
        "try it: an unknown key and a revoked key point to the keys page",
        async () => {
          await page.getByText("One of your API keys").click();
          await render_with_key(page, `ink_live_${"A".repeat(43)}`);
          await errors.waitFor();
          assertEquals(await errors.getAttribute("data-kind"), "key");
          assertMatch(await errors.innerText(), /This API key is not known/);
          assertEquals(
            await errors.getByRole("link", { name: "Go to API keys" })
              .getAttribute("href"),
            "/dashboard/keys",
          );
          await screenshot_both(page, "26-try-unknown-key");

          const revoked = await new_key(server, account_id, "Old laptop");
          const revoke = await server.admin(
            `/admin/keys/${revoked.id}/revoke`,
            {
              method: "POST",
            },
          );
          assertEquals(revoke.status, 200);
          await revoke.body?.cancel();
          await render_with_key(page, revoked.key);
          await errors.locator("h3", { hasText: "was revoked" }).waitFor();
          assertEquals(await errors.getAttribute("data-kind"), "key");
          assertEquals(
            await errors.getByRole("link", { name: "Go to API keys" }).count(),
            1,
          );
          await screenshot_both(page, "27-try-revoked-key");
        },
      );

      await t.step(
        "try it: an identical request again is served free and says so",
        async () => {
          await render_with_key(page, production.key);
          const meta = page.locator("[data-pdf-meta]");
          await meta.filter({ hasText: "counted: 149 of 150 left" }).waitFor();
          await page.getByRole("button", { name: "Generate PDF" }).click();
          await meta.filter({ hasText: "not counted" }).waitFor();
          assertMatch(
            await meta.innerText(),
            /not counted: the same invoice was already generated this month.*149 of 150 left/,
          );
          await screenshot_both(page, "31-try-replayed", {
            before_each: () =>
              show_pdf(
                page,
                () =>
                  page.getByRole("button", { name: "Generate PDF" }).click(),
              ),
          });
        },
      );

      await t.step(
        "usage by key: counts per key, a revoked key kept and marked; values shown on a phone",
        async () => {
          const staging = await new_key(server, account_id, "Staging");
          for (const n of [1, 2]) {
            const response = await server.generate(staging.key, {
              ...full_invoice(),
              invoice_number: `STG-${n}`,
            });
            assertEquals(response.status, 200);
            await response.arrayBuffer();
          }
          const revoke = await server.admin(
            `/admin/keys/${staging.id}/revoke`,
            {
              method: "POST",
            },
          );
          assertEquals(revoke.status, 200);
          await revoke.body?.cancel();
          await page.goto(`${server.url}/dashboard/usage`);
          await page.locator("[data-usage][aria-busy=false]").waitFor();
          assertEquals(await page.locator("[data-used]").innerText(), "3");
          assertEquals(
            await page.locator("[data-chart-empty]").isHidden(),
            true,
          );
          const rows = await page.locator("[data-by-key] tr").allInnerTexts();
          assertEquals(rows.length, 2, rows.join(" | "));
          assertMatch(rows[0], /Staging[\s\S]*Revoked[\s\S]*2 invoices/);
          assertMatch(rows[1], /Production[\s\S]*Active[\s\S]*1 invoice/);
          // "Old laptop" was revoked unused: not in this month's breakdown.
          assert(!rows.join().includes("Old laptop"));
          await page.setViewportSize(VIEWPORTS.phone);
          const values = page.locator("[data-chart-values]");
          await wait_until(
            page,
            "!document.querySelector('[data-chart-values]').classList.contains('visually-hidden')",
          );
          assertMatch(await values.innerText(), /3/);
          await page.setViewportSize(VIEWPORTS.desktop);
          await screenshot_both(page, "32-usage-by-key");
        },
      );

      await t.step(
        "try it: a used-up month leads to the Usage page and the upgrade request",
        async () => {
          await query_rows(
            server.test_database.database,
            sql`update usage_monthly set count = 150
              where account_id = ${account_id}::uuid`,
          );
          await page.goto(`${server.url}/dashboard/try`);
          await page.getByText("One of your API keys").click();
          const editor = page.locator("[data-editor]");
          // A new invoice: the one already charged would be a free replay.
          await editor.fill(
            (await editor.inputValue()).replace(
              /"invoice_number": "[^"]*"/,
              '"invoice_number": "INV-NEW-1"',
            ),
          );
          await render_with_key(page, production.key);
          await errors.locator("h3", { hasText: "used up" }).waitFor();
          assertEquals(await errors.getAttribute("data-kind"), "plan");
          assertEquals(
            await errors.getByRole("link").evaluateAll((anchors) =>
              anchors.map((a) => a.getAttribute("href"))
            ),
            ["/dashboard/usage", "/dashboard/usage#upgrade"],
          );
          await screenshot_both(page, "28-try-quota-used-up");
        },
      );

      await t.step(
        "try it: an inactive subscription, with a key and in the free preview, leads to the Usage page",
        async () => {
          const patch = await server.admin(`/admin/accounts/${account_id}`, {
            method: "PATCH",
            body: { subscription_status: "inactive" },
          });
          assertEquals(patch.status, 200);
          await patch.body?.cancel();
          await page.getByRole("button", { name: "Generate PDF" }).click();
          await errors.locator("h3", { hasText: "inactive" }).waitFor();
          assertEquals(await errors.getAttribute("data-kind"), "plan");
          await page.getByText("Free preview").click();
          await page.getByRole("button", { name: "Render PDF" }).click();
          await errors.locator("h3", { hasText: "inactive" }).waitFor();
          assertEquals(await errors.getAttribute("data-kind"), "plan");
          assertEquals(
            await errors.getByRole("link", { name: "Ask for an upgrade" })
              .getAttribute("href"),
            "/dashboard/usage#upgrade",
          );
          await screenshot_both(page, "29-try-subscription-inactive");
          const reactivate = await server.admin(
            `/admin/accounts/${account_id}`,
            { method: "PATCH", body: { subscription_status: "active" } },
          );
          assertEquals(reactivate.status, 200);
          await reactivate.body?.cancel();
        },
      );

      await t.step("try it: a rate limit says when to retry", async () => {
        // Use up this minute's requests (12, set above) from outside.
        let status = 0;
        for (let n = 0; n < 15 && status !== 429; n++) {
          const response = await server.generate(production.key, {});
          status = response.status;
          await response.body?.cancel();
        }
        assertEquals(status, 429);
        await page.getByText("One of your API keys").click();
        await page.getByRole("button", { name: "Generate PDF" }).click();
        await errors.locator("h3", { hasText: "Too many requests" }).waitFor();
        assertEquals(await errors.getAttribute("data-kind"), "rate");
        assertMatch(
          await errors.locator("[data-retry]").innerText(),
          /^Try again in \d+ seconds? \(at .+\)\. Nothing was counted\.$/,
        );
        await screenshot_both(page, "30-try-rate-limited");
      });

      await t.step("no console errors and no CSP violations", () => {
        assertEquals(browser.problems, []);
      });
    } finally {
      await browser.close();
      await server.close();
    }
  },
});
