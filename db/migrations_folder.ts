/**
 * Where the SQL migrations are, for both drivers (a module of its own so
 * that the PostgreSQL path does not load PGlite to learn it).
 *
 * @module
 */
import { fileURLToPath } from "node:url";

/** The folder of SQL migrations. */
export const MIGRATIONS_FOLDER: string = fileURLToPath(
  new URL("./migrations", import.meta.url),
);
