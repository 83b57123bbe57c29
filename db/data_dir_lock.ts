/**
 * One process at a time in a PGlite data directory. PGlite is PostgreSQL in
 * one process, with no postmaster to keep a second one out: two processes
 * on one `DATA_DIR` (a second service, or the operator CLI while the
 * service runs) would both write its files and corrupt them. So the
 * process holding the database holds an exclusive lock (flock) on a file
 * in the directory; the kernel drops it when the process ends, however it
 * ends, so no stale lock outlives a crash.
 *
 * @module
 */
import { DataDirError } from "./errors.ts";

/** The lock file inside the data directory (PostgreSQL ignores files it does not know). */
export const DATA_DIR_LOCK_FILE = "ink.lock";

/** A held data directory; `release` lets another process in. */
export interface DataDirLock {
  release(): void;
}

/**
 * Locks `data_dir` (which exists) for this process, or throws a
 * `DataDirError` when another process holds it.
 */
export async function lock_data_dir(data_dir: string): Promise<DataDirLock> {
  const path = `${data_dir}/${DATA_DIR_LOCK_FILE}`;
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true, write: true, create: true });
  } catch (error) {
    throw new DataDirError(data_dir, error);
  }
  let locked: boolean;
  try {
    locked = await file.tryLock(true);
  } catch (error) {
    file.close();
    throw new DataDirError(data_dir, error);
  }
  if (!locked) {
    file.close();
    throw new DataDirError(
      data_dir,
      "another process has it open (a running service, or the operator CLI)",
      "stop that process first; while the service runs, use its admin API instead of the CLI",
    );
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      // Closing the file drops its lock.
      file.close();
    },
  };
}
