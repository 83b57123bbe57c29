/**
 * CPU per call of several functions measured in one process, in rounds
 * that alternate between them, so that other load on a shared machine hits
 * them alike; each keeps its lowest round. Used by the renderer's feature
 * rows (`render_bench.ts`) and the renderer targets (`renderer_targets.ts`).
 *
 * @module
 */
import process from "node:process";
import v8 from "node:v8";

/** One function's figures, from its lowest round. */
export interface RoundResult {
  /** CPU ms per call: every thread of the process, V8's collections included. */
  cpu: number;
  /** Median wall ms of a call. */
  median: number;
  /** KB V8 allocated per call. */
  kb: number;
}

function allocated_bytes(): number {
  return (v8.getHeapStatistics() as { total_allocated_bytes?: number })
    .total_allocated_bytes ?? NaN;
}

/**
 * Runs each of `fns` `warmup` times and then `n` times measured, `rounds`
 * times over, in turn.
 */
export function cpu_rounds(
  fns: readonly (() => unknown)[],
  { rounds, warmup, n }: { rounds: number; warmup: number; n: number },
): RoundResult[] {
  const results = fns.map(() => ({
    cpu: Infinity,
    median: Infinity,
    kb: Infinity,
  }));
  for (let round = 0; round < rounds; round++) {
    fns.forEach((fn, i) => {
      for (let k = 0; k < warmup; k++) fn();
      const times: number[] = [];
      const allocated = allocated_bytes();
      const before = process.cpuUsage();
      for (let k = 0; k < n; k++) {
        const start = performance.now();
        fn();
        times.push(performance.now() - start);
      }
      const used = process.cpuUsage(before);
      const kb = (allocated_bytes() - allocated) / 1024 / n;
      times.sort((a, b) => a - b);
      const row = results[i];
      row.cpu = Math.min(row.cpu, (used.user + used.system) / 1000 / n);
      row.median = Math.min(row.median, times[Math.floor(n / 2)]);
      row.kb = Math.min(row.kb, kb);
    });
  }
  return results;
}
