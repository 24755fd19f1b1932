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
}

/**
 * Least-recently-used map bounded by the byte sizes its callers declare, with a time to live per entry.
 * A Map keeps insertion order, so re-inserting on every read makes its first key the least recent one.
 */
export class ByteLru<V> {
  private readonly slots = new Map<string, Slot<V>>();
  private used = 0;
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

  get(key: string): V | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    if (slot.expiresAt <= this.now()) {
      this.delete(key);
      return undefined;
    }
    this.slots.delete(key);
    this.slots.set(key, slot);
    return slot.value;
  }

  /**
   * Stores the value unless it alone exceeds the bound; evicts the least recent entries until it fits.
   * `ttlMs` overrides the cache's time to live for this entry.
   */
  set(key: string, value: V, size: number, ttlMs = this.options.ttlMs): boolean {
    this.delete(key);
    if (size > this.options.maxBytes) return false;
    this.slots.set(key, { value, size, expiresAt: this.now() + ttlMs });
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
