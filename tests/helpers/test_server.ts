/**
 * A real server on a random loopback port for HTTP tests, with helpers to
 * create accounts and keys through the admin API.
 */
import { type Config, load_config } from "../../server/config.ts";
import { ListenError } from "../../server/listen_error.ts";
import {
  type RunningServer,
  start_server,
  type StartOptions,
} from "../../server/serve.ts";
import { open_test_database, type TestDatabase } from "./test_database.ts";
import type { Plan } from "../../contract/mod.ts";
import type { ScryptParams } from "../../server/dashboard/password.ts";
import { RestRecorder } from "./rest_recorder.ts";

/** The admin token test servers use. */
export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789";

/**
 * The scrypt cost test servers hash new passwords at: N = 2^8 (256 KiB,
 * well under a millisecond) instead of the production 2^15 (~0.1 s), so
 * sign-ups, password changes and resets cost tests nothing. Hashes carry
 * their parameters, so verifying works the same.
 */
export const TEST_SCRYPT_PARAMS: ScryptParams = { log_n: 8, r: 8, p: 1 };

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
  /**
   * Fetches a path of this server (recorded when the server was started
   * with `record`).
   */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** POSTs an invoice to /generate with a key. */
  generate(
    key: string | null,
    body: unknown,
    init?: { headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<Response>;
  close(): Promise<void>;
}

/** Options of {@link start_test_server}. */
export interface TestServerOptions extends StartOptions {
  env?: Record<string, string>;
  /** Serve from this database instead of a fresh one (e.g. a second instance). */
  test_database?: TestDatabase;
  /**
   * Hash passwords at the server's own default cost, the production one
   * (tests of that cost); otherwise {@link TEST_SCRYPT_PARAMS}.
   */
  production_scrypt_cost?: boolean;
  /** Records the answers to the helper's calls (`admin`, `generate`, `fetch`). */
  record?: RestRecorder;
}

let account_counter = 0;

/**
 * Starts the server on a free loopback port. With `SMTP_URL` and no
 * `PUBLIC_URL` (which SMTP requires), the port is chosen first and
 * `PUBLIC_URL` names it, so mailed links lead back to this server; a port
 * taken meanwhile is retried with another.
 */
async function start_on_free_port(
  options: TestServerOptions,
  test_database: TestDatabase,
): Promise<RunningServer> {
  const env: Record<string, string> = {
    PORT: "0",
    HOST: "127.0.0.1",
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    // Tests sign up many accounts from 127.0.0.1; the limit has its own test.
    SIGNUPS_PER_ADDRESS_PER_HOUR: "1000",
    ...options.env,
  };
  const pick_port = env.SMTP_URL !== undefined && env.PUBLIC_URL === undefined;
  for (let attempt = 1;; attempt++) {
    if (pick_port) {
      const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (probe.addr as Deno.NetAddr).port;
      probe.close();
      env.PORT = String(port);
      env.PUBLIC_URL = `http://127.0.0.1:${port}`;
    }
    const config: Config = load_config(env);
    try {
      return await start_server(config, {
        quiet: true,
        scrypt_params: options.production_scrypt_cost
          ? undefined
          : TEST_SCRYPT_PARAMS,
        ...options,
        database: test_database.database,
      });
    } catch (error) {
      const port_taken = error instanceof ListenError &&
        error.cause instanceof Deno.errors.AddrInUse;
      if (!pick_port || !port_taken) throw error;
      if (attempt >= 5) throw error;
    }
  }
}

/** Throws when a recorded REST answer departs from openapi/openapi.json. */
async function check_recorded(recorder: RestRecorder): Promise<void> {
  const { answer_checker, committed_document } = await import(
    "./openapi_check.ts"
  );
  const check = answer_checker(await committed_document());
  const problems = recorder.answers
    .filter((answer) => !answer.path.startsWith("/trpc/"))
    .flatMap((answer) =>
      check(answer).map((problem) =>
        `${answer.method} ${answer.path} → ${answer.status}: ${problem}`
      )
    );
  if (problems.length > 0) {
    throw new Error(
      `answers the OpenAPI document does not describe:\n${problems.join("\n")}`,
    );
  }
}

/** Starts a server on 127.0.0.1 with a fresh test database (PGlite or PostgreSQL). */
export async function start_test_server(
  options: TestServerOptions = {},
): Promise<TestServer> {
  const owns_database = options.test_database === undefined;
  const test_database = options.test_database ?? await open_test_database();
  const server = await start_on_free_port(options, test_database);
  const url = server.url;
  // OPENAPI_CHECK_ANSWERS=1: every test server records its helpers' calls
  // and checks the answers against openapi/openapi.json when it closes.
  const checked = options.record === undefined &&
      Deno.env.get("OPENAPI_CHECK_ANSWERS") === "1"
    ? new RestRecorder()
    : undefined;
  const call = (options.record ?? checked)?.fetch ?? fetch;

  async function admin(
    path: string,
    init: { method?: string; body?: unknown } = {},
  ): Promise<Response> {
    return await call(`${url}${path}`, {
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
    async fetch(path, init = {}) {
      return await call(`${url}${path}`, init);
    },
    async generate(key, body, init = {}) {
      return await call(`${url}/generate`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...(key === null ? {} : { Authorization: `Bearer ${key}` }),
          ...init.headers,
        },
        body: typeof body === "string" ? body : JSON.stringify(body),
        signal: init.signal,
      });
    },
    async close() {
      await server.shutdown();
      if (owns_database) await test_database.close();
      if (checked) await check_recorded(checked);
    },
  };
}
