/**
 * `TRUSTED_PROXIES` and the client address per-address limits count: unit tests
 * of the parsing and the hop choice, and over HTTP the sign-in and sign-up
 * limits per forwarded address.
 */
import { assertEquals, assertMatch, assertThrows } from "../assert.ts";
import {
  address_group,
  parse_trusted_proxies,
  resolve_client_address,
} from "../../server/client_address.ts";
import { ConfigError, load_config } from "../../server/config.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import {
  SIGN_IN_LIMIT,
  SIGN_UP_LIMIT_PER_ADDRESS,
} from "../../server/dashboard/auth.ts";

const PASSWORD = "correct horse battery staple";

Deno.test("TRUSTED_PROXIES: addresses and CIDRs, IPv4 and IPv6; bad entries stop start-up", () => {
  const ranges = parse_trusted_proxies(
    "10.0.0.0/8, 192.168.1.7, fd00::/8, ::1",
  );
  assertEquals(ranges.length, 4);
  const resolve = (peer: string, xff: string | null) =>
    resolve_client_address(peer, xff, { trusted_proxies: ranges });
  // An untrusted peer is the client, whatever it forwards.
  assertEquals(resolve("203.0.113.9", "198.51.100.1"), "203.0.113.9");
  // A trusted peer: the right-most untrusted hop; forged hops left of it ignored.
  assertEquals(
    resolve("10.1.2.3", "1.1.1.1, 198.51.100.7, 10.9.9.9"),
    "198.51.100.7",
  );
  assertEquals(resolve("192.168.1.7", "198.51.100.8:4711"), "198.51.100.8");
  assertEquals(resolve("fd12::5", "2001:db8::1, fd00::2"), "2001:db8::1");
  assertEquals(resolve("::1", "[2001:db8::2]:443"), "2001:db8::2");
  assertEquals(resolve("::ffff:10.0.0.1", "198.51.100.9"), "198.51.100.9");
  // All hops trusted: the left-most; no header: the peer.
  assertEquals(resolve("10.0.0.1", "10.0.0.2, 10.0.0.3"), "10.0.0.2");
  assertEquals(resolve("10.0.0.1", null), "10.0.0.1");
  // 192.168.1.8 is outside the single address.
  assertEquals(resolve("192.168.1.8", "198.51.100.1"), "192.168.1.8");
  // Without TRUSTED_PROXIES the header is never believed.
  assertEquals(
    resolve_client_address("127.0.0.1", "198.51.100.1", {
      trusted_proxies: [],
    }),
    "127.0.0.1",
  );
  for (const bad of ["10.0.0.0/33", "300.1.1.1", "fd00::/129", "proxy.lan"]) {
    assertThrows(
      () => load_config({ TRUSTED_PROXIES: bad }),
      ConfigError,
      "TRUSTED_PROXIES",
    );
  }
  assertEquals(load_config({}).trusted_proxies, []);
  assertEquals(load_config({}).signups_per_address_per_hour, 5);
  assertEquals(SIGN_UP_LIMIT_PER_ADDRESS, 5);
});

function post(
  server: TestServer,
  procedure: string,
  input: unknown,
  forwarded_for?: string,
): Promise<Response> {
  return fetch(`${server.url}/trpc/${procedure}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(forwarded_for ? { "X-Forwarded-For": forwarded_for } : {}),
    },
    body: JSON.stringify(input),
  });
}

function email(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

Deno.test("behind a trusted proxy, sign-in is limited per forwarded client, not for everyone", async () => {
  const server = await start_test_server({
    env: { TRUSTED_PROXIES: "127.0.0.1" },
  });
  try {
    const guesser = "198.51.100.66";
    for (let attempt = 1; attempt <= SIGN_IN_LIMIT.per_address; attempt++) {
      const response = await post(server, "auth.sign_in", {
        email: email(`spray${attempt}`),
        password: PASSWORD,
      }, `1.2.3.${attempt % 200}, ${guesser}`);
      assertEquals(response.status, 401, `attempt ${attempt}`);
      await response.body?.cancel();
    }
    const limited = await post(server, "auth.sign_in", {
      email: email("more"),
      password: PASSWORD,
    }, guesser);
    assertEquals(limited.status, 429);
    assertMatch((await limited.json()).error.message, /from this address/);
    // Another user behind the same proxy is not locked out.
    const other = await post(server, "auth.sign_in", {
      email: email("other"),
      password: PASSWORD,
    }, "203.0.113.5");
    assertEquals(other.status, 401);
    await other.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("sign-ups are limited per client address (forwarded through a trusted proxy)", async () => {
  const server = await start_test_server({
    env: {
      TRUSTED_PROXIES: "127.0.0.0/8,::1",
      SIGNUPS_PER_ADDRESS_PER_HOUR: String(SIGN_UP_LIMIT_PER_ADDRESS),
    },
  });
  try {
    const client = "198.51.100.23";
    for (let index = 1; index <= SIGN_UP_LIMIT_PER_ADDRESS; index++) {
      const response = await post(server, "auth.sign_up", {
        email: email(`new${index}`),
        password: PASSWORD,
      }, client);
      assertEquals(response.status, 200, `sign-up ${index}`);
      await response.body?.cancel();
    }
    const limited = await post(server, "auth.sign_up", {
      email: email("sixth"),
      password: PASSWORD,
    }, client);
    assertEquals(limited.status, 429);
    assertMatch(limited.headers.get("retry-after") ?? "", /^\d+$/);
    const body = await limited.json();
    assertEquals(body.error.data.code, "rate_limited");
    assertMatch(body.error.message, /Too many sign-ups from this address/);
    const elsewhere = await post(server, "auth.sign_up", {
      email: email("elsewhere"),
      password: PASSWORD,
    }, "203.0.113.77");
    assertEquals(elsewhere.status, 200);
    await elsewhere.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("address groups: IPv4 by address, IPv6 by its /64", () => {
  assertEquals(address_group("192.0.2.7"), "192.0.2.7");
  assertEquals(address_group("::ffff:192.0.2.7"), "192.0.2.7");
  assertEquals(address_group("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  assertEquals(
    address_group("2001:db8:1:2:bbbb:cccc:dddd:eeee"),
    "2001:db8:1:2::/64",
  );
  assertEquals(address_group("2001:db8:1:3::1"), "2001:db8:1:3::/64");
  assertEquals(address_group("not an address"), "not an address");
});
