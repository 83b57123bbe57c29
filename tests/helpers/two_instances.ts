/**
 * Two app instances sharing one database, for tests of limits that must
 * hold across instances: on PostgreSQL (`TEST_DATABASE_URL`) each has its
 * own connection pool; on PGlite both serve the one in-process database.
 *
 * @module
 */
import { start_test_server, type TestServer } from "./test_server.ts";
import { open_test_database, type TestDatabase } from "./test_database.ts";
import { type Database, open_database } from "../../db/mod.ts";

/** Two running instances over one database. */
export interface TwoInstances {
  servers: TestServer[];
  database: Database;
  close(): Promise<void>;
}

/** Starts two instances with rate limits out of the way. */
export async function start_two_instances(): Promise<TwoInstances> {
  const test_database = await open_test_database();
  const env = { RATE_LIMIT_PER_MINUTE: "100000" };
  const second_handle = test_database.database_url
    ? await open_database({ database_url: test_database.database_url })
    : undefined;
  // On PGlite the second instance shares the one database handle.
  const second_database: TestDatabase = second_handle
    ? {
      ...test_database,
      database: second_handle,
      close: () => second_handle.close(),
    }
    : { ...test_database, close: () => Promise.resolve() };
  const servers = [
    await start_test_server({ env, test_database }),
    await start_test_server({ env, test_database: second_database }),
  ];
  return {
    servers,
    database: test_database.database,
    async close() {
      for (const server of servers) await server.close();
      await second_handle?.close();
      await test_database.close();
    },
  };
}
