import { describe, expect, it } from 'vitest';
import { createCountCache } from '../../src/query/count-cache.js';
import { PositionListCache } from '../../src/records/position-lists.js';

/** Caches keyed by client input (query text, orderBy) stay within their entry and byte budgets. */
describe('bounded caches', () => {
  it('the count cache keeps at most its entries and its bytes of keys, least recently used first', () => {
    const byEntries = createCountCache({ entries: 3, bytes: 1024 * 1024 });
    for (const key of ['a', 'b', 'c']) byEntries.set(key, 1);
    byEntries.get('a');
    byEntries.set('d', 2);
    expect(['a', 'b', 'c', 'd'].map((k) => byEntries.get(k))).toEqual([1, undefined, 1, 2]);

    // 2,000-character query texts: 10 KB of budget holds two of them, not 10,000.
    const byBytes = createCountCache({ entries: 10_000, bytes: 10 * 1024 });
    const keys = Array.from({ length: 100 }, (_, i) => `${i}:${'q'.repeat(2000)}`);
    for (const key of keys) byBytes.set(key, 7);
    expect(keys.filter((k) => byBytes.get(k) !== undefined)).toEqual(keys.slice(-2));
  });

  it('the position-list cache charges lists and their keys, and serves a list too big to keep', async () => {
    const cache = new PositionListCache(4096);
    let computed = 0;
    const compute = (n: number) => async () => {
      computed++;
      return new Int32Array(n);
    };
    expect((await cache.get('small', compute(100))).length).toBe(100);
    expect((await cache.get('small', compute(100))).length).toBe(100);
    expect(computed).toBe(1);
    expect((await cache.get('huge', compute(10_000))).length).toBe(10_000);
    expect((await cache.get('huge', compute(10_000))).length).toBe(10_000);
    expect(computed).toBe(3);
    // A long key alone fills the budget: it evicts what was there.
    await cache.get(`k${'x'.repeat(1800)}`, compute(10));
    await cache.get('small', compute(100));
    expect(computed).toBe(5);
  });

  it('concurrent requests for one list share one computation', async () => {
    const cache = new PositionListCache(1024 * 1024);
    let computed = 0;
    const compute = async () => {
      computed++;
      await new Promise((r) => setTimeout(r, 20));
      return new Int32Array(5);
    };
    await Promise.all(Array.from({ length: 10 }, () => cache.get('same', compute)));
    expect(computed).toBe(1);
  });
});
