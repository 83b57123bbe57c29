/**
 * `main.ts` against a PostgreSQL server that answers but refuses what
 * `DATABASE_URL` asks (a database that does not exist, a setting it does
 * not know, a user who may not create the tables), and the operator CLI
 * against a database that does not exist: the process exits 1
 * with one line naming the server's words, its SQLSTATE and what to
 * change, not an uncaught error with a stack. The server is a throwaway
 * cluster; the shared one is not touched.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import {
  start_throwaway_postgres,
  throwaway_postgres_available,
} from "../helpers/throwaway_postgres.ts";
import { CHECKOUT_DIR } from "../helpers/service_process.ts";
import { database_refusal_of } from "../../db/mod.ts";

async function start_output(
  database_url: string,
  script_args = ["main.ts"],
): Promise<{ code: number; stderr: string }> {
  const [script, ...args] = script_args;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${CHECKOUT_DIR}/${script}`, ...args],
    cwd: CHECKOUT_DIR,
    env: { PORT: "0", HOST: "127.0.0.1", DATABASE_URL: database_url },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  return {
    code: output.code,
    stderr: new TextDecoder().decode(output.stderr),
  };
}

function assert_one_line_refusal(
  result: { code: number; stderr: string },
  expected: RegExp,
): void {
  assertEquals(result.code, 1, result.stderr);
  assertMatch(result.stderr, expected);
  assert(!/Uncaught|\n\s+at /.test(result.stderr), result.stderr);
  assertEquals(result.stderr.trim().split("\n").length, 1, result.stderr);
}

Deno.test({
  name:
    "a start refused by PostgreSQL ends in one line with the server's words, SQLSTATE and what to change",
  ignore: !throwaway_postgres_available(),
  async fn() {
    const cluster = await start_throwaway_postgres();
    try {
      const base = `postgres://postgres@127.0.0.1:${cluster.port}`;
      assert_one_line_refusal(
        await start_output(`${base}/no_such_database`),
        /^Cannot open the database: PostgreSQL refused: database "no_such_database" does not exist \(SQLSTATE 3D000\); create that database/,
      );
      // The operator CLI opens the database as the service does.
      assert_one_line_refusal(
        await start_output(`${base}/no_such_database`, [
          "server/admin_cli.ts",
          "get-account",
          crypto.randomUUID(),
        ]),
        /^Cannot open the database: PostgreSQL refused: database "no_such_database" does not exist \(SQLSTATE 3D000\)/,
      );
      assert_one_line_refusal(
        await start_output(`${base}/postgres?no_such_setting=1`),
        /^Cannot open the database: PostgreSQL refused: unrecognized configuration parameter "no_such_setting" \(SQLSTATE 42704\); remove the unknown setting/,
      );
      // A plain login role may connect to a database it does not own but
      // not create the migrations' schema in it.
      const admin = new Deno.Command("psql", {
        args: [
          `${base}/postgres`,
          "-v",
          "ON_ERROR_STOP=1",
          "-c",
          "create role reader login",
          "-c",
          "create database readers_db",
        ],
        stdout: "null",
        stderr: "piped",
      });
      const created = await admin.output();
      assert(created.success, new TextDecoder().decode(created.stderr));
      assert_one_line_refusal(
        await start_output(
          `postgres://reader@127.0.0.1:${cluster.port}/readers_db`,
        ),
        /^Cannot open the database: PostgreSQL refused: permission denied for database readers_db \(SQLSTATE 42501\); the user in DATABASE_URL needs the right to create schemas and tables/,
      );
    } finally {
      await cluster.destroy();
    }
  },
});

Deno.test("database_refusal_of finds a server's error in a cause chain and leaves client-side errors alone", () => {
  const server_error = Object.assign(
    new Error('password authentication failed for user "ink"'),
    { code: "28P01", severity: "FATAL" },
  );
  assertEquals(
    database_refusal_of(new Error("wrapped", { cause: server_error })),
    {
      code: "28P01",
      message: 'password authentication failed for user "ink"',
      hint: "check the user and password in DATABASE_URL",
    },
  );
  assertEquals(
    database_refusal_of(
      Object.assign(new Error("connect ECONNREFUSED"), {
        code: "ECONNREFUSED",
      }),
    ),
    undefined,
  );
  assertEquals(
    database_refusal_of(
      Object.assign(new Error("write CONNECTION_CLOSED"), {
        code: "CONNECTION_CLOSED",
      }),
    ),
    undefined,
  );
  assertEquals(database_refusal_of(new TypeError("a bug")), undefined);
});
