import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../lib/bounded-cache.js';

/**
 * Caches `totalResults` per (data version, filter). Callers put a version in the key that changes in the
 * same transaction as any write to the listed rows, so a cached count is never stale: it is exact until
 * the version moves, and then it is simply never asked for again and ages out.
 * Keys hold client query text, so the cache is bounded by entries and by bytes (least recently used first).
 */
export type CountCache = LRUCache<string, number>;

export function createCountCache(limits: { entries?: number; bytes?: number } = {}): CountCache {
  return boundedCache<number>({ entries: limits.entries ?? 10_000, bytes: limits.bytes ?? 8 * 1024 * 1024 });
}
