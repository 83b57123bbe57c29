/**
 * Entry point: reads configuration, starts the service, stops cleanly on
 * SIGTERM / SIGINT.
 */
import { ConfigError, load_config } from "./server/config.ts";
import { start_server } from "./server/serve.ts";

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
  const server = await start_server(config);
  console.error(
    `Invoice PDF service listening on ${server.url} (database: ${
      config.database_url ? "PostgreSQL" : `PGlite in ${config.data_dir}`
    }; admin API ${config.admin_token ? "enabled" : "disabled"})`,
  );
  const stop = async () => {
    console.error("Shutting down: finishing in-flight requests");
    await server.shutdown();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
}
