import { assert, assertEquals, assertMatch } from "../assert.ts";
import { open_test_database } from "../helpers/test_database.ts";
import {
  charge_generation,
  create_account,
  create_upgrade_request,
  delete_account,
  open_database,
} from "../../db/mod.ts";

async function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../server/admin_cli.ts", import.meta.url).pathname,
      ...args,
    ],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("deno task admin: create an account and a key, revoke it", async () => {
  const test_database = await open_test_database();
  const data_dir = await Deno.makeTempDir({ prefix: "invoice-cli-" });
  // PGlite has one user at a time: close ours before the CLI opens the directory.
  const env: Record<string, string> = test_database.database_url
    ? { DATABASE_URL: test_database.database_url }
    : { DATA_DIR: data_dir };
  try {
    const created = await cli([
      "create-account",
      "--email",
      "ops@example.com",
      "--plan",
      "pro",
    ], env);
    assertEquals(created.code, 0, created.stderr);
    const account = JSON.parse(created.stdout);
    assertEquals(account.plan, "pro");
    const key = await cli(
      ["create-key", account.id, "--name", "From the CLI"],
      env,
    );
    assertEquals(key.code, 0, key.stderr);
    const created_key = JSON.parse(key.stdout);
    assertMatch(created_key.key, /^ink_live_/);
    assertEquals(created_key.mode, "live");
    const test_key = await cli(
      ["create-key", account.id, "--name", "CI", "--mode", "test"],
      env,
    );
    assertEquals(test_key.code, 0, test_key.stderr);
    assertMatch(
      JSON.parse(test_key.stdout).key,
      /^ink_test_[A-Za-z0-9_-]{43}$/,
    );
    assertEquals(JSON.parse(test_key.stdout).mode, "test");
    const bad_mode = await cli(
      ["create-key", account.id, "--name", "CI", "--mode", "sandbox"],
      env,
    );
    assert(bad_mode.code !== 0);
    const revoked = await cli(["revoke-key", created_key.id], env);
    assertEquals(revoked.code, 0, revoked.stderr);
    assertEquals(JSON.parse(revoked.stdout).status, "revoked");
    const password = await cli(["set-password", account.id], {
      ...env,
      NEW_PASSWORD: "correct horse battery staple",
    });
    assertEquals(password.code, 0, password.stderr);
    assertEquals(JSON.parse(password.stdout).password, "updated");
    const weak = await cli(["set-password", account.id], {
      ...env,
      NEW_PASSWORD: "short",
    });
    assertEquals(weak.code, 2);
    const bad = await cli(["set-plan", account.id, "gold"], env);
    assertEquals(bad.code, 2);
    assert(bad.stderr.includes("Invalid input"));
    const unknown = await cli(["explode"], env);
    assertEquals(unknown.code, 2);
    assertMatch(unknown.stderr, /Unknown command "explode"/);
  } finally {
    await Deno.remove(data_dir, { recursive: true });
    await test_database.close();
  }
});

Deno.test("deno task admin: list-upgrade-requests; set-plan closes the open request", async () => {
  const test_database = await open_test_database();
  const data_dir = await Deno.makeTempDir({ prefix: "invoice-cli-" });
  const env: Record<string, string> = test_database.database_url
    ? { DATABASE_URL: test_database.database_url }
    : { DATA_DIR: data_dir };
  try {
    // A customer's request, recorded where the CLI will look.
    const seed = test_database.database_url
      ? test_database.database
      : await open_database({ data_dir });
    const account = await create_account(seed, {
      email: "asks@example.com",
      plan: "starter",
    });
    await create_upgrade_request(seed, {
      account_id: account.id,
      current_plan: "starter",
      requested_plan: "team",
      message: "Year-end rush",
      now: new Date(),
    });
    // PGlite has one user at a time.
    if (!test_database.database_url) await seed.close();

    const open = await cli(["list-upgrade-requests", "--status", "open"], env);
    assertEquals(open.code, 0, open.stderr);
    const [request] = JSON.parse(open.stdout);
    assertEquals(request.account_email, "asks@example.com");
    assertEquals(request.requested_plan, "team");
    assertEquals(request.message, "Year-end rush");
    assertEquals(request.status, "open");

    const granted = await cli(["set-plan", account.id, "team"], env);
    assertEquals(granted.code, 0, granted.stderr);
    assertEquals(JSON.parse(granted.stdout).plan, "team");

    const still_open = await cli(
      ["list-upgrade-requests", "--status", "open"],
      env,
    );
    assertEquals(JSON.parse(still_open.stdout), []);
    const closed = await cli(
      ["list-upgrade-requests", "--status", "closed", "--limit", "5"],
      env,
    );
    assertEquals(closed.code, 0, closed.stderr);
    const [done] = JSON.parse(closed.stdout);
    assertEquals(done.id, request.id);
    assertEquals(done.closed_by, "admin_cli");
    assertEquals(done.resulting_plan, "team");
    assert(done.closed_at);

    const bad = await cli(["list-upgrade-requests", "--status", "maybe"], env);
    assertEquals(bad.code, 2);
    assertMatch(bad.stderr, /Invalid input/);
    const help = await cli(["--help"], env);
    assertMatch(help.stdout, /list-upgrade-requests/);
  } finally {
    await Deno.remove(data_dir, { recursive: true });
    await test_database.close();
  }
});

Deno.test("deno task admin: deleted-usage lists deleted accounts' month totals, nothing personal", async () => {
  const test_database = await open_test_database();
  const data_dir = await Deno.makeTempDir({ prefix: "invoice-cli-" });
  const env: Record<string, string> = test_database.database_url
    ? { DATABASE_URL: test_database.database_url }
    : { DATA_DIR: data_dir };
  try {
    const seed = test_database.database_url
      ? test_database.database
      : await open_database({ data_dir });
    const account = await create_account(seed, {
      email: "leaving@example.com",
      plan: "pro",
    });
    for (const hash of ["a", "b", "c"]) {
      await charge_generation(seed, {
        account_id: account.id,
        month: "2026-02",
        day: "2026-02-11",
        limit: 1000,
        request_hash: hash.repeat(64),
      });
    }
    await delete_account(seed, account.id);
    if (!test_database.database_url) await seed.close();

    const listed = await cli(["deleted-usage"], env);
    assertEquals(listed.code, 0, listed.stderr);
    assertEquals(JSON.parse(listed.stdout), [
      { month: "2026-02", count: 3, test_count: 0, accounts: 1 },
    ]);
    assert(!listed.stdout.includes("leaving@example.com"));
    assert(!listed.stdout.includes(account.id));
  } finally {
    await Deno.remove(data_dir, { recursive: true });
    await test_database.close();
  }
});
