import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../lib/bounded-cache.js';

/**
 * Ordered match positions of filtered or ordered reads, per (version, query, orderBy). A data-set version never
 * changes once complete, so an entry is exact for as long as the version is read and then simply ages out.
 * Bounded by bytes, the key's (client query text) included, least recently used first; concurrent requests for the
 * same list share one computation.
 */
export class PositionListCache {
  private readonly entries: LRUCache<string, Int32Array>;
  private readonly pending = new Map<string, Promise<Int32Array>>();

  constructor(capacityBytes: number) {
    // A list larger than the whole cache is served but not kept.
    this.entries = boundedCache<Int32Array>({ bytes: capacityBytes, valueBytes: (list) => list.byteLength });
  }

  async get(key: string, compute: () => Promise<Int32Array>): Promise<Int32Array> {
    const hit = this.entries.get(key);
    if (hit) return hit;
    let running = this.pending.get(key);
    if (!running) {
      running = compute().finally(() => this.pending.delete(key));
      this.pending.set(key, running);
      running.then(
        (list) => this.entries.set(key, list),
        () => {},
      );
    }
    return running;
  }
}
