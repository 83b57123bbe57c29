/**
 * axe-core's WCAG 2.0 and 2.1 level A and AA rules in Debian's Chromium over
 * every dashboard page, signed out and signed in, at desktop and phone
 * width, in the states people see (an unconfirmed address's banner, a key
 * and its curl example, an open dialog, an XML result, a sent sign-up,
 * field errors): no violations. Then `/docs`: none either, apart from the
 * rules listed in {@link SWAGGER_UI_LIMITS}, which Swagger UI's own markup
 * breaks and our theme and configuration cannot reach (the README lists
 * them too).
 */
import { assertEquals } from "../assert.ts";
import type { Page } from "playwright-core";
import {
  launch_browser,
  type TestBrowser,
  VIEWPORTS,
} from "../helpers/browser.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import {
  audit_page,
  type SkippedRule,
  type Violation,
} from "../helpers/axe.ts";
import { create_account, create_session } from "../../db/mod.ts";
import { test_password_hash } from "../helpers/accounts.ts";
import { corpus_request } from "../fixtures/einvoice_corpus.ts";

const PASSWORD = "correct horse battery staple";

/**
 * What `/docs` leaves to Swagger UI 5.35 itself: markup our theme (docs.css)
 * and configuration (docs.js) cannot change. Each entry is one rule on the
 * exact elements, never a whole page; the README lists them too.
 */
export const SWAGGER_UI_LIMITS: SkippedRule[] = [{
  rule: "label-content-name-mismatch",
  selectors: [".auth-btn-wrapper .authorize"],
  reason: "Swagger UI gives the Authorize dialog's submit buttons the name " +
    "'Apply credentials' (aria-label) while they read 'Authorize'; we add " +
    "names only where Swagger UI gives none",
}];

/** One state of a page to audit: how to get there. */
interface PageState {
  name: string;
  path: string;
  /** Runs after loading, before the audit. */
  prepare?: (page: Page) => Promise<void>;
}

/** Audits each state at desktop and phone width; returns what failed, by state. */
async function audit_states(
  browser: TestBrowser,
  server: TestServer,
  states: PageState[],
): Promise<Record<string, Violation[]>> {
  const failed: Record<string, Violation[]> = {};
  for (const state of states) {
    for (const [width, size] of Object.entries(VIEWPORTS)) {
      const { page } = browser;
      await page.setViewportSize(size);
      await page.goto(`${server.url}${state.path}`);
      await page.waitForLoadState("networkidle");
      await state.prepare?.(page);
      const violations = await audit_page(page);
      if (violations.length > 0) {
        failed[`${state.name} (${width})`] = violations;
      }
    }
  }
  return failed;
}

/** Waits until a signed-in page's script has filled it from the session. */
async function signed_in(page: Page): Promise<void> {
  await page.locator("[data-account-email]").filter({ hasText: "@" })
    .waitFor();
}

const SIGNED_OUT: PageState[] = [
  { name: "sign in", path: "/signin" },
  {
    name: "sign in, wrong password",
    path: "/signin",
    prepare: async (page) => {
      await page.getByLabel("E-mail").fill("nobody@example.com");
      await page.getByLabel("Password").fill("not the password");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.locator("[data-form-error]").waitFor();
    },
  },
  { name: "sign up", path: "/signup" },
  {
    name: "sign up, sent",
    path: "/signup",
    prepare: async (page) => {
      await page.getByLabel("Work e-mail").fill(
        `a11y-${crypto.randomUUID().slice(0, 8)}@example.com`,
      );
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Create account" }).click();
      await page.locator("[data-form-done]").waitFor();
    },
  },
  { name: "forgot password", path: "/forgot-password" },
  { name: "reset password", path: "/reset-password?token=abc" },
  { name: "verify e-mail", path: "/verify-email?token=abc" },
  { name: "confirm new e-mail", path: "/confirm-email-change?token=abc" },
  { name: "no token", path: "/verify-email" },
  { name: "page not found", path: "/no-such-page" },
];

