/**
 * Caches `totalResults` per (data version, filter). Callers put a version in the key that changes in the
 * same transaction as any write to the listed rows, so a cached count is never stale: it is exact until
 * the version moves, and then it is simply never asked for again and ages out.
 */
export class CountCache {
  private readonly entries = new Map<string, number>();
  constructor(private readonly capacity = 10_000) {}

  get(key: string): number | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Map keeps insertion order: re-inserting marks the entry as recently used.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: number): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
