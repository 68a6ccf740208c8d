import { describe, expect, it } from 'vitest';
import { mergeById } from '../../src/lib/merge-by-id.js';

async function* stream<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}
const collect = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describe('mergeById', () => {
  it('merges id-ordered streams into one, each id once, the latest stream winning', async () => {
    const merged = await collect(
      mergeById([
        stream([
          { id: 'a', from: 0 },
          { id: 'c', from: 0 },
          { id: 'e', from: 0 },
        ]),
        stream([
          { id: 'b', from: 1 },
          { id: 'c', from: 1 },
        ]),
        stream([
          { id: 'c', from: 2 },
          { id: 'f', from: 2 },
        ]),
      ]),
    );
    expect(merged).toEqual([
      { id: 'a', from: 0 },
      { id: 'b', from: 1 },
      { id: 'c', from: 2 },
      { id: 'e', from: 0 },
      { id: 'f', from: 2 },
    ]);
  });

  it('keeps the later of an id repeated within one stream, and takes no stream at all', async () => {
    expect(
      await collect(
        mergeById([
          stream([
            { id: 'a', n: 1 },
            { id: 'a', n: 2 },
            { id: 'b', n: 3 },
          ]),
        ]),
      ),
    ).toEqual([
      { id: 'a', n: 2 },
      { id: 'b', n: 3 },
    ]);
    expect(await collect(mergeById([]))).toEqual([]);
    expect(await collect(mergeById([stream([]), stream([{ id: 'x' }])]))).toEqual([{ id: 'x' }]);
  });

  it('refuses a stream out of id order instead of merging it wrongly', async () => {
    await expect(collect(mergeById([stream([{ id: 'b' }, { id: 'a' }]), stream([{ id: 'c' }])]))).rejects.toThrow(/out of id order at a/);
  });
});
