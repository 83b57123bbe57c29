/**
 * The dashboard's sign-up, sign-in and password-reset limits are sliding
 * windows: a client that uses up a limit just before a window boundary does
 * not get the whole limit again just after it. Driven by an injected clock.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  start_test_server,
  TEST_SCRYPT_PARAMS,
  type TestServer,
} from "../helpers/test_server.ts";
import { open_test_database } from "../helpers/test_database.ts";
import type { ApiError } from "../../contract/mod.ts";
import {
  create_password_auth,
  DEFAULT_SIGNUP_POLICY,
  SIGN_IN_LIMIT,
} from "../../server/dashboard/auth.ts";
import { PASSWORD_RESET_LIMIT } from "../../server/dashboard/account_mail.ts";

const PASSWORD = "correct horse battery staple";

function mutate(
  server: TestServer,
  procedure: string,
  input: unknown,
): Promise<Response> {
  return fetch(`${server.url}/trpc/${procedure}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(input),
  });
}

function unique_email(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

/**
 * Makes `count` calls at `at` and returns their statuses; every 429 must
 * carry a positive `Retry-After`.
 */
async function statuses_at(
  clock: { now: Date },
  at: string,
  count: number,
  call: (n: number) => Promise<Response>,
): Promise<number[]> {
  clock.now = new Date(at);
  const statuses: number[] = [];
  for (let n = 0; n < count; n++) {
    const response = await call(n);
    await response.body?.cancel();
    statuses.push(response.status);
    if (response.status === 429) {
      assert(Number(response.headers.get("retry-after")) >= 1);
    }
  }
  return statuses;
}

const passed = (statuses: number[]) =>
  statuses.filter((status) => status !== 429).length;

Deno.test("sign-up per address: the hour's limit used at 12:59:50 is not granted again at 13:00:10", async () => {
  const clock = { now: new Date() };
  const server = await start_test_server({
    now: () => clock.now,
    env: { SIGNUPS_PER_ADDRESS_PER_HOUR: "3" },
  });
  try {
    const sign_up = () =>
      mutate(server, "auth.sign_up", {
        email: unique_email("slide"),
        password: PASSWORD,
      });
    const before = await statuses_at(
      clock,
      "2026-03-10T12:59:50Z",
      3,
      sign_up,
    );
    assertEquals(before, [200, 200, 200]);
    const after = await statuses_at(clock, "2026-03-10T13:00:10Z", 3, sign_up);
    assertEquals(after, [429, 429, 429]);
    // Half an hour on, the previous hour weighs half: one more fits.
    const later = await statuses_at(clock, "2026-03-10T13:30:00Z", 2, sign_up);
    assertEquals(later, [200, 429]);
  } finally {
    await server.close();
  }
});

Deno.test("sign-in per e-mail and address: ten failures at 12:14:50 are not followed by ten more at 12:15:05", async () => {
  const clock = { now: new Date("2026-03-10T12:00:00Z") };
  const server = await start_test_server({ now: () => clock.now });
  try {
    const email = unique_email("slide");
    const signed_up = await mutate(server, "auth.sign_up", {
      email,
      password: PASSWORD,
    });
    assertEquals(signed_up.status, 200);
    await signed_up.body?.cancel();
    const guess = (n: number) =>
      mutate(server, "auth.sign_in", { email, password: `guess ${n}` });
    const limit = SIGN_IN_LIMIT.per_email_and_address;
    const before = await statuses_at(
      clock,
      "2026-03-10T12:14:50Z",
      limit,
      guess,
    );
    assertEquals(passed(before), limit);
    const after = await statuses_at(
      clock,
      "2026-03-10T12:15:05Z",
      limit,
      guess,
    );
    assertEquals(passed(after), 0);
  } finally {
    await server.close();
  }
});

Deno.test("password reset per e-mail: the limit used at 12:14:50 is not granted again at 12:15:05", async () => {
  const clock = { now: new Date() };
  const server = await start_test_server({ now: () => clock.now });
  try {
    const email = unique_email("slide");
    const ask = () => mutate(server, "auth.request_password_reset", { email });
    const limit = PASSWORD_RESET_LIMIT.per_email;
    const before = await statuses_at(
      clock,
      "2026-03-10T12:14:50Z",
      limit,
      ask,
    );
    assertEquals(passed(before), limit);
    const after = await statuses_at(clock, "2026-03-10T12:15:05Z", limit, ask);
    assertEquals(passed(after), 0);
  } finally {
    await server.close();
  }
});

Deno.test("per-address limits count an IPv6 client by its /64; IPv4 addresses and other /64s apart", async () => {
  const { database, close } = await open_test_database();
  try {
    const auth = create_password_auth(database, {
      policy: { ...DEFAULT_SIGNUP_POLICY, per_address_per_hour: 2 },
      now: () => new Date("2030-01-01T12:00:00Z"),
      scrypt_params: TEST_SCRYPT_PARAMS,
    });
    const sign_up = async (client_address: string) => {
      try {
        await auth.new_account({
          email: unique_email("v6"),
          password: PASSWORD,
          client_address,
        });
        return 200;
      } catch (error) {
        return (error as ApiError).status;
      }
    };
    // One subscriber's /64, written three ways.
    assertEquals(await sign_up("2001:db8:1:2::1"), 200);
    assertEquals(await sign_up("2001:db8:1:2:ffff:0:0:2"), 200);
    assertEquals(await sign_up("2001:0db8:0001:0002::3"), 429);
    // The next /64, and IPv4 addresses, count apart.
    assertEquals(await sign_up("2001:db8:1:3::1"), 200);
    assertEquals(await sign_up("192.0.2.1"), 200);
    assertEquals(await sign_up("192.0.2.2"), 200);
  } finally {
    await close();
  }
});
