import { assertEquals, assertMatch, assertThrows } from "../assert.ts";
import { ConfigError, load_config } from "../../server/config.ts";

Deno.test("configuration defaults", () => {
  const config = load_config({});
  assertEquals(config.port, 8000);
  assertEquals(config.host, "127.0.0.1");
  assertEquals(config.data_dir, "./data");
  assertEquals(config.database_url, undefined);
  assertEquals(config.admin_token, undefined);
  assertEquals(config.rate_limit_per_minute, undefined);
  assertEquals(config.cors_origins, []);
  assertEquals(config.header_timeout_ms, 15_000);
  assertEquals(config.keep_alive_timeout_ms, 75_000);
  const set = load_config({
    HEADER_TIMEOUT_MS: "10000",
    KEEP_ALIVE_TIMEOUT_MS: "30000",
  });
  assertEquals(set.header_timeout_ms, 10_000);
  assertEquals(set.keep_alive_timeout_ms, 30_000);
  // 0 turns a timeout off.
  const off = load_config({
    HEADER_TIMEOUT_MS: "0",
    KEEP_ALIVE_TIMEOUT_MS: "0",
  });
  assertEquals([off.header_timeout_ms, off.keep_alive_timeout_ms], [0, 0]);
  assertEquals(config.operator_email, undefined);
  assertEquals(
    load_config({ OPERATOR_EMAIL: " ops@ink.example " }).operator_email,
    "ops@ink.example",
  );
});

const MAIL = "Ink <no-reply@invoices.example.com>";

Deno.test("with SMTP_URL, PUBLIC_URL is where mailed links point", () => {
  const config = load_config({
    SMTP_URL: "smtp://mailer:secret@mail.example:587",
    MAIL_FROM: MAIL,
    PUBLIC_URL: "https://invoices.example.com",
  });
  assertEquals(config.public_url, "https://invoices.example.com");
  assertEquals(load_config({}).public_url, undefined, "optional without SMTP");
});

Deno.test("invalid configuration stops start-up with a clear message", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: "eighty" }, /PORT must be a whole number/],
    [{ PORT: "70000" }, /PORT must be between 0 and 65535/],
    [{ RATE_LIMIT_PER_MINUTE: "0" }, /RATE_LIMIT_PER_MINUTE must be between 1/],
    [{ DATABASE_URL: "mysql://x" }, /DATABASE_URL must be a postgres/],
    [
      { DATABASE_URL: "postgres://ink@localhost/ink?host=/run/pg&port=x" },
      /DATABASE_URL: port must be 1-65535/,
    ],
    [{ ADMIN_TOKEN: "short" }, /ADMIN_TOKEN must be at least 16 characters/],
    [{ CORS_ORIGINS: "app.example.com" }, /CORS_ORIGINS must be/],
    [{ HEADER_TIMEOUT_MS: "50" }, /HEADER_TIMEOUT_MS must be between 100/],
    [
      { KEEP_ALIVE_TIMEOUT_MS: "soon" },
      /KEEP_ALIVE_TIMEOUT_MS must be a whole/,
    ],
    [{ SUPPORT_EMAIL: "help desk" }, /SUPPORT_EMAIL must be an e-mail/],
    [{ OPERATOR_EMAIL: "ops@localhost" }, /OPERATOR_EMAIL must be an e-mail/],
    [{ OPERATOR_EMAIL: "<ops@x.io>" }, /OPERATOR_EMAIL must be an e-mail/],
    [
      { SMTP_URL: "smtp://mailer:secret@mail.example:587", MAIL_FROM: MAIL },
      /PUBLIC_URL is required with SMTP_URL/,
    ],
  ];
  for (const [env, message] of cases) {
    const error = assertThrows(() => load_config(env), ConfigError);
    assertMatch((error as Error).message, message);
  }
});

