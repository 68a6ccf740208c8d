import { LRUCache } from 'lru-cache';

/** What an entry is charged beyond its key and value: the cache's own bookkeeping, roughly. */
const ENTRY_OVERHEAD_BYTES = 64;

/**
 * A least-recently-used cache bounded by entries and by bytes, for caches keyed by client input (query text, ids
 * taken from the path): an entry is charged its key (two bytes a character, as V8 may hold it), its value's bytes
 * and a small overhead. An entry larger than the whole budget is not kept.
 */
export function boundedCache<V extends {}>(limits: {
  bytes: number;
  entries?: number;
  valueBytes?: (value: V) => number;
}): LRUCache<string, V> {
  const valueBytes = limits.valueBytes ?? (() => 0);
  return new LRUCache<string, V>({
    ...(limits.entries === undefined ? {} : { max: limits.entries }),
    maxSize: limits.bytes,
    sizeCalculation: (value, key) => key.length * 2 + valueBytes(value) + ENTRY_OVERHEAD_BYTES,
  });
}
