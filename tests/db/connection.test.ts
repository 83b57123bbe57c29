import { assert, assertEquals, assertStrictEquals } from "../assert.ts";
import { sql } from "drizzle-orm";
import {
  DatabaseUnavailableError,
  get_account,
  is_database_unavailable,
  open_database,
} from "../../db/mod.ts";
import { query_rows } from "../../db/_util.ts";
import {
  create_empty_test_database,
  test_server_url,
} from "../helpers/test_database.ts";
import { start_tcp_proxy } from "../helpers/tcp_proxy.ts";
import {
  start_throwaway_postgres,
  throwaway_postgres_available,
} from "../helpers/throwaway_postgres.ts";

const server_url = test_server_url();

// Fails the test instead of hanging it if `promise` never settles.
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once a ping succeeds (every 100 ms). */
async function until_reachable(
  database: Awaited<ReturnType<typeof open_database>>,
): Promise<void> {
  while (!(await database.ping().then(() => true, () => false))) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function migration_count(
  database: Awaited<ReturnType<typeof open_database>>,
): Promise<number> {
  const rows = await query_rows<{ n: number }>(
    database,
    sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
  );
  return rows[0]!.n;
}

Deno.test("pglite: migrations apply twice harmlessly in a data dir", async () => {
  const dir = await Deno.makeTempDir({ prefix: "db_migrations_" });
  try {
    const data_dir = `${dir}/nested/pg`; // created if missing
    const first = await open_database({ data_dir });
    assertStrictEquals(first.kind, "pglite");
    const applied = await migration_count(first);
    assert(applied >= 1);
    await first.ping();
    await first.close();
    await first.close(); // idempotent

    const second = await open_database({ data_dir });
    try {
      assertStrictEquals(await migration_count(second), applied);
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "postgres: concurrent opens migrate once; reopening is harmless",
  ignore: !server_url,
  async fn() {
    const empty = await create_empty_test_database(server_url!);
    try {
      // Without the advisory lock these race on CREATE SCHEMA/TABLE.
      const handles = await Promise.all([
        open_database({ database_url: empty.database_url }),
        open_database({ database_url: empty.database_url }),
        open_database({ database_url: empty.database_url }),
      ]);
      try {
        assertStrictEquals(handles[0]!.kind, "postgres");
        const applied = await migration_count(handles[0]!);
        assert(applied >= 1);
        const again = await open_database({ database_url: empty.database_url });
        try {
          assertStrictEquals(await migration_count(again), applied);
        } finally {
          await again.close();
        }
      } finally {
        await Promise.all(handles.map((handle) => handle.close()));
      }
    } finally {
      await empty.drop();
    }
  },
});

Deno.test("postgres: unreachable server rejects quickly as unavailable", async () => {
  // A port that was free a moment ago: nothing listens there.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const error = await within(
    20_000,
    open_database({ database_url: `postgres://postgres@127.0.0.1:${port}/x` })
      .then(
        async (database) => {
          await database.close();
          throw new Error("open_database should have failed");
        },
        (error: unknown) => error,
      ),
  );
  assert(error instanceof DatabaseUnavailableError, String(error));
  assert(is_database_unavailable(error));
});

Deno.test("is_database_unavailable recognises connection failures only", () => {
  const coded = (code: string, message = "x") =>
    Object.assign(new Error(message), { code });
  for (
    const error of [
      coded("ECONNREFUSED"),
      coded("CONNECT_TIMEOUT"),
      coded("CONNECTION_CLOSED"),
      coded("CONNECTION_ENDED"),
      coded("CONNECTION_DESTROYED"),
      coded("57P01", "terminating connection due to administrator command"),
      coded("57014", "canceling statement due to statement timeout"),
      coded("08006"),
      new Error("Connection terminated unexpectedly"),
      new Error("wrapped", { cause: coded("ECONNRESET") }),
      new DatabaseUnavailableError("down"),
    ]
  ) {
    assert(is_database_unavailable(error), String(error));
  }
  for (
    const error of [
      coded("23505", "duplicate key"),
      coded("40P01", "deadlock detected; timeout"),
      new Error("syntax error"),
      "ECONNREFUSED",
      undefined,
      null,
    ]
  ) {
    assert(!is_database_unavailable(error), String(error));
  }
});

Deno.test({
  name: "postgres: outage surfaces as rejection; pool recovers by itself",
  ignore: !server_url,
  async fn() {
    const empty = await create_empty_test_database(server_url!);
    const target = new URL(empty.database_url);
    const proxy = start_tcp_proxy(target.hostname, Number(target.port || 5432));
    try {
      const via_proxy = new URL(empty.database_url);
      via_proxy.hostname = "127.0.0.1";
      via_proxy.port = String(proxy.port);
      const database = await open_database({
        database_url: via_proxy.toString(),
      });
      try {
        await database.ping();
        const missing = crypto.randomUUID();
        assertStrictEquals(await get_account(database, missing), undefined);

        await proxy.stop();
        const ping_error = await within(
          20_000,
          database.ping().then(() => undefined, (error: unknown) => error),
        );
        assert(ping_error instanceof DatabaseUnavailableError);
        const query_error = await within(
          20_000,
          get_account(database, missing).then(
            () => undefined,
            (error: unknown) => error,
          ),
        );
        assert(query_error !== undefined, "query should fail while down");
        assert(is_database_unavailable(query_error), String(query_error));

        proxy.start();
        // Back once the breaker's next probe (at most 2 s apart) succeeds.
        await within(20_000, until_reachable(database));
        assertStrictEquals(await get_account(database, missing), undefined);
      } finally {
        await database.close();
      }
    } finally {
      await proxy.stop();
      await empty.drop();
    }
  },
});

Deno.test({
  name:
    "postgres: a connection that stops answering fails its statement within the statement timeout, the next at once, and is not used again",
  ignore: !throwaway_postgres_available(),
  async fn() {
    const cluster = await start_throwaway_postgres();
    const proxy = start_tcp_proxy("127.0.0.1", cluster.port);
    const url = new URL(cluster.url);
    url.port = String(proxy.port);
    const lines: string[] = [];
    const database = await open_database({
      database_url: url.toString(),
      connect_timeout_ms: 1_000,
      statement_timeout_ms: 1_000,
      log: (line) => lines.push(line),
    });
    const missing = crypto.randomUUID();
    try {
      // One connection, open and idle: the next statement goes to it.
      assertStrictEquals(await get_account(database, missing), undefined);
      proxy.stall();
      let started = performance.now();
      const stalled = await within(
        20_000,
        get_account(database, missing).then(() => undefined, (e) => e),
      );
      const stalled_ms = performance.now() - started;
      assert(is_database_unavailable(stalled), String(stalled));
      // The deadline is the statement timeout and 250 ms.
      assert(
        stalled_ms < 3_000,
        `stalled statement failed after ${stalled_ms} ms`,
      );
      started = performance.now();
      const refused = await within(
        20_000,
        database.ping().then(() => undefined, (e) => e),
      );
      const refused_ms = performance.now() - started;
      assert(refused instanceof DatabaseUnavailableError);
      assert(refused_ms < 500, `refused after ${refused_ms} ms`);
      // The stalled connection stays silent for good; the pool connects anew.
      proxy.resume();
      await within(20_000, until_reachable(database));
      assertStrictEquals(await get_account(database, missing), undefined);
      assert(lines.some((line) => line.startsWith("Database unreachable")));
      assert(lines.some((line) => line.startsWith("Database reachable again")));
      console.log(
        `stalled statement failed after ${Math.round(stalled_ms)} ms, ` +
          `the next after ${Math.round(refused_ms)} ms`,
      );
    } finally {
      await proxy.stop();
      await database.close();
      await cluster.destroy();
    }
  },
});

Deno.test({
  name:
    "postgres: connections left hanging by a short stall are not used again once the database answers",
  ignore: !throwaway_postgres_available(),
  async fn() {
    const cluster = await start_throwaway_postgres();
    const proxy = start_tcp_proxy("127.0.0.1", cluster.port);
    const url = new URL(cluster.url);
    url.port = String(proxy.port);
    const database = await open_database({
      database_url: url.toString(),
      connect_timeout_ms: 1_000,
      statement_timeout_ms: 1_000,
      log: () => {},
    });
    const missing = crypto.randomUUID();
    // A prepared statement, as the per-request ones: postgres.js pipelines
    // these onto a connection that is still busy.
    const statement = () =>
      database.run({
        name: "short_stall_probe",
        types: ["uuid"],
        text: "select id from accounts where id = $1",
      }, [missing]).then(() => "ok", (e) => String(e));
    try {
      // Three connections, each busy with a statement when the stall begins.
      await Promise.all([1, 2, 3].map(() => statement()));
      proxy.stall();
      const hung = await within(
        20_000,
        Promise.all([1, 2, 3].map(() => statement())),
      );
      assert(hung.every((outcome) => outcome !== "ok"), String(hung));
      // The network is back before the first probe: the probe connects
      // anew and succeeds, while the three stay silent for good.
      proxy.resume();
      await within(20_000, until_reachable(database));
      const outcomes = await within(
        20_000,
        Promise.all(Array.from({ length: 30 }, () => statement())),
      );
      assertEquals(
        outcomes.filter((outcome) => outcome !== "ok"),
        [],
        "no statement goes to a connection left hanging",
      );
    } finally {
      await proxy.stop();
      await database.close();
      await cluster.destroy();
    }
  },
});
