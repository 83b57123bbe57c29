/**
 * The connection cap (`MAX_CONNECTIONS`), derived from how many files the
 * process may open.
 *
 * Each client connection holds one file descriptor. The rest of the process
 * needs descriptors too: PGlite's data files (about 50 open at start) or
 * PostgreSQL's pool, the listening socket, files read on demand, worker
 * threads loading modules (a worker that cannot open a file fails). So a
 * quarter of the limit, at least 256, is left for those; the default cap is
 * the rest, at most 10,000 (an idle connection costs about 24 KB of memory),
 * and a `MAX_CONNECTIONS` above the rest is lowered to it.
 *
 * @module
 */

/** Descriptors assumed when the limit cannot be read (not Linux, no permission). */
const ASSUMED_OPEN_FILES = 1_024;
const RESERVED_AT_LEAST = 256;
const CAP_AT_MOST = 10_000;
const CAP_AT_LEAST = 16;

/**
 * The soft "Max open files" limit in the text of `/proc/self/limits`;
 * `Infinity` for "unlimited", `undefined` when the line is missing.
 */
export function parse_open_files_limit(text: string): number | undefined {
  const match = /^Max open files\s+(\S+)/m.exec(text);
  if (!match) return undefined;
  if (match[1] === "unlimited") return Infinity;
  const value = Number(match[1]);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/** This process's soft limit on open files; `undefined` when it cannot be read. */
export function open_files_limit(): number | undefined {
  try {
    return parse_open_files_limit(Deno.readTextFileSync("/proc/self/limits"));
  } catch {
    return undefined;
  }
}

/** Connections a process that may open `open_files` files has room for. */
function room_for_connections(open_files: number): number {
  if (open_files === Infinity) return Infinity;
  const reserved = Math.max(RESERVED_AT_LEAST, Math.floor(open_files / 4));
  return Math.max(CAP_AT_LEAST, open_files - reserved);
}

/** The connection cap, and whether the open-files limit lowered a configured one. */
export interface ConnectionCap {
  max_connections: number;
  /** `MAX_CONNECTIONS` was set higher than the open-files limit leaves room for. */
  lowered: boolean;
}

/**
 * The cap for `configured` (`MAX_CONNECTIONS`; undefined: the default) in a
 * process that may open `open_files` files (undefined: not known).
 */
export function connection_cap(
  configured: number | undefined,
  open_files: number | undefined,
): ConnectionCap {
  const room = room_for_connections(open_files ?? ASSUMED_OPEN_FILES);
  if (configured === undefined) {
    return { max_connections: Math.min(CAP_AT_MOST, room), lowered: false };
  }
  return {
    max_connections: Math.min(configured, room),
    lowered: configured > room,
  };
}

/**
 * Descriptors this process may still open (the soft limit less those open,
 * counted in `/proc/self/fd`); `undefined` when that cannot be known, 0 when
 * not even the directory can be opened.
 */
export function free_descriptors(): number | undefined {
  const limit = open_files_limit();
  if (limit === undefined) return undefined;
  let open = 0;
  try {
    for (const _ of Deno.readDirSync("/proc/self/fd")) open++;
  } catch (error) {
    if (
      error instanceof Deno.errors.NotFound ||
      error instanceof Deno.errors.NotCapable ||
      error instanceof Deno.errors.PermissionDenied
    ) return undefined;
    return 0;
  }
  // The directory read itself held one while counting.
  return Math.max(0, limit - (open - 1));
}
