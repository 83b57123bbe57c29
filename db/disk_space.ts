/**
 * Free space under an embedded PGlite's data directory.
 *
 * PGlite runs PostgreSQL on the request thread. When a write to its WAL
 * fails for want of space, PostgreSQL PANICs, which in PGlite never returns:
 * the thread spins, and nothing else runs (not `/healthz`, not the SIGTERM
 * handler). So the service stops giving PGlite work before that: below
 * `min_free_bytes` free (default 64 MiB, four WAL segments), every database
 * operation is refused with a `DatabaseUnavailableError` (503) that says
 * why, until space is freed. Free space is read (`statfs`) at most once a
 * second, when the database is used.
 *
 * @module
 */
import { statfsSync } from "node:fs";
import { DatabaseUnavailableError } from "./errors.ts";

/** Default free space PGlite keeps in reserve, in MiB (`DATA_DIR_MIN_FREE_MB`). */
export const DEFAULT_MIN_FREE_MB = 64;

/** Options of {@link watch_free_space}. */
export interface FreeSpaceOptions {
  /** Below this many bytes free, database work is refused. */
  min_free_bytes: number;
  /** Reads the bytes free for unprivileged users on the file system of `dir`. */
  free_bytes?: (dir: string) => number;
  /** Told when the state changes (one line each). */
  log?: (message: string) => void;
}

/** A watch on the free space of one directory's file system. */
export interface FreeSpaceWatch {
  /** Throws a `DatabaseUnavailableError` while space is short. */
  check(): void;
  /** Marks space short now (a write failed for want of space). */
  report_full(): void;
  /** True while space is short. */
  readonly short: boolean;
}

const RECHECK_MS = 1_000;
const MIB = 2 ** 20;

/** What a client is told while space is short. */
export const DISK_FULL_MESSAGE =
  "The service's database is out of disk space; it takes new work again once space is freed. Retry later.";

/** The bytes available to unprivileged users on the file system of `dir`. */
export function statfs_free_bytes(dir: string): number {
  const stats = statfsSync(dir);
  return Number(stats.bavail) * Number(stats.bsize);
}

/** Watches the file system of `dir`; see the module docs. */
export function watch_free_space(
  dir: string,
  options: FreeSpaceOptions,
): FreeSpaceWatch {
  const read = options.free_bytes ?? statfs_free_bytes;
  const log = options.log ?? ((message: string) => console.error(message));
  let checked_at = -Infinity;
  let free = Infinity;
  let short = false;

  const describe = () =>
    `${(free / MIB).toFixed(0)} MiB free in ${dir}, minimum ${
      (options.min_free_bytes / MIB).toFixed(0)
    } MiB (DATA_DIR_MIN_FREE_MB)`;

  function set_short(now_short: boolean): void {
    if (now_short === short) return;
    short = now_short;
    log(
      short
        ? `Database disk nearly full: ${describe()}; requests that need the database get 503 until space is freed`
        : `Database disk has room again: ${describe()}; serving`,
    );
  }

  function refresh(): void {
    const now = performance.now();
    if (now - checked_at < RECHECK_MS) return;
    checked_at = now;
    try {
      free = read(dir);
    } catch {
      // The file system cannot be asked: leave the state as it is.
      return;
    }
    set_short(free < options.min_free_bytes);
  }

  return {
    check() {
      refresh();
      if (!short) return;
      throw new DatabaseUnavailableError(
        `database disk nearly full: ${describe()}`,
        { public_message: DISK_FULL_MESSAGE },
      );
    },
    report_full() {
      // Rechecked on the next use after a second at the earliest.
      checked_at = performance.now();
      try {
        free = read(dir);
      } catch {
        // Described with the last figure read.
      }
      set_short(true);
    },
    get short() {
      return short;
    },
  };
}
