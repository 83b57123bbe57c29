/**
 * Linux /proc readings for the load benchmark: peak resident memory of the
 * server process and CPU time per thread group, so a result can say where
 * the CPU went (request thread vs render workers vs PostgreSQL) rather than
 * only how long requests took.
 *
 * @module
 */

// USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every Linux
// build that matters, and not exposed to Deno without spawning getconf.
const TICKS_PER_SECOND = 100;

/** Peak resident set size (VmHWM) of a process, in bytes; 0 if unknown. */
export function peak_rss_bytes(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const match = /^VmHWM:\s+(\d+) kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Current resident set size (VmRSS) of a process, in bytes; 0 if unknown. */
export function current_rss_bytes(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Resets the process's peak RSS to its current RSS (Linux ≥ 4.0), so the
 * next reading is the peak of one benchmark level, not of the whole run.
 */
export function reset_peak_rss(pid: number): void {
  try {
    Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    // Not permitted or not Linux: the peak then covers the whole run.
  }
}

function cpu_seconds_of_stat(text: string): number {
  // The command name may contain spaces and parentheses: fields start after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of stat(5) (utime, stime) are 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds used so far by each thread of `pid`, summed by thread name. */
export function thread_cpu_seconds(pid: number): Map<string, number> {
  const totals = new Map<string, number>();
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync(`/proc/${pid}/task`);
  } catch {
    return totals;
  }
  for (const entry of entries) {
    try {
      const stat = Deno.readTextFileSync(
        `/proc/${pid}/task/${entry.name}/stat`,
      );
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      totals.set(name, (totals.get(name) ?? 0) + cpu_seconds_of_stat(stat));
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return totals;
}

/** CPU seconds used so far by a whole process (all threads), or 0. */
export function process_cpu_seconds(pid: number | "self"): number {
  try {
    return cpu_seconds_of_stat(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return 0;
  }
}

/**
 * Busy, stolen (taken by the hypervisor for other guests) and total CPU
 * seconds of the whole machine since boot (/proc/stat).
 */
export function machine_cpu_seconds(): {
  busy: number;
  steal: number;
  total: number;
} {
  const line = Deno.readTextFileSync("/proc/stat").split("\n")[0];
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.slice(0, 8).reduce((sum, value) => sum + value, 0);
  // idle, iowait and steal are fields 4, 5 and 8 of the "cpu" line.
  const idle = values[3] + values[4];
  const steal = values[7] ?? 0;
  return {
    busy: (total - idle - steal) / TICKS_PER_SECOND,
    steal: steal / TICKS_PER_SECOND,
    total: total / TICKS_PER_SECOND,
  };
}
