/**
 * Ordered match positions of filtered or ordered reads, per (version, query, orderBy). A data-set version never
 * changes once complete, so an entry is exact for as long as the version is read and then simply ages out.
 * Bounded by bytes (least recently used first); concurrent requests for the same list share one computation.
 */
export class PositionListCache {
  private readonly entries = new Map<string, Int32Array>();
  private readonly pending = new Map<string, Promise<Int32Array>>();
  private bytes = 0;

  constructor(private readonly capacityBytes: number) {}

  async get(key: string, compute: () => Promise<Int32Array>): Promise<Int32Array> {
    const hit = this.entries.get(key);
    if (hit) {
      // Map keeps insertion order: re-inserting marks the entry as recently used.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    let running = this.pending.get(key);
    if (!running) {
      running = compute().finally(() => this.pending.delete(key));
      this.pending.set(key, running);
      running.then((list) => this.store(key, list), () => {});
    }
    return running;
  }

  private store(key: string, list: Int32Array): void {
    // A list larger than the whole cache is served but not kept.
    if (list.byteLength > this.capacityBytes || this.entries.has(key)) return;
    this.entries.set(key, list);
    this.bytes += list.byteLength;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.capacityBytes) break;
      this.entries.delete(oldest);
      this.bytes -= value.byteLength;
    }
  }
}
