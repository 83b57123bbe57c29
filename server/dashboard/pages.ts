/**
 * The dashboard's HTML pages: rendered once at start-up from the templates in
 * `pages/` (the configuration they show cannot change while running), then
 * served with the dashboard's strict Content-Security-Policy. Pages carry no
 * per-request data; their scripts fetch it from the tRPC procedures. The
 * Try it page carries the example invoice (`example_invoice.ts`) as JSON in
 * its editor's `data-example` attribute.
 *
 * Templates know `{{name}}` (escaped), `{{{name}}}` (raw, for HTML we build
 * here) and `{{#flag}}…{{/flag}}` / `{{^flag}}…{{/flag}}` sections.
 *
 * @module
 */
import {
  DELETED_ACCOUNT_RETENTION,
  INVOICE_FORMAT_TABLE,
  INVOICE_FORMATS,
  LOGGED_LINK_MARK,
  PASSWORD_LIMITS,
  type Plan,
  PLANS,
  TEST_DOCUMENTS_PER_MONTH,
} from "../../contract/mod.ts";
import { EXAMPLE_INVOICE } from "../example_invoice.ts";
import type { SignupPolicy } from "./auth.ts";

/** Who may open a page. */
type Access = "signed_in" | "signed_out" | "any";

interface PageSpec {
  layout: "app" | "auth";
  file: string;
  title: string;
  access: Access;
  /** The app layout's page script, under `/assets/js/`. */
  script?: string;
  /** The highlighted tab. */
  nav?: "keys" | "usage" | "try" | "account";
}

/** The pages, by path. */
export const PAGES: Record<string, PageSpec> = {
  "/signin": {
    layout: "auth",
    file: "signin.html",
    title: "Sign in",
    access: "signed_out",
  },
  "/signup": {
    layout: "auth",
    file: "signup.html",
    title: "Create account",
    access: "signed_out",
  },
  "/forgot-password": {
    layout: "auth",
    file: "forgot_password.html",
    title: "Forgot password",
    access: "signed_out",
  },
  // Links from mails: they work whoever is signed in on this browser.
  "/reset-password": {
    layout: "auth",
    file: "reset_password.html",
    title: "Choose a new password",
    access: "any",
  },
  "/verify-email": {
    layout: "auth",
    file: "verify_email.html",
    title: "Confirm your e-mail address",
    access: "any",
  },
  "/confirm-email-change": {
    layout: "auth",
    file: "confirm_email_change.html",
    title: "Confirm your new e-mail address",
    access: "any",
  },
  "/dashboard/keys": {
    layout: "app",
    file: "keys.html",
    title: "API Keys",
    access: "signed_in",
    script: "keys.js",
    nav: "keys",
  },
  "/dashboard/usage": {
    layout: "app",
    file: "usage.html",
    title: "Usage & plan",
    access: "signed_in",
    script: "usage.js",
    nav: "usage",
  },
  "/dashboard/try": {
    layout: "app",
    file: "try.html",
    title: "Try it",
    access: "signed_in",
    script: "try.js",
    nav: "try",
  },
  "/dashboard/account": {
    layout: "app",
    file: "account.html",
    title: "Account",
    access: "signed_in",
    script: "account.js",
    nav: "account",
  },
};

/**
 * The page browsers get for an unknown address (HTTP 404), under the key
 * {@link NOT_FOUND_KEY}: never a URL path, so it is not routable itself.
 */
export const NOT_FOUND_PAGE: PageSpec = {
  layout: "auth",
  file: "not_found.html",
  title: "Page not found",
  access: "signed_out",
};

/** Key of the not-found page in {@link render_pages}' result. */
export const NOT_FOUND_KEY = "404";

/** A rendered page. */
export interface Page {
  html: string;
  access: Access;
}

/** What the pages show of the configuration. */
export interface PageSettings {
  signup: SignupPolicy;
  support_email?: string;
  /** Stripe billing is on: plan cards start Checkout or change the subscription. */
  billing?: boolean;
  /** Upgrade requests are mailed to the operator (`OPERATOR_EMAIL` is set). */
  operator_mail?: boolean;
}

type Values = Record<string, string | boolean | undefined>;

