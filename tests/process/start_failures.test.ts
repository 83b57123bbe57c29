/**
 * `main.ts` started with settings it cannot serve with ends with exit 1 and
 * one line that says why and what to change, never an uncaught error with a
 * stack: a PostgreSQL server that refuses what `DATABASE_URL` asks (a
 * database that does not exist, a setting it does not know, a user who may
 * not create the tables; a throwaway cluster, the shared one is not
 * touched) or that cannot be reached, the operator CLI against such a
 * database, a `DATA_DIR` that cannot be a directory or that another process
 * holds, and a `HOST:PORT` it cannot listen on.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
} from "../assert.ts";
import {
  start_throwaway_postgres,
  throwaway_postgres_available,
} from "../helpers/throwaway_postgres.ts";
import {
  CHECKOUT_DIR,
  start_service_process,
} from "../helpers/service_process.ts";
import { free_port } from "../helpers/free_port.ts";
import { database_refusal_of } from "../../db/mod.ts";
import { ListenError } from "../../server/listen_error.ts";

async function start_output(
  env: Record<string, string>,
  script_args = ["main.ts"],
): Promise<{ code: number; stderr: string }> {
  const [script, ...args] = script_args;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${CHECKOUT_DIR}/${script}`, ...args],
    cwd: CHECKOUT_DIR,
    env: { PORT: "0", HOST: "127.0.0.1", ...env },
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

function assert_one_line_failure(
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
      assert_one_line_failure(
        await start_output({ DATABASE_URL: `${base}/no_such_database` }),
        /^Cannot open the database: PostgreSQL refused: database "no_such_database" does not exist \(SQLSTATE 3D000\); create that database/,
      );
      // The operator CLI opens the database as the service does.
      assert_one_line_failure(
        await start_output({ DATABASE_URL: `${base}/no_such_database` }, [
          "server/admin_cli.ts",
          "get-account",
          crypto.randomUUID(),
        ]),
        /^Cannot open the database: PostgreSQL refused: database "no_such_database" does not exist \(SQLSTATE 3D000\)/,
      );
      assert_one_line_failure(
        await start_output({
          DATABASE_URL: `${base}/postgres?no_such_setting=1`,
        }),
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
      assert_one_line_failure(
        await start_output({
          DATABASE_URL:
            `postgres://reader@127.0.0.1:${cluster.port}/readers_db`,
        }),
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

Deno.test("an unreachable PostgreSQL ends the start in one line naming its address", async () => {
  const port = free_port();
  assert_one_line_failure(
    await start_output({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/ink`,
    }),
    new RegExp(
      `^Cannot open the database: PostgreSQL is unreachable: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`,
      "m",
    ),
  );
});

Deno.test("a DATA_DIR that cannot be a directory ends the start in one line naming it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ink-start-" });
  try {
    const file = `${dir}/a_file`;
    await Deno.writeTextFile(file, "");
    assert_one_line_failure(
      await start_output({ DATA_DIR: file }),
      /^Cannot open the database: DATA_DIR \S+\/a_file cannot be used: File exists.*; set DATA_DIR to a directory this user can create and write$/m,
    );
    // A directory inside a file cannot be made either.
    assert_one_line_failure(
      await start_output({ DATA_DIR: `${file}/data` }),
      /^Cannot open the database: DATA_DIR \S+\/a_file\/data cannot be used: .*; set DATA_DIR to a directory this user can create and write$/m,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a HOST:PORT the service cannot listen on ends the start in one line naming it", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (taken.addr as Deno.NetAddr).port;
    assert_one_line_failure(
      await start_output({ PORT: String(port), DATA_DIR: "memory://" }),
      new RegExp(
        `^Cannot listen on 127\\.0\\.0\\.1:${port}: .*; another process listens there; stop it, or set PORT to a free port$`,
        "m",
      ),
    );
  } finally {
    taken.close();
  }
  // An address of the TEST-NET-3 range, which no interface here has.
  assert_one_line_failure(
    await start_output({ HOST: "203.0.113.5", DATA_DIR: "memory://" }),
    /^Cannot listen on 203\.0\.113\.5:0: .*; no network interface of this machine has that address/m,
  );
});

Deno.test("ListenError names the address and, for each kind of failure, what to change", () => {
  const cases: [Error, RegExp][] = [
    [
      new Deno.errors.AddrInUse("Address already in use (os error 98)"),
      /; another process listens there; stop it, or set PORT to a free port$/,
    ],
    [
      new Deno.errors.PermissionDenied("Permission denied (os error 13)"),
      /; this user may not listen on that port \(ports below 1024 need privileges\); set PORT to 1024 or above$/,
    ],
    // A name that does not resolve (not looked up here: tests stay on
    // loopback).
    [
      new Error(
        "failed to lookup address information: Name or service not known",
      ),
      /; HOST is neither an address nor a name this machine resolves; set HOST to an address/,
    ],
  ];
  for (const [cause, hint] of cases) {
    const error = new ListenError("example.test", 80, cause);
    assertMatch(error.message, /^Cannot listen on example\.test:80: /);
    assertStringIncludes(error.message, cause.message);
    assertMatch(error.message, hint);
    assertEquals(error.cause, cause);
  }
  // Anything else is told as the runtime tells it.
  assertEquals(
    new ListenError("127.0.0.1", 8000, new Error("something new")).message,
    "Cannot listen on 127.0.0.1:8000: something new",
  );
});

Deno.test("a start_server that cannot listen closes what it opened: the process then ends by itself", async () => {
  // Render workers, the housekeeping timer and the database would keep a
  // process alive; an embedder (or a test retrying another port) gets it
  // back with nothing left running.
  const script = `
    const { load_config } = await import(${
    JSON.stringify(`${CHECKOUT_DIR}/server/config.ts`)
  });
    const { start_server } = await import(${
    JSON.stringify(`${CHECKOUT_DIR}/server/serve.ts`)
  });
    const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const config = load_config({
      HOST: "127.0.0.1",
      PORT: String(taken.addr.port),
      DATA_DIR: "memory://",
      RENDER_WORKERS: "2",
      RENDER_WORKERS_MIN: "2",
    });
    try {
      await start_server(config, { quiet: true });
    } catch (error) {
      console.log(error.name, error.cause?.name);
    }
    taken.close();
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--node-modules-dir=auto", script],
    cwd: CHECKOUT_DIR,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).output().catch((error) => {
    throw new Error(`the process did not end by itself: ${error}`);
  });
  const stderr = new TextDecoder().decode(output.stderr);
  assertEquals(output.code, 0, stderr);
  assertEquals(
    new TextDecoder().decode(output.stdout).trim(),
    "ListenError AddrInUse",
  );
});

Deno.test("a second service or the operator CLI on a running service's DATA_DIR is refused, and the service keeps serving", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ink-start-" });
  const service = await start_service_process({ DATA_DIR: dir });
  try {
    const in_use =
      /^Cannot open the database: DATA_DIR \S+ cannot be used: another process has it open \(a running service, or the operator CLI\); stop that process first; while the service runs, use its admin API instead of the CLI$/m;
    assert_one_line_failure(await start_output({ DATA_DIR: dir }), in_use);
    assert_one_line_failure(
      await start_output({ DATA_DIR: dir }, [
        "server/admin_cli.ts",
        "get-account",
        crypto.randomUUID(),
      ]),
      in_use,
    );
    const ready = await fetch(`${service.url}/readyz`, {
      signal: AbortSignal.timeout(10_000),
    });
    assertEquals(ready.status, 200, await ready.text());
  } finally {
    service.child.kill("SIGTERM");
    await service.status;
    await Deno.remove(dir, { recursive: true });
  }
});
