/**
 * A real server on a random loopback port for HTTP tests, with helpers to
 * create accounts and keys through the admin API.
 */
import { type Config, load_config } from "../../server/config.ts";
import {
  type RunningServer,
  start_server,
  type StartOptions,
} from "../../server/serve.ts";
import { open_test_database, type TestDatabase } from "./test_database.ts";
import type { Plan } from "../../contract/mod.ts";

/** The admin token test servers use. */
export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789";

/** A running test server. */
export interface TestServer {
  url: string;
  server: RunningServer;
  test_database: TestDatabase;
  /** Calls the admin API with the test admin token. */
  admin(
    path: string,
    init?: { method?: string; body?: unknown },
  ): Promise<Response>;
  /** Creates an account (and a key) through the admin API. */
  create_account(options?: {
    plan?: Plan;
    subscription_status?: "active" | "inactive";
  }): Promise<{ account_id: string; key: string; key_id: string }>;
  /** POSTs an invoice to /generate with a key. */
  generate(
    key: string | null,
    body: unknown,
    init?: { headers?: Record<string, string> },
  ): Promise<Response>;
  close(): Promise<void>;
}

/** Options of {@link start_test_server}. */
export interface TestServerOptions extends StartOptions {
  env?: Record<string, string>;
  /** Serve from this database instead of a fresh one (e.g. a second instance). */
  test_database?: TestDatabase;
}

let account_counter = 0;

/** Starts a server on 127.0.0.1 with a fresh test database (PGlite or PostgreSQL). */
export async function start_test_server(
  options: TestServerOptions = {},
): Promise<TestServer> {
  const owns_database = options.test_database === undefined;
  const test_database = options.test_database ?? await open_test_database();
  const config: Config = load_config({
    PORT: "0",
    HOST: "127.0.0.1",
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    // Tests sign up many accounts from 127.0.0.1; the limit has its own test.
    SIGNUPS_PER_ADDRESS_PER_HOUR: "1000",
    ...options.env,
  });
  const server = await start_server(config, {
    quiet: true,
    ...options,
    database: test_database.database,
  });
  const url = server.url;

  async function admin(
    path: string,
    init: { method?: string; body?: unknown } = {},
  ): Promise<Response> {
    return await fetch(`${url}${path}`, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: {
        Authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        ...(init.body === undefined
          ? {}
          : { "Content-Type": "application/json" }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  }

  return {
    url,
    server,
    test_database,
    admin,
    async create_account(account_options = {}) {
      account_counter += 1;
      const created = await admin("/admin/accounts", {
        body: {
          email: `user${account_counter}-${
            crypto.randomUUID().slice(0, 8)
          }@example.com`,
          plan: account_options.plan ?? "starter",
          subscription_status: account_options.subscription_status ?? "active",
        },
      });
      if (created.status !== 201) {
        throw new Error(
          `create account: ${created.status} ${await created.text()}`,
        );
      }
      const account = await created.json();
      const key_response = await admin(`/admin/accounts/${account.id}/keys`, {
        body: { name: "Test key" },
      });
      if (key_response.status !== 201) {
        throw new Error(
          `create key: ${key_response.status} ${await key_response.text()}`,
        );
      }
      const key = await key_response.json();
      return { account_id: account.id, key: key.key, key_id: key.id };
    },
    async generate(key, body, init = {}) {
      return await fetch(`${url}/generate`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...(key === null ? {} : { Authorization: `Bearer ${key}` }),
          ...init.headers,
        },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    },
    async close() {
      await server.shutdown();
      if (owns_database) await test_database.close();
    },
  };
}