const SIGNED_IN: PageState[] = [
  {
    name: "keys, banner, a key and the curl example",
    path: "/dashboard/keys",
    prepare: async (page) => {
      await signed_in(page);
      await page.locator("[data-verify-banner]").waitFor();
      await page.locator("[data-keys-body] tr").first().waitFor();
      await page.locator("[data-curl-card]").waitFor();
    },
  },
  {
    name: "keys, the new-key dialog with an error",
    path: "/dashboard/keys",
    prepare: async (page) => {
      await signed_in(page);
      await page.getByRole("button", { name: "Generate New Key" }).click();
      const dialog = page.locator("dialog[data-create-dialog]");
      await dialog.getByRole("button", { name: "Generate" }).click();
      await dialog.locator("[data-create-error]").waitFor();
    },
  },
  {
    name: "usage",
    path: "/dashboard/usage",
    prepare: async (page) => {
      await signed_in(page);
      await page.locator("[data-usage][aria-busy=false]").waitFor();
      await page.locator("[data-upgrade-form]").waitFor();
    },
  },
  {
    name: "try it",
    path: "/dashboard/try",
    prepare: signed_in,
  },
  {
    name: "try it, an XML result and a key",
    path: "/dashboard/try",
    prepare: async (page) => {
      await signed_in(page);
      await page.getByRole("textbox", { name: "Invoice JSON" }).fill(
        JSON.stringify(corpus_request("standard", 1)),
      );
      await page.getByLabel("Output format").selectOption("ubl");
      await page.getByRole("button", { name: "Render XML" }).click();
      await page.locator("[data-xml-view]").waitFor();
      await page.getByLabel("One of your API keys").check();
      await page.getByRole("textbox", { name: "API key" }).fill("ink_test_x");
    },
  },
  {
    name: "try it, field errors",
    path: "/dashboard/try",
    prepare: async (page) => {
      await signed_in(page);
      await page.getByRole("textbox", { name: "Invoice JSON" }).fill(
        '{"invoice_number": ""}',
      );
      await page.getByRole("button", { name: "Render PDF" }).click();
      await page.locator("[data-errors][data-kind=fields]").waitFor();
    },
  },
  {
    name: "account",
    path: "/dashboard/account",
    prepare: signed_in,
  },
  {
    name: "account, the delete dialog",
    path: "/dashboard/account",
    prepare: async (page) => {
      await signed_in(page);
      await page.getByRole("button", { name: "Delete account…" }).click();
      await page.locator("dialog[data-delete-dialog]").waitFor();
    },
  },
];

Deno.test({
  name:
    "accessibility: axe-core's WCAG 2.0/2.1 A and AA rules find nothing on any dashboard page, signed out and in, desktop and phone",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const server = await start_test_server({
      env: { RENDER_TIMEOUT_MS: "120000" },
    });
    const browser = await launch_browser();
    try {
      await t.step("signed out", async () => {
        assertEquals(await audit_states(browser, server, SIGNED_OUT), {});
      });

      await t.step("signed in, address not confirmed yet", async () => {
        const database = server.test_database.database;
        const account = await create_account(database, {
          email: `a11y-${crypto.randomUUID().slice(0, 8)}@example.com`,
          plan: "starter",
          password_hash: await test_password_hash(PASSWORD),
          email_verified: false,
        });
        const created = await server.admin(
          `/admin/accounts/${account.id}/keys`,
          { body: { name: "CI", mode: "test" } },
        );
        assertEquals(created.status, 201);
        await created.body?.cancel();
        const session = await create_session(database, {
          account_id: account.id,
          ttl_seconds: 3600,
          now: new Date(),
        });
        await browser.context.addCookies([{
          name: "session",
          value: session.token,
          url: server.url,
        }]);
        assertEquals(await audit_states(browser, server, SIGNED_IN), {});
      });

      assertEquals(browser.problems, []);
    } finally {
      await browser.close();
      await server.close();
    }
  },
});

Deno.test({
  name:
    "accessibility: /docs has no WCAG 2.0/2.1 A or AA violation beyond the listed Swagger UI limits",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const server = await start_test_server();
    const browser = await launch_browser();
    const { page } = browser;
    try {
      const failed: Record<string, Violation[]> = {};
      const audit = async (state: string) => {
        const violations = await audit_page(page, { skip: SWAGGER_UI_LIMITS });
        if (violations.length > 0) failed[state] = violations;
      };
      for (const [width, size] of Object.entries(VIEWPORTS)) {
        await page.setViewportSize(size);
        await page.goto(`${server.url}/docs`);
        await page.locator(".opblock").first().waitFor({ timeout: 60_000 });
        // The list, and one operation open as a reader has it: its
        // parameters, examples and responses are in the page then.
        await page.locator(".opblock-post", { hasText: "/generate" }).first()
          .locator(".opblock-summary").click();
        await page.getByText("INV-2026-0001").first().waitFor();
        await audit(`${width}: POST /generate open`);
        await page.getByRole("button", { name: "Try it out" }).first().click();
        await page.getByRole("button", { name: "Execute" }).first().waitFor();
        await audit(`${width}: try it out`);
        await page.getByRole("button", { name: "Authorize" }).first().click();
        await page.locator(".modal-ux").waitFor();
        await audit(`${width}: the Authorize dialog`);
        await page.keyboard.press("Escape");
        await page.locator(".modal-ux").waitFor({ state: "detached" });
        await page.locator(".models-control").click();
        await page.locator("section.models.is-open").waitFor();
        await audit(`${width}: schemas open`);
      }
      assertEquals(failed, {});
      assertEquals(browser.problems, []);
    } finally {
      await browser.close();
      await server.close();
    }
  },
});
