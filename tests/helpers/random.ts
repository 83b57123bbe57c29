/**
 * A small seedable pseudo-random generator (mulberry32) for property and
 * fuzz tests: the same seed gives the same sequence, so a failure printed
 * with its seed can be replayed.
 *
 * @module
 */

/** Numbers in [0, 1) from `seed`, deterministically. */
export function seeded_random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
