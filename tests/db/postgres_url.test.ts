/**
 * A `DATABASE_URL` as libpq reads it: the host and port may come from the
 * query string, a Unix socket's directory as the host.
 */
import { sql } from "drizzle-orm";
import { assertEquals, assertThrows } from "../assert.ts";
import { open_database, postgres_target } from "../../db/mod.ts";
import { query_rows } from "../../db/_util.ts";
import {
  start_throwaway_postgres,
  throwaway_postgres_available,
} from "../helpers/throwaway_postgres.ts";

Deno.test("the host and port of a URL's query become options; the rest of the URL stays", () => {
  assertEquals(postgres_target("postgres://ink@db.internal:6432/ink"), {
    url: "postgres://ink@db.internal:6432/ink",
  });
  assertEquals(
    postgres_target(
      "postgres://ink@localhost/ink?host=/var/run/postgresql&sslmode=disable",
    ),
    {
      url: "postgres://ink@localhost/ink?sslmode=disable",
      host: "/var/run/postgresql",
    },
  );
  assertEquals(
    postgres_target(
      "postgresql://ink@localhost/ink?host=%2Frun%2Fpg&port=5433",
    ),
    { url: "postgresql://ink@localhost/ink", host: "/run/pg", port: 5433 },
  );
  assertEquals(
    postgres_target("postgres://ink@localhost/ink?application_name=x"),
    { url: "postgres://ink@localhost/ink?application_name=x" },
  );
  assertThrows(
    () => postgres_target("postgres://ink@localhost/ink?port=0"),
    Error,
    "port must be 1-65535",
  );
});

Deno.test({
  name: "the service's database over a Unix socket named in the URL's query",
  ignore: !throwaway_postgres_available(),
  async fn() {
    const cluster = await start_throwaway_postgres();
    try {
      const database = await open_database({
        database_url:
          `postgres://postgres@localhost/postgres?host=${cluster.socket_dir}&port=${cluster.port}`,
        connect_timeout_ms: 2_000,
        statement_timeout_ms: 2_000,
        log: () => {},
      });
      try {
        // The server's address is null on a Unix-socket connection.
        const rows = await query_rows<{ address: string | null }>(
          database,
          sql`select inet_server_addr()::text as address`,
        );
        assertEquals([...rows], [{ address: null }]);
        // The migrations ran over it too.
        const tables = await query_rows<{ count: number }>(
          database,
          sql`select count(*)::int as count from information_schema.tables
              where table_name = 'api_keys'`,
        );
        assertEquals([...tables], [{ count: 1 }]);
      } finally {
        await database.close();
      }
    } finally {
      await cluster.destroy();
    }
  },
});
