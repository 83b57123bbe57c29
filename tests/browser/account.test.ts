/**
 * The Account page and the keys page's helpers in Debian's Chromium: a curl
 * example that runs as shown against this server, focus and the "copied"
 * toast around a new key, a warning before leaving while it is shown; then
 * change the password (other sessions end), change the e-mail from the
 * mailed link, and delete the account (its key then answers 401).
 * Screenshots at desktop and phone width go to tests/artifacts/dashboard/.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import {
  assert_signed_in_as,
  launch_browser,
  screenshot_both,
} from "../helpers/browser.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { signed_in_email, test_password_hash } from "../helpers/accounts.ts";
import { link_in, start_smtp_sink } from "../helpers/smtp_sink.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { create_account } from "../../db/mod.ts";

const PASSWORD = "correct horse battery staple";
const NEW_PASSWORD = "a brand new passphrase";

/** A session cookie for `email`, signed in over HTTP (another "device"). */
async function other_device(
  server: TestServer,
  email: string,
  password: string,
): Promise<string> {
  const response = await fetch(`${server.url}/trpc/auth.sign_in`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  assertEquals(response.status, 200);
  await response.body?.cancel();
  return (response.headers.get("set-cookie") ?? "").split(";")[0];
}

Deno.test({
  name:
    "account in a real browser: curl example, new-key focus and warning, change password and e-mail, delete",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const smtp = await start_smtp_sink();
    const server = await start_test_server({
      env: { SMTP_URL: smtp.url, MAIL_FROM: "Ink <no-reply@ink.test>" },
    });
    const browser = await launch_browser();
    const { page } = browser;
    let email = `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
    let key = "";
    try {
      await browser.context.grantPermissions(
        ["clipboard-read", "clipboard-write"],
        { origin: server.url },
      );
      await create_account(server.test_database.database, {
        email,
        plan: "starter",
        password_hash: await test_password_hash(PASSWORD),
      });

      await t.step("sign in; the keys page offers a curl example", async () => {
        await page.goto(`${server.url}/signin`);
        await page.getByLabel("E-mail").fill(email);
        await page.getByLabel("Password").fill(PASSWORD);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.waitForURL("**/dashboard/keys");
        const curl = page.locator("[data-curl]");
        await curl.waitFor();
        const text = await curl.innerText();
        assertMatch(text, new RegExp(`^curl -X POST ${server.url}/generate`));
        assertMatch(text, /Bearer YOUR_API_KEY/);
      });

      await t.step(
        "a new key: focus on it, in the example, warning before leaving",
        async () => {
          await page.getByRole("button", { name: "Generate New Key" }).click();
          const dialog = page.locator("dialog[data-create-dialog]");
          await dialog.getByLabel("Key name").fill("First key");
          await dialog.getByRole("button", { name: "Generate" }).click();
          const value = page.locator("[data-new-key-value]");
          await value.waitFor();
          key = (await value.innerText()).trim();
          assertMatch(key, /^ink_live_[A-Za-z0-9_-]{43}$/);
          // Focus returns to the new key (waited for: it follows the answer).
          await page.waitForFunction(
            "document.activeElement?.hasAttribute('data-new-key-value')",
            undefined,
            { timeout: 5_000 },
          );
          await page.locator("[data-copy-key]").click();
          const toast = page.locator("[data-toast]");
          await toast.getByText("Key copied").waitFor();

          // The example now carries the full key, and runs as shown.
          const example = (await page.locator("[data-curl]").innerText())
            .trim();
          assert(example.includes(`Bearer ${key}`), example);
          const folder = await Deno.makeTempDir();
          try {
            const run = await new Deno.Command("sh", {
              args: ["-c", `${example} -s -w '%{http_code}'`],
              cwd: folder,
              stdout: "piped",
            }).output();
            assertEquals(new TextDecoder().decode(run.stdout), "200");
            const pdf = await Deno.readFile(`${folder}/invoice.pdf`);
            assertEquals(new TextDecoder().decode(pdf.subarray(0, 5)), "%PDF-");
          } finally {
            await Deno.remove(folder, { recursive: true });
          }

          // Leaving now would lose the key: the page asks first.
          const cancelled = () =>
            page.evaluate(
              "(() => { const e = new Event('beforeunload', {cancelable: true}); dispatchEvent(e); return e.defaultPrevented; })()",
            );
          assertEquals(await cancelled(), true);
          const asked = page.waitForEvent("dialog");
          const leaving = page.getByRole("link", { name: "Usage & plan" })
            .click();
          const question = await asked;
          assertEquals(question.type(), "beforeunload");
          await question.dismiss();
          await leaving;
          assertEquals(new URL(page.url()).pathname, "/dashboard/keys");
          await screenshot_both(page, "account-01-keys-new-key-curl");

          // A second key: the "copied" toast was about the first one.
          await page.getByRole("button", { name: "Generate New Key" }).click();
          await dialog.getByLabel("Key name").fill("Second key");
          await dialog.getByRole("button", { name: "Generate" }).click();
          await page.locator("[data-new-key-name]", { hasText: "Second key" })
            .waitFor();
          assertEquals(await toast.isHidden(), true, "toast cleared");
          const second = (await value.innerText()).trim();
          assert(second !== key);
          await page.locator("tr", { hasText: "Second key" }).waitFor();

          await page.getByRole("button", {
            name: "Done, I have stored it safely",
          }).click();
          assertEquals(await cancelled(), false, "nothing left to lose");
          const row = page.locator("tr", { hasText: "First key" });
          assertEquals(
            (await row.locator("[data-cell=prefix]").innerText()).trim(),
            `${key.slice(0, 17)}…`,
            "the prefix and 8 more characters",
          );
          assertMatch(
            await page.locator("[data-curl]").innerText(),
            new RegExp(`Bearer ${second.slice(0, 17)}…`),
          );
          await screenshot_both(page, "account-02-keys-list-curl");
        },
      );

      await t.step(
        "change the password: the wrong current one is refused, other sessions end",
        async () => {
          const laptop = await other_device(server, email, PASSWORD);
          await page.getByRole("link", { name: "Account" }).click();
          await page.waitForURL("**/dashboard/account");
          const form = page.locator(
            "form[data-account-form='auth.change_password']",
          );
          await form.getByLabel("Current password").fill("not my password");
          await form.getByLabel("New password").fill(NEW_PASSWORD);
          await form.getByRole("button", { name: "Change password" }).click();
          const error = form.locator("[data-form-error]");
          await error.waitFor();
          assertMatch(await error.innerText(), /Current password is wrong/);
          assertEquals(
            await form.getByLabel("Current password").getAttribute(
              "aria-invalid",
            ),
            "true",
          );
          await screenshot_both(page, "account-03-password-wrong");
          await form.getByLabel("Current password").fill(PASSWORD);
          await form.getByRole("button", { name: "Change password" }).click();
          const done = form.locator("[data-form-done]");
          await done.waitFor();
          assertMatch(
            await done.innerText(),
            /This browser stays signed in; 1 other session was signed out/,
          );
          await screenshot_both(page, "account-04-password-changed");
          assertEquals(await signed_in_email(server, laptop), null);
        },
      );

      await t.step(
        "change the e-mail: it changes once the mailed link is opened",
        async () => {
          const new_email = `moved-${
            crypto.randomUUID().slice(0, 8)
          }@example.com`;
          const form = page.locator(
            "form[data-account-form='auth.change_email']",
          );
          await form.getByLabel("New e-mail address").fill(new_email);
          await form.getByLabel("Current password").fill(NEW_PASSWORD);
          await form.getByRole("button", { name: "Send confirmation link" })
            .click();
          const done = form.locator("[data-form-done]");
          await done.waitFor();
          assertMatch(await done.innerText(), /confirmation link/);
          await screenshot_both(page, "account-05-email-link-sent");
          const link = link_in(
            await smtp.next_for(new_email),
            "/confirm-email-change",
          );
          await page.goto(link.href);
          // Its own page and words, not the sign-up confirmation's.
          await page.getByRole("heading", {
            name: "Confirm your new e-mail address",
          }).waitFor();
          await screenshot_both(page, "account-05b-confirm-new-address");
          await page.getByRole("button", { name: "Use this address" }).click();
          await page.locator("[data-form-done]").waitFor();
          assertMatch(
            await page.locator("[data-form-done]").innerText(),
            new RegExp(
              `your account now uses ${new_email.replace(".", "\\.")}\\. ` +
                "The previous address was told of the change",
            ),
          );
          const notice = await smtp.next_for(email);
          assertMatch(notice.headers.subject, /was changed/);
          email = new_email;
        },
      );

      await t.step(
        "delete the account: type the e-mail; its key then answers 401",
        async () => {
          await page.goto(`${server.url}/dashboard/account`);
          // Signed in under the new address.
          await assert_signed_in_as(page, email);
          await page.getByRole("button", { name: "Delete account…" }).click();
          const dialog = page.locator("dialog[data-delete-dialog]");
          await dialog.waitFor();
          const submit = dialog.getByRole("button", {
            name: "Delete my account",
          });
          assertEquals(await submit.isDisabled(), true);
          await dialog.getByLabel("Type").fill("someone@else.example");
          assertEquals(await submit.isDisabled(), true);
          await dialog.getByLabel("Type").fill(email);
          await dialog.getByLabel("Password").fill("not my password");
          assertEquals(await submit.isDisabled(), false);
          await submit.click();
          const error = dialog.locator("[data-form-error]");
          await error.waitFor();
          assertMatch(await error.innerText(), /Password is wrong/);
          await dialog.getByLabel("Password").fill(NEW_PASSWORD);
          await screenshot_both(page, "account-06-delete-confirm", {
            full_page: false,
          });
          await submit.click();
          const deleted = page.locator("[data-deleted]");
          await deleted.waitFor();
          assertMatch(await deleted.innerText(), /anonymous month totals/);
          await screenshot_both(page, "account-07-deleted");

          const refused = await server.generate(key, full_invoice());
          assertEquals(refused.status, 401);
          await refused.body?.cancel();
          await page.goto(`${server.url}/dashboard/keys`);
          assertEquals(new URL(page.url()).pathname, "/signin");
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
