/**
 * The account dashboard, served by the same server as the API: sign-up and
 * sign-in pages, the API Keys, Usage and Try it pages, and their static
 * files. Everything is served by us (no CDN), under a strict CSP.
 *
 * The pages are static; their scripts call the same tRPC procedures as every
 * other client (`auth.*`, `account.*`, `invoice.preview`) and `POST
 * /generate`. This module adds the HTTP side only: the session cookie (see
 * `session.ts`), page access and the static files.
 *
 * @example
 * ```ts ignore
 * const dashboard = await create_dashboard(database, {
 *   signup: DEFAULT_SIGNUP_POLICY,
 *   session_ttl_seconds: 12 * 3600,
 *   cookie_secure: "auto",
 *   now: () => new Date(),
 * });
 * const handler = create_app({ services, ...dashboard.app_options });
 * ```
 *
 * @module
 */
import {
  ApiError,
  type Principal,
  type ResponseSink,
  type SessionControl,
} from "../../contract/mod.ts";
import type { Database } from "../../db/mod.ts";
import { AssetStore } from "./assets.ts";
import type { SignupPolicy } from "./auth.ts";
import { NOT_FOUND_KEY, render_pages } from "./pages.ts";
import { type CookieSecure, create_sessions, is_https } from "./session.ts";

export { DEFAULT_SIGNUP_POLICY, type SignupPolicy } from "./auth.ts";
export { CSRF_HEADER, SESSION_COOKIE } from "./session.ts";

/** Options of {@link create_dashboard}. */
export interface DashboardOptions {
  signup: SignupPolicy;
  session_ttl_seconds: number;
  cookie_secure: CookieSecure;
  /** Shown on the Usage page as where to ask for a plan change. */
  support_email?: string;
  /** Stripe billing is on: customers change plans themselves. */
  billing_enabled?: boolean;
  /** Upgrade requests are mailed to the operator (`OPERATOR_EMAIL` is set). */
  operator_mail?: boolean;
  now: () => Date;
}

/** What the HTTP layer (`create_app`) takes from the dashboard. */
export interface DashboardAppOptions {
  /** The signed-in principal of a request; enforces CSRF on writes. */
  resolve_session(request: Request): Promise<Principal | null>;
  /** Per-request start and end of sessions, for `auth.*`. */
  session_control(request: Request, response: ResponseSink): SessionControl;
  /** Answers dashboard pages and assets; undefined for other paths. */
  serve_dashboard(request: Request, url: URL): Promise<Response | undefined>;
  /**
   * An HTML "page not found" (404) with links for a browser's GET of an
   * unknown address; undefined for API clients (they get the JSON error).
   */
  not_found_page(request: Request): Response | undefined;
}

/** The dashboard. */
export interface Dashboard {
  app_options: DashboardAppOptions;
}

/**
 * The pages' policy: scripts, styles and fonts only from us, no inline code;
 * `blob:` frames so the Try it page can show the PDF it just rendered.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src blob:",
  "object-src 'none'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE_HEADERS: Record<string, string> = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Content-Security-Policy": DASHBOARD_CSP,
  "Permissions-Policy":
    "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
};

const HOME_SIGNED_IN = "/dashboard/keys";

function redirect(location: string): Response {
  return new Response(null, {
    status: 303,
    headers: { Location: location, "Cache-Control": "no-store" },
  });
}

function require_read(request: Request): void {
  if (request.method !== "GET" && request.method !== "HEAD") {
    throw new ApiError("method_not_allowed", "Use GET for dashboard pages", {
      headers: { Allow: "GET, HEAD" },
    });
  }
}

/** Loads the dashboard's pages and files and binds its sessions to `database`. */
export async function create_dashboard(
  database: Database,
  options: DashboardOptions,
): Promise<Dashboard> {
  const assets = await AssetStore.load(new URL("./assets/", import.meta.url));
  const pages = await render_pages(new URL("./pages/", import.meta.url), {
    signup: options.signup,
    support_email: options.support_email,
    billing: options.billing_enabled,
    operator_mail: options.operator_mail,
  });
  const html = new Map(
    [...pages].map(([path, page]) => [path, {
      access: page.access,
      body: new TextEncoder().encode(assets.version_references(page.html)),
    }]),
  );
  const sessions = create_sessions(database, {
    ttl_seconds: options.session_ttl_seconds,
    cookie_secure: options.cookie_secure,
    now: options.now,
  });

  async function serve_dashboard(
    request: Request,
    url: URL,
  ): Promise<Response | undefined> {
    const path = url.pathname;
    if (path.startsWith("/assets/")) {
      require_read(request);
      return assets.respond(request, url);
    }
    if (path === "/" || path === "/dashboard" || path === "/dashboard/") {
      require_read(request);
      const signed_in = await sessions.resolve_session(request) !== null;
      return redirect(signed_in ? HOME_SIGNED_IN : "/signin");
    }
    // "/signup/" and the like: the page without the slash.
    if (path.endsWith("/") && html.has(path.slice(0, -1))) {
      require_read(request);
      return redirect(`${path.slice(0, -1)}${url.search}`);
    }
    const page = html.get(path);
    if (!page || path === NOT_FOUND_KEY) return undefined;
    require_read(request);
    const signed_in = await sessions.resolve_session(request) !== null;
    if (page.access === "signed_in" && !signed_in) {
      return redirect(`/signin?next=${encodeURIComponent(path)}`);
    }
    if (page.access === "signed_out" && signed_in) {
      return redirect(HOME_SIGNED_IN);
    }
    const headers = new Headers(PAGE_HEADERS);
    if (is_https(request)) {
      headers.set("Strict-Transport-Security", "max-age=31536000");
    }
    return new Response(
      request.method === "HEAD" ? null : page.body as Uint8Array<ArrayBuffer>,
      { headers },
    );
  }

  function not_found_page(request: Request): Response | undefined {
    const accepts_html = (request.headers.get("accept") ?? "").includes(
      "text/html",
    );
    if (!accepts_html || !["GET", "HEAD"].includes(request.method)) {
      return undefined;
    }
    const page = html.get(NOT_FOUND_KEY)!;
    return new Response(
      request.method === "HEAD" ? null : page.body as Uint8Array<ArrayBuffer>,
      { status: 404, headers: PAGE_HEADERS },
    );
  }

  return {
    app_options: {
      resolve_session: sessions.resolve_session,
      session_control: sessions.session_control,
      serve_dashboard,
      not_found_page,
    },
  };
}
