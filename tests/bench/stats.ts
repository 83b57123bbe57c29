/**
 * Order statistics of measured values, shared by the benchmarks.
 *
 * @module
 */

/** The value at `share` (0–1) of `sorted` (ascending); NaN when empty. */
export function percentile(sorted: readonly number[], share: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

/** The median of `values`, in any order. */
export function median(values: readonly number[]): number {
  return percentile(values.toSorted((a, b) => a - b), 0.5);
}
