/**
 * A PostgreSQL URL read as libpq reads it. libpq also takes the host and the
 * port from the query string: `?host=/var/run/postgresql` names the
 * directory of a Unix socket, the usual way to reach a server on the same
 * machine. postgres.js reads them from the URL's authority only and sends
 * any other query parameter to the server as a setting, which the server
 * refuses for `host` and `port`; here they move to postgres.js's options.
 * Every postgres.js client of the service opens through
 * {@linkcode open_postgres_client}.
 *
 * @module
 */
import postgres from "postgres";

/** The URL for postgres.js, and the host and port it takes as options. */
export interface PostgresTarget {
  url: string;
  /** A host name, or a socket directory (an absolute path). */
  host?: string;
  port?: number;
}

/** Moves `host` and `port` out of `url`'s query (see the module). */
export function postgres_target(url: string): PostgresTarget {
  const query_at = url.indexOf("?");
  if (query_at < 0) return { url };
  const fragment_at = url.indexOf("#", query_at);
  const query_end = fragment_at < 0 ? url.length : fragment_at;
  const query = new URLSearchParams(url.slice(query_at + 1, query_end));
  const host = query.get("host") ?? undefined;
  const port_text = query.get("port") ?? undefined;
  if (host === undefined && port_text === undefined) return { url };
  query.delete("host");
  query.delete("port");
  const rest = query.toString();
  const target: PostgresTarget = {
    url: url.slice(0, query_at) + (rest ? `?${rest}` : "") +
      url.slice(query_end),
  };
  if (host) target.host = host;
  if (port_text !== undefined) {
    const port = Number(port_text);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new Error(`port must be 1-65535, not "${port_text}"`);
    }
    target.port = port;
  }
  return target;
}

/** A postgres.js client for `url` read as libpq reads it, with `options`. */
export function open_postgres_client(
  url: string,
  options: postgres.Options<Record<string, never>>,
): postgres.Sql {
  const target = postgres_target(url);
  const located: postgres.Options<Record<string, never>> = {
    ...options,
    host: target.host,
    port: target.port,
  };
  return postgres(target.url, located);
}
