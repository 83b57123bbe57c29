/**
 * The PostgreSQL server the benchmarks use: `BENCH_DATABASE_URL`, else
 * `TEST_DATABASE_URL`, else the local server's `postgres` database.
 *
 * @module
 */

/** The benchmarks' PostgreSQL server URL (see the module). */
export function bench_postgres_server_url(): string {
  const env = (name: string) => Deno.env.get(name)?.trim() || undefined;
  return env("BENCH_DATABASE_URL") ?? env("TEST_DATABASE_URL") ??
    "postgres://postgres@127.0.0.1:5432/postgres";
}
