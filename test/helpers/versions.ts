import { expect } from 'vitest';
import type { Store } from '../../src/storage/database.js';
import { versionKeyRange } from '../../src/records/record-key.js';

/**
 * The version a pull operation wrote is whole and alone: as many documents as indexed records, as many as the
 * data set reports, at positions 0…n-1 (nothing of an interrupted run is mixed in). Returns the version.
 */
export async function expectWholeVersion(store: Store, pullOperationId: string, totalResults: number): Promise<number> {
  const version = Number(
    (await store.db.selectFrom('pull_operations').select('seq').where('id', '=', pullOperationId).executeTakeFirstOrThrow()).seq,
  );
  const index = await store.db
    .selectFrom('record_index')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('position').as('min'), eb.fn.max('position').as('max')])
    .where('version', '=', version)
    .executeTakeFirstOrThrow();
  const [first, end] = versionKeyRange(store.dialect, version);
  const docs = await store.db
    .selectFrom('record_docs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('key', '>=', first)
    .where('key', '<', end)
    .executeTakeFirstOrThrow();
  expect(Number(index.n)).toBe(totalResults);
  expect(Number(docs.n)).toBe(totalResults);
  expect([Number(index.min), Number(index.max)]).toEqual([0, totalResults - 1]);
  return version;
}
