/**
 * Entry point: reads configuration, starts the service, stops cleanly on
 * SIGTERM / SIGINT.
 */
import { database_open_failure } from "./db/mod.ts";
import { ConfigError, load_config } from "./server/config.ts";
import { LOGGED_LINK_MARK } from "./contract/auth.ts";
import { start_server } from "./server/serve.ts";
import { ListenError } from "./server/listen_error.ts";

/**
 * How long closing the database and mail may take once the requests in
 * flight were answered or `SHUTDOWN_TIMEOUT_MS` passed.
 */
const CLOSE_GRACE_MS = 5_000;

if (import.meta.main) {
  let config;
  try {
    config = load_config(Deno.env.toObject());
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Invalid configuration: ${error.message}`);
      Deno.exit(1);
    }
    throw error;
  }
  let server;
  try {
    server = await start_server(config);
  } catch (error) {
    if (error instanceof ListenError) {
      console.error(error.message);
      Deno.exit(1);
    }
    const failure = database_open_failure(error, config.database_url);
    if (failure) {
      console.error(`Cannot open the database: ${failure}`);
      Deno.exit(1);
    }
    throw error;
  }
  console.error(
    `Invoice PDF service listening on ${server.url} (database: ${
      config.database_url ? "PostgreSQL" : `PGlite in ${config.data_dir}`
    }; admin API ${config.admin_token ? "enabled" : "disabled"})`,
  );
  const { max_connections, lowered } = server.connection_cap;
  console.error(
    `Connections: at most ${max_connections} open (${
      config.max_connections === undefined
        ? "MAX_CONNECTIONS unset: derived from the open-files limit"
        : lowered
        ? `MAX_CONNECTIONS=${config.max_connections} lowered to what the open-files limit leaves; raise ulimit -n for more`
        : "MAX_CONNECTIONS"
    })`,
  );
  if (config.signup_enabled) {
    console.error(`Dashboard: open ${server.url} to sign up and sign in`);
  }
  if (config.smtp_url) {
    const smtp = new URL(config.smtp_url);
    console.error(
      `Mail: SMTP via ${smtp.hostname}:${
        smtp.port || (smtp.protocol === "smtps:" ? 465 : 587)
      } from ${config.mail_from}; links point to ${config.public_url}`,
    );
  } else {
    console.error(
      `Mail: SMTP_URL is not set; password-reset and verification mails are written to the log instead of being sent (their links on lines starting with "${LOGGED_LINK_MARK}"); links point to ${
        config.public_url ?? server.url
      }`,
    );
  }
  if (!config.stripe) {
    console.error(
      config.operator_email
        ? `Upgrade requests: mailed to ${config.operator_email} (OPERATOR_EMAIL)`
        : "Upgrade requests: OPERATOR_EMAIL is not set; requests are recorded and logged, not mailed (list them with GET /admin/upgrade-requests)",
    );
  }
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.error(
      `Shutting down: answering the requests received (at most ${config.shutdown_timeout_ms} ms)`,
    );
    const grace = new Promise<"timeout">((resolve) =>
      setTimeout(
        () => resolve("timeout"),
        config.shutdown_timeout_ms + CLOSE_GRACE_MS,
      )
    );
    const outcome = await Promise.race([server.shutdown(), grace]);
    if (outcome !== true) {
      console.error("Exiting with requests still running");
      Deno.exit(1);
    }
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
}
