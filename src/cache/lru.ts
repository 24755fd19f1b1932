/** Monotonic milliseconds: cache lifetimes are an infrastructure matter, not a rule on `deps.clock`. */
export const monotonicMs = () => performance.now();

export interface ByteLruOptions<V> {
  maxBytes: number;
  ttlMs: number;
  now?: () => number;
  /** Told of every key that leaves (evicted, expired, replaced or deleted), to keep side indexes in step. */
  onRemove?: (key: string, value: V) => void;
}

interface Slot<V> {
  value: V;
  size: number;
  expiresAt: number;
  /** `ByteLru.stamps` when the entry was stored or last moved to the recent end. */
  stamp: number;
}

/**
 * Least-recently-used map bounded by the byte sizes its callers declare, with a time to live per entry.
 * A Map keeps insertion order, so re-inserting an entry when it is read makes the first key the least
 * recent one. A read entry is re-inserted only when it is in the older half (more than half the entries
 * were stored or moved since it was): a hot entry read thousands of times a second then costs a lookup,
 * not a delete and an insert each time, and eviction still takes entries from the older half first.
 */
export class ByteLru<V> {
  private readonly slots = new Map<string, Slot<V>>();
  private used = 0;
  private stamps = 0;
  private readonly now: () => number;

  constructor(private readonly options: ByteLruOptions<V>) {
    this.now = options.now ?? monotonicMs;
  }

  get bytes(): number {
    return this.used;
  }

  get entries(): number {
    return this.slots.size;
  }

  /** The live value without counting it as a use (it does not move toward the recent end). */
  peek(key: string): V | undefined {
    const slot = this.slots.get(key);
    return slot && slot.expiresAt > this.now() ? slot.value : undefined;
  }

  /** How recently the entry was stored or read (larger: more recent; see `get`), or undefined when it is not held. */
  recency(key: string): number | undefined {
    return this.slots.get(key)?.stamp;
  }

  get(key: string): V | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    if (slot.expiresAt <= this.now()) {
      this.delete(key);
      return undefined;
    }
    if (this.stamps - slot.stamp >= this.slots.size >> 1) {
      slot.stamp = ++this.stamps;
      this.slots.delete(key);
      this.slots.set(key, slot);
    }
    return slot.value;
  }

  /**
   * Stores the value unless it alone exceeds the bound; evicts the least recent entries until it fits.
   * `ttlMs` overrides the cache's time to live for this entry.
   */
  set(key: string, value: V, size: number, ttlMs = this.options.ttlMs): boolean {
    this.delete(key);
    if (size > this.options.maxBytes) return false;
    this.slots.set(key, { value, size, expiresAt: this.now() + ttlMs, stamp: ++this.stamps });
    this.used += size;
    for (const oldest of this.slots.keys()) {
      if (this.used <= this.options.maxBytes) break;
      this.delete(oldest);
    }
    return true;
  }

  delete(key: string): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.slots.delete(key);
    this.used -= slot.size;
    this.options.onRemove?.(key, slot.value);
  }

  clear(): void {
    for (const key of [...this.slots.keys()]) this.delete(key);
  }

  keys(): IterableIterator<string> {
    return this.slots.keys();
  }
}