Deno.test("main.ts exits 1 with the message on invalid configuration", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../main.ts", import.meta.url).pathname],
    env: { PORT: "not-a-port" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(output.code, 1);
  assertMatch(
    new TextDecoder().decode(output.stderr),
    /Invalid configuration: PORT must be a whole number/,
  );
  // A service that starts instead is stopped after 30 s (and fails here).
  const data_dir = await Deno.makeTempDir({ prefix: "config_test_" });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../main.ts", import.meta.url).pathname],
    env: {
      PORT: "0",
      DATA_DIR: data_dir,
      SMTP_URL: "smtp://mailer:secret@127.0.0.1:2525",
      MAIL_FROM: MAIL,
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const smtp = await child.output().finally(() => clearTimeout(timer));
  await Deno.remove(data_dir, { recursive: true });
  assertEquals(smtp.code, 1);
  assertMatch(
    new TextDecoder().decode(smtp.stderr),
    /Invalid configuration: PUBLIC_URL is required with SMTP_URL/,
  );
});

Deno.test("configuration: body rate and the anonymous part of the request memory", () => {
  const config = load_config({});
  assertEquals(config.body_min_bytes_per_second, 1024);
  assertEquals(config.request_memory_mb, 64);
  assertEquals(config.anonymous_request_memory_mb, 8);
  const set = load_config({
    BODY_MIN_BYTES_PER_SECOND: "0",
    REQUEST_MEMORY_MB: "256",
  });
  assertEquals(set.body_min_bytes_per_second, 0);
  assertEquals(set.anonymous_request_memory_mb, 32);
  assertEquals(
    load_config({ ANONYMOUS_REQUEST_MEMORY_MB: "4" })
      .anonymous_request_memory_mb,
    4,
  );
  assertEquals(
    load_config({ REQUEST_MEMORY_MB: "8" }).anonymous_request_memory_mb,
    1,
  );
  assertThrows(
    () => load_config({ ANONYMOUS_REQUEST_MEMORY_MB: "40" }),
    ConfigError,
    "ANONYMOUS_REQUEST_MEMORY_MB must be between 1 and 32, got 40",
  );
  assertThrows(
    () => load_config({ BODY_MIN_BYTES_PER_SECOND: "fast" }),
    ConfigError,
  );
});

Deno.test("configuration: database timeouts and the free space PGlite keeps", () => {
  const config = load_config({});
  assertEquals(config.database_connect_timeout_ms, 2_000);
  assertEquals(config.database_statement_timeout_ms, 5_000);
  assertEquals(config.data_dir_min_free_mb, 64);
  const set = load_config({
    DATABASE_CONNECT_TIMEOUT_MS: "1500",
    DATABASE_STATEMENT_TIMEOUT_MS: "30000",
    DATA_DIR_MIN_FREE_MB: "0",
  });
  assertEquals(set.database_connect_timeout_ms, 1_500);
  assertEquals(set.database_statement_timeout_ms, 30_000);
  assertEquals(set.data_dir_min_free_mb, 0);
  for (
    const [name, value] of [
      ["DATABASE_CONNECT_TIMEOUT_MS", "50"],
      ["DATABASE_STATEMENT_TIMEOUT_MS", "five"],
      ["DATA_DIR_MIN_FREE_MB", "-1"],
    ]
  ) {
    const error = assertThrows(
      () => load_config({ [name]: value }),
      ConfigError,
    );
    assertMatch((error as Error).message, new RegExp(name));
  }
});

Deno.test("configuration: render workers kept running while idle", () => {
  assertEquals(load_config({ RENDER_WORKERS: "4" }).render_workers_min, 1);
  assertEquals(
    load_config({ RENDER_WORKERS: "4", RENDER_WORKERS_MIN: "3" })
      .render_workers_min,
    3,
  );
  // Never more than the workers there are.
  assertEquals(
    load_config({ RENDER_WORKERS: "2", RENDER_WORKERS_MIN: "8" })
      .render_workers_min,
    2,
  );
  const error = assertThrows(
    () => load_config({ RENDER_WORKERS_MIN: "0" }),
    ConfigError,
  );
  assertMatch((error as Error).message, /RENDER_WORKERS_MIN/);
});
