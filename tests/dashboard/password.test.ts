/**
 * The scrypt cost of password hashes: production hashes at
 * `DEFAULT_SCRYPT_PARAMS` (N = 2^15, r = 8, p = 1), a caller may inject
 * another cost, and every hash verifies by the parameters it carries. Test
 * servers inject a low cost so sign-ups do not spend ~0.1 s of CPU each.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import {
  DEFAULT_SCRYPT_PARAMS,
  hash_password,
  verify_password,
} from "../../server/dashboard/password.ts";
import { schema } from "../../db/mod.ts";
import {
  start_test_server,
  TEST_SCRYPT_PARAMS,
  type TestServer,
} from "../helpers/test_server.ts";

const PASSWORD = "correct horse battery staple";

async function stored_hash_after_sign_up(server: TestServer): Promise<string> {
  const response = await fetch(`${server.url}/trpc/auth.sign_up`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: "cost@example.com", password: PASSWORD }),
  });
  assertEquals(response.status, 200, await response.clone().text());
  await response.body?.cancel();
  const accounts = await server.test_database.database.db.select()
    .from(schema.accounts);
  assertEquals(accounts.length, 1);
  return accounts[0].password_hash ?? "";
}

Deno.test("password hashes: production cost by default, N = 2^15, r = 8, p = 1", async () => {
  assertEquals(DEFAULT_SCRYPT_PARAMS, { log_n: 15, r: 8, p: 1 });
  const stored = await hash_password(PASSWORD);
  assertMatch(stored, /^scrypt\$15\$8\$1\$/);
  assert(await verify_password(PASSWORD, stored));
  assert(!await verify_password("wrong horse battery staple", stored));
});

Deno.test("password hashes: an injected cost is stored with the hash and verifies by it", async () => {
  const stored = await hash_password(PASSWORD, TEST_SCRYPT_PARAMS);
  assertMatch(stored, /^scrypt\$8\$8\$1\$/);
  assert(await verify_password(PASSWORD, stored));
  assert(!await verify_password("wrong horse battery staple", stored));
});

Deno.test("a server started without a cost (as main.ts starts it) hashes sign-ups at the production cost", async () => {
  const server = await start_test_server({ production_scrypt_cost: true });
  try {
    assertMatch(await stored_hash_after_sign_up(server), /^scrypt\$15\$8\$1\$/);
  } finally {
    await server.close();
  }
});

Deno.test("test servers hash sign-ups at the low test cost", async () => {
  const server = await start_test_server();
  try {
    assertMatch(await stored_hash_after_sign_up(server), /^scrypt\$8\$8\$1\$/);
  } finally {
    await server.close();
  }
});