/** Escapes text for HTML content and quoted attribute values. */
export function escape_html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Fills a template; see the module docs for its syntax. */
export function render_template(template: string, values: Values): string {
  // Repeated until stable, so sections may nest (a kept section's body can
  // hold sections of other names).
  let sections = template;
  for (let previous = ""; previous !== sections;) {
    previous = sections;
    sections = sections.replace(
      /\{\{([#^])(\w+)\}\}\n?([\s\S]*?)\{\{\/\2\}\}\n?/g,
      (_, kind: string, name: string, body: string) =>
        Boolean(values[name]) === (kind === "#") ? body : "",
    );
  }
  return sections.replace(
    /\{\{(\{)?(\w+)\}?\}\}/g,
    (_, raw: string | undefined, name: string) => {
      if (!(name in values)) throw new Error(`template value ${name} missing`);
      const value = String(values[name] ?? "");
      return raw ? value : escape_html(value);
    },
  );
}

const number = new Intl.NumberFormat("en-US");

/**
 * The plan cards. Prices show only where this server takes payments:
 * without billing the operator arranges plans (and any payment) directly.
 */
function plan_cards(billing: boolean): string {
  return (Object.keys(PLANS) as Plan[]).map((id) => {
    const plan = PLANS[id];
    const name = escape_html(plan.name);
    return [
      `<div class="plan" data-plan="${id}" data-plan-name="${name}"${
        billing ? ` data-price="${plan.price_usd}"` : ""
      } data-invoices="${plan.monthly_invoices}">`,
      `  <div class="plan-name">${name}</div>`,
      ...(billing
        ? [
          `  <div class="plan-price">$${plan.price_usd} <small>/ month</small></div>`,
        ]
        : []),
      `  <div class="plan-detail">${
        number.format(plan.monthly_invoices)
      } invoices a month</div>`,
      billing
        ? `  <button type="button" class="button plan-choose" data-choose-plan="${id}">Choose ${name}</button>`
        // Shown by the page for plans above the current one: picks it in
        // the "Ask for an upgrade" form below.
        : `  <a class="button button-secondary plan-choose" href="#upgrade" data-ask-plan="${id}" hidden>Ask for ${name}</a>`,
      `</div>`,
    ].map((line) => `          ${line}`).join("\n");
  }).join("\n");
}

/** The Try it page's format choices, from the formats' registry. */
function format_options(): string {
  return INVOICE_FORMATS.map((id) => {
    const info = INVOICE_FORMAT_TABLE[id];
    return `<option value="${id}" data-output="${info.extension}">${
      escape_html(info.name)
    }</option>`;
  }).join("\n              ");
}

/** Renders every page from the templates in `folder` (a URL ending in `/`). */
export async function render_pages(
  folder: URL,
  settings: PageSettings,
): Promise<Map<string, Page>> {
  const read = (name: string) => Deno.readTextFile(new URL(name, folder));
  const layouts = {
    app: await read("layout_app.html"),
    auth: await read("layout_auth.html"),
  };
  const plan = PLANS[settings.signup.plan];
  const common: Values = {
    signup: settings.signup.enabled,
    signup_plan_name: plan.name,
    signup_plan_invoices: number.format(plan.monthly_invoices),
    password_min: String(PASSWORD_LIMITS.min),
    password_max: String(PASSWORD_LIMITS.max),
    support_email: settings.support_email,
    billing: settings.billing ?? false,
    operator_mail: settings.operator_mail ?? false,
    plan_cards: plan_cards(settings.billing ?? false),
    format_options: format_options(),
    test_documents_per_month: number.format(TEST_DOCUMENTS_PER_MONTH),
    deleted_account_retention: DELETED_ACCOUNT_RETENTION,
    example_invoice: JSON.stringify(EXAMPLE_INVOICE),
  };
  const pages = new Map<string, Page>();
  for (
    const [path, spec] of [
      ...Object.entries(PAGES),
      [NOT_FOUND_KEY, NOT_FOUND_PAGE] as const,
    ]
  ) {
    const content = render_template(await read(spec.file), common);
    const html = render_template(layouts[spec.layout], {
      title: spec.title,
      script: spec.script ?? "",
      logged_link_mark: LOGGED_LINK_MARK,
      content: content.trimEnd(),
      current_keys: spec.nav === "keys" ? 'aria-current="page"' : "",
      current_usage: spec.nav === "usage" ? 'aria-current="page"' : "",
      current_try: spec.nav === "try" ? 'aria-current="page"' : "",
      current_account: spec.nav === "account" ? 'aria-current="page"' : "",
    });
    pages.set(path, { html, access: spec.access });
  }
  return pages;
}
