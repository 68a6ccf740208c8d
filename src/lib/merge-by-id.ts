import { MinHeap } from './min-heap.js';

/**
 * Merges streams that are each in ascending id order into one, each id once: where several streams hold an id,
 * the latest stream's (the last in `streams`) wins, as a later upload replaces an earlier one. Memory: one item
 * per stream, beside what the streams themselves hold.
 */
export async function* mergeById<T extends { id: string }>(streams: readonly AsyncIterator<T>[]): AsyncGenerator<T> {
  const heap = new MinHeap<{ item: T; rank: number }>((a, b) => (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : a.rank - b.rank));
  const advance = async (rank: number) => {
    const step = await streams[rank].next();
    if (step.done) return;
    heap.push({ item: step.value, rank });
  };
  for (let rank = 0; rank < streams.length; rank++) await advance(rank);
  let last: string | undefined;
  while (heap.size > 0) {
    let top = heap.pop()!;
    await advance(top.rank);
    // The same id from later streams: the latest one is kept.
    while (heap.size > 0 && heap.peek()!.item.id === top.item.id) {
      top = heap.pop()!;
      await advance(top.rank);
    }
    if (last !== undefined && !(top.item.id > last)) {
      throw new Error(`a stream is out of id order at ${top.item.id} (after ${last})`);
    }
    last = top.item.id;
    yield top.item;
  }
}
