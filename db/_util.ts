// Internal helpers shared by the repositories; not re-exported from mod.ts.
import { createHash } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "./database.ts";

/** Runs a raw statement and returns its rows, whichever driver is in use. */
export async function query_rows<T>(
  database: Database,
  query: SQL,
): Promise<T[]> {
  // postgres.js resolves to an array of rows; PGlite to `{ rows }`.
  const result: unknown = await database.db.execute(query);
  if (Array.isArray(result)) return result as T[];
  return (result as { rows: T[] }).rows;
}

/** Runs a `delete … returning 1` statement and returns how many rows went. */
export async function count_deleted(
  database: Database,
  delete_statement: SQL,
): Promise<number> {
  const rows = await query_rows<{ n: number | string }>(
    database,
    sql`with gone as (${delete_statement}) select count(*)::int as n from gone`,
  );
  return to_number(rows[0]?.n ?? 0);
}

const UUID_PATTERN =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a syntactically valid UUID; PostgreSQL rejects anything else. */
export function is_uuid(value: unknown): value is string {
  return typeof value === "string" && UUID_PATTERN.test(value);
}

/** Hex-encoded SHA-256 of a UTF-8 string. */
export function sha256_hex(value: string): Promise<string> {
  // node:crypto hashes synchronously on this thread: for a key-sized input
  // about 5 µs, against about 30 µs for crypto.subtle's hop to a thread pool.
  return Promise.resolve(createHash("sha256").update(value).digest("hex"));
}

/** `length` crypto-random bytes, base64url-encoded without padding. */
export function random_token(length = 32): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

/** Number from a driver value (int8/numeric may arrive as strings). */
export function to_number(value: unknown): number {
  return typeof value === "number" ? value : Number(value);
}
