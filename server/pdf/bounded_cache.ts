/**
 * A per-worker cache of layout work (shaped runs, laid-out lines, measured
 * widths), bounded by entries and by approximate bytes: invoices of one
 * sender repeat their texts, and distinct texts must not grow a worker's
 * memory without limit. When a new entry would pass either bound the cache
 * starts afresh: no bookkeeping on hits, and a worker rendering one
 * sender's invoices refills it with what they repeat.
 *
 * @module
 */

/** Bounds of a {@link BoundedCache}. */
export interface CacheBounds {
  /** Most entries held. */
  entries: number;
  /** Most approximate bytes held (as the callers of `set` count them). */
  bytes: number;
}

/** A map from text keys to values, within {@link CacheBounds}. */
export class BoundedCache<V> {
  readonly #entries = new Map<string, V>();
  readonly #bounds: CacheBounds;
  #bytes = 0;

  /** An empty cache within `bounds`. */
  constructor(bounds: CacheBounds) {
    this.#bounds = bounds;
  }

  /** The value cached under `key`, if any. */
  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  /**
   * The value under `key`; when there is none, `compute`s it and caches it
   * (about `bytes_of` it).
   */
  cached(key: string, compute: () => V, bytes_of: (value: V) => number): V {
    let value = this.#entries.get(key);
    if (value === undefined) {
      value = compute();
      this.set(key, value, bytes_of(value));
    }
    return value;
  }

  /**
   * Caches `value` (about `bytes`) under `key`; a value larger than the
   * whole byte bound is not kept, and empties nothing.
   */
  set(key: string, value: V, bytes: number): void {
    if (bytes > this.#bounds.bytes || this.#entries.has(key)) return;
    if (
      this.#entries.size >= this.#bounds.entries ||
      this.#bytes + bytes > this.#bounds.bytes
    ) {
      this.#entries.clear();
      this.#bytes = 0;
    }
    this.#entries.set(key, value);
    this.#bytes += bytes;
  }

  /** Approximate bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Entries held now. */
  get size(): number {
    return this.#entries.size;
  }
}
