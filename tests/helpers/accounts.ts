/**
 * Account set-up shared by tests: a used-up month and a dashboard session
 * made directly in the database, without going through sign-in each time.
 */
import { charge_generation, create_session } from "../../db/mod.ts";
import { hash_password } from "../../server/dashboard/password.ts";
import type { TestBrowser } from "./browser.ts";
import { TEST_SCRYPT_PARAMS, type TestServer } from "./test_server.ts";

/** A stored password hash at the test cost, for accounts made in the database. */
export function test_password_hash(password: string): Promise<string> {
  return hash_password(password, TEST_SCRYPT_PARAMS);
}

/** Charges `count` distinct invoices to the account this month. */
export async function use_invoices(
  server: TestServer,
  account_id: string,
  options: { count: number; limit: number },
): Promise<void> {
  const now = new Date();
  for (let index = 0; index < options.count; index++) {
    await charge_generation(server.test_database.database, {
      account_id,
      month: now.toISOString().slice(0, 7),
      day: now.toISOString().slice(0, 10),
      request_hash: `used-${index}`,
      limit: options.limit,
    });
  }
}

/** Headers of a signed-in dashboard session (cookie, CSRF token, origin). */
export async function session_headers(
  server: TestServer,
  account_id: string,
): Promise<Record<string, string>> {
  const session = await create_session(server.test_database.database, {
    account_id,
    ttl_seconds: 3600,
    now: new Date(),
  });
  return {
    Cookie: `session=${session.token}`,
    "X-CSRF-Token": session.csrf_token,
    Origin: server.url,
  };
}

/** Signs the browser in as the account by giving it a fresh session cookie. */
export async function sign_in_browser(
  browser: TestBrowser,
  server: TestServer,
  account_id: string,
): Promise<void> {
  const session = await create_session(server.test_database.database, {
    account_id,
    ttl_seconds: 3600,
    now: new Date(),
  });
  await browser.context.addCookies([{
    name: "session",
    value: session.token,
    url: server.url,
  }]);
}

/** What `auth.session` answers for `cookie`: the account (or null) and the CSRF token. */
export async function session_state(
  server: TestServer,
  cookie: string,
): Promise<{ account: { email: string } | null; csrf_token: string | null }> {
  const response = await fetch(`${server.url}/trpc/auth.session`, {
    headers: { Cookie: cookie },
  });
  return (await response.json()).result.data;
}

/** The e-mail of the account `cookie` is signed in as, or null. */
export async function signed_in_email(
  server: TestServer,
  cookie: string,
): Promise<string | null> {
  return (await session_state(server, cookie)).account?.email ?? null;
}
