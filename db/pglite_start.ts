/**
 * Starting the embedded PGlite: its settings, its migrations, and the first
 * start of a new data directory, which runs in a worker so that the memory
 * `initdb` needs is handed back to the system when the worker ends.
 *
 * @module
 */
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { MIGRATIONS_FOLDER } from "./migrations_folder.ts";

// PGlite's WebAssembly memory never shrinks, and what PostgreSQL's shared
// memory holds is touched at start, so these settings are resident memory
// for the life of the process:
// - shared_buffers: PostgreSQL's default 128 MB cost ~120 MB of resident
//   memory that an embedded database of keys, counters and receipts never
//   fills; 8 MB (1,024 pages) holds the hot pages of the per-request
//   statements, and a miss is read from the operating system's page cache.
//   Measured: PGlite's WebAssembly memory 29 MB at start with 16 MB, 17 MB
//   with 8 MB and max_connections=8, unchanged after 6,000 statements.
// - max_connections: PGlite runs one single-user backend; PostgreSQL's 100
//   size lock and process tables for 100 (2 MB).
// - maintenance_work_mem: an index built by a later migration may take up to
//   this much, kept afterwards (default 64 MB).
// fsync stays as PGlite sets it (off: `-F` in its defaultStartParams).
const PGLITE_SETTINGS = [
  "-c",
  "shared_buffers=8MB",
  "-c",
  "max_connections=8",
  "-c",
  "maintenance_work_mem=16MB",
];

/**
 * Opens PGlite in `data_dir` (a directory, created if missing, or
 * "memory://", then optionally loaded from `template`, a `dumpDataDir` of
 * a database) and applies pending migrations. Closes it again if they fail.
 */
export async function start_pglite(
  data_dir: string,
  template?: Blob,
): Promise<PGlite> {
  if (!data_dir.includes("://")) {
    await Deno.mkdir(data_dir, { recursive: true });
  }
  const client = new PGlite(data_dir, {
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
    loadDataDir: template,
  });
  await client.waitReady;
  try {
    await migrate(drizzle({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
  } catch (error) {
    await client.close();
    throw error;
  }
  return client;
}

/** What the worker in `pglite_init_worker.ts` answers. */
export type InitReply = { ok: true } | { ok: false; message: string };

/**
 * True when `data_dir` is a directory on disk that holds no database yet, so
 * that opening it would run `initdb`.
 */
export async function is_new_data_dir(data_dir: string): Promise<boolean> {
  if (data_dir.includes("://")) return false;
  try {
    await Deno.stat(`${data_dir}/PG_VERSION`);
    return false;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return true;
    throw error;
  }
}

/**
 * Creates the database in the new directory `data_dir` (`initdb` and the
 * migrations) in a worker, closes it and ends the worker.
 *
 * Why: `initdb` runs a second PostgreSQL in its own WebAssembly memory and
 * copies it whole; afterwards ~350 MB of garbage wait for a full collection
 * that an idle service may never run (measured: a first start idled at 540 MB,
 * a second at 256 MB). Ending the worker frees its heap at once; the caller
 * then opens the database as on any later start.
 */
export async function initialise_in_worker(data_dir: string): Promise<void> {
  const worker = new Worker(
    new URL("./pglite_init_worker.ts", import.meta.url),
    { type: "module" },
  );
  try {
    const reply = await new Promise<InitReply>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<InitReply>) =>
        resolve(event.data);
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        reject(new Error(`PGlite initdb worker failed: ${event.message}`));
      };
      worker.postMessage(data_dir);
    });
    if (!reply.ok) {
      throw new Error(`creating the PGlite database failed: ${reply.message}`);
    }
  } finally {
    worker.terminate();
  }
}
