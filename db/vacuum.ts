/**
 * Vacuuming the embedded database. PGlite runs PostgreSQL as one
 * single-user backend, where autovacuum never runs: without this, every
 * updated or deleted row (a receipt settled, a counter raised, a month of
 * receipts pruned) stays in its table and indexes for good, and the planner
 * never gets statistics. PostgreSQL's autovacuum does this by itself.
 *
 * @module
 */
import { sql } from "drizzle-orm";
import type { Database } from "./database.ts";
import { query_rows } from "./_util.ts";

interface TableDue {
  name: string;
  vacuum: boolean;
  analyze: boolean;
}

/**
 * On PGlite, vacuums and analyzes the tables that autovacuum would at its
 * own thresholds (dead rows, rows changed since the last analyze); on
 * PostgreSQL, nothing. Returns how many tables it vacuumed or analyzed.
 *
 * Only those tables: a whole-database `VACUUM (ANALYZE)` holds PGlite's one
 * connection, which every request waits for, 0.2-0.35 s even with nothing
 * to reclaim, where a table's vacuum takes about 30 ms per 20,000 dead rows.
 */
export async function vacuum_embedded(database: Database): Promise<number> {
  if (database.kind !== "pglite") return 0;
  // The counts below include the changes of the last second, which the
  // backend reports to its statistics at most once a second.
  await query_rows(database, sql`select pg_stat_force_next_flush()`);
  const due = await query_rows<TableDue>(
    database,
    sql`select quote_ident(schemaname) || '.' || quote_ident(relname) as name,
          n_dead_tup > current_setting('autovacuum_vacuum_threshold')::int +
            current_setting('autovacuum_vacuum_scale_factor')::float8 *
            n_live_tup as vacuum,
          n_mod_since_analyze >
            current_setting('autovacuum_analyze_threshold')::int +
            current_setting('autovacuum_analyze_scale_factor')::float8 *
            n_live_tup as analyze
        from pg_stat_user_tables`,
  );
  let done = 0;
  for (const table of due) {
    const command = table.vacuum
      ? table.analyze ? "vacuum (analyze)" : "vacuum"
      : table.analyze
      ? "analyze"
      : undefined;
    if (command === undefined) continue;
    await query_rows(database, sql.raw(`${command} ${table.name}`));
    done++;
  }
  return done;
}
