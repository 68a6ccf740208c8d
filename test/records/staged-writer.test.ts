import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { writeStagedVersion } from '../../src/records/staged-writer.js';
import { writeVersion } from '../../src/records/data-set-writer.js';
import type { RecordPage, SourceRecord } from '../../src/connectors/connector.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';

/** The staging writer on a real store: sorted runs of two rows, so every read below spans several runs. */

let store: TestStore;
beforeAll(async () => {
  store = await createTestStore();
});
afterAll(() => store.destroy());

const record = (id: string, amount: number): SourceRecord => ({ id, sourceModifiedDate: null, data: { id, amount } });
async function* pagesOf(...pages: RecordPage[]): AsyncGenerator<RecordPage> {
  yield* pages;
}

async function staged(version: number, previousVersion: number | null, mode: 'full' | 'delta', now: string, ...pages: RecordPage[]) {
  const stats = { modified: 0 };
  const count = await writeStagedVersion({
    store: store.store,
    version,
    previousVersion,
    mode,
    pages: pagesOf(...pages),
    now,
    onBatch: async () => {},
    stats,
    runSize: 2,
  });
  await store.store.db
    .insertInto('record_versions')
    .values({ version, connection_id: 'c', data_type: 'invoices', records: count, dense: 0 })
    .execute();
  return { count, modified: stats.modified };
}

async function read(version: number) {
  const rows = await store.store.db
    .selectFrom('record_index as r')
    .innerJoin('record_docs as d', (join) => join.on('d.key', '=', sql`r.doc_key`))
    .select(['d.doc', 'r.position'])
    .where('r.version', '=', version)
    .orderBy('r.position')
    .execute();
  return rows.map((r) => ({ ...JSON.parse(r.doc), position: Number(r.position) }));
}

const T1 = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-02T00:00:00.000Z';
const T3 = '2026-01-03T00:00:00.000Z';

describe('writeStagedVersion', () => {
  it('orders a full read delivered out of order across pages and runs; the later delivery of an id wins', async () => {
    const result = await staged(
      301,
      null,
      'full',
      T1,
      { records: [record('e', 5), record('b', 2), record('d', 0)] },
      { records: [record('a', 1), record('d', 4)] },
      { records: [record('c', 3)] },
    );
    expect(result).toEqual({ count: 5, modified: 5 });
    expect(await read(301)).toEqual(
      ['a', 'b', 'c', 'd', 'e'].map((id, position) => ({
        id,
        amount: position + 1,
        modifiedDate: T1,
        metadata: { isDeleted: false },
        position,
      })),
    );
    // The first delivery of d left no document behind; nothing is left staged.
    const docs = await sql<{
      n: number;
    }>`SELECT COUNT(*) AS n FROM record_docs WHERE key >= ${301n << 32n} AND key < ${302n << 32n}`.execute(store.store.db);
    expect(Number(docs.rows[0].n)).toBe(5);
    expect(await store.store.db.selectFrom('record_staging').selectAll().execute()).toEqual([]);
  });

  it('full mode: missing records become deleted, unchanged ones keep their document and date', async () => {
    const result = await staged(302, 301, 'full', T2, { records: [record('e', 5), record('c', 30), record('f', 6), record('a', 1)] });
    // b and d missing (deleted now), c changed, f new: 4 modified of 6.
    expect(result).toEqual({ count: 6, modified: 4 });
    expect(await read(302)).toEqual([
      { id: 'a', amount: 1, modifiedDate: T1, metadata: { isDeleted: false }, position: 0 },
      { id: 'b', amount: 2, modifiedDate: T2, metadata: { isDeleted: true }, position: 1 },
      { id: 'c', amount: 30, modifiedDate: T2, metadata: { isDeleted: false }, position: 2 },
      { id: 'd', amount: 4, modifiedDate: T2, metadata: { isDeleted: true }, position: 3 },
      { id: 'e', amount: 5, modifiedDate: T1, metadata: { isDeleted: false }, position: 4 },
      { id: 'f', amount: 6, modifiedDate: T2, metadata: { isDeleted: false }, position: 5 },
    ]);
    const shared = await sql<{
      n: number;
    }>`SELECT COUNT(*) AS n FROM record_index WHERE version = 302 AND doc_key < ${302n << 32n}`.execute(store.store.db);
    expect(Number(shared.rows[0].n)).toBe(2);
  });

  it('delta mode: upserts and deletes since the cursor; a record created and deleted in between never shows', async () => {
    const result = await staged(
      303,
      302,
      'delta',
      T3,
      { records: [record('g', 7), record('aa', 11)] },
      { records: [record('e', 50)], deleted: ['g', 'a', 'b', 'zz'] },
    );
    // aa new, e changed, a deleted; g created and deleted; b already deleted; zz unknown.
    expect(result).toEqual({ count: 7, modified: 3 });
    const rows = await read(303);
    expect(rows.map((r) => [r.id, r.amount, r.modifiedDate, r.metadata.isDeleted, r.position])).toEqual([
      ['a', 1, T3, true, 0],
      ['aa', 11, T3, false, 1],
      ['b', 2, T2, true, 2],
      ['c', 30, T2, false, 3],
      ['d', 4, T2, true, 4],
      ['e', 50, T3, false, 5],
      ['f', 6, T2, false, 6],
    ]);
    // g's document, written and then hidden, is gone.
    const docs = await sql<{
      n: number;
    }>`SELECT COUNT(*) AS n FROM record_docs WHERE key >= ${303n << 32n} AND key < ${304n << 32n}`.execute(store.store.db);
    expect(Number(docs.rows[0].n)).toBe(3);
  });

  it('a full read in id order and the same read scrambled give the same version', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `r${String(i).padStart(3, '0')}`);
    await writeVersion({
      store: store.store,
      version: 401,
      previousVersion: null,
      source: ids.map((id, i) => record(id, i)),
      now: T1,
      onBatch: async () => {},
    });
    const scrambled = [...ids].sort((a, b) => ((a.charCodeAt(3) * 7) % 11) - ((b.charCodeAt(3) * 7) % 11) || b.localeCompare(a));
    await staged(
      402,
      null,
      'full',
      T1,
      ...Array.from({ length: 8 }, (_, p) => ({ records: scrambled.slice(p * 5, p * 5 + 5).map((id) => record(id, ids.indexOf(id))) })),
    );
    expect(await read(402)).toEqual(await read(401));
  });
});
