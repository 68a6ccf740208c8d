import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { writeVersion } from '../../src/records/data-set-writer.js';
import type { SourceRecord } from '../../src/connectors/connector.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';

/** The version writer on a real store, fed by a small platform of the test's own. */

let store: TestStore;
beforeAll(async () => {
  store = await createTestStore();
});
afterAll(() => store.destroy());

const record = (id: string, amount: number): SourceRecord => ({ id, sourceModifiedDate: null, data: { id, amount } });

async function write(version: number, previousVersion: number | null, records: SourceRecord[], now: string) {
  return writeVersion({ store: store.store, version, previousVersion, source: records, now, onBatch: async () => {}, batchSize: 2 });
}

async function read(version: number) {
  const rows = await store.store.db
    .selectFrom('record_index as r')
    .innerJoin('record_docs as d', (join) => join.on('d.key', '=', sql`r.version * 4294967296 + r.position`))
    .select(['d.doc', 'r.position'])
    .where('r.version', '=', version)
    .orderBy('r.position')
    .execute();
  return rows.map((r) => ({ ...JSON.parse(r.doc), position: Number(r.position) }));
}

describe('writeVersion', () => {
  it('keeps modifiedDate for unchanged records, stamps new and changed ones, and keeps deleted ones marked', async () => {
    const t1 = '2026-01-01T00:00:00.000Z';
    const t2 = '2026-01-02T00:00:00.000Z';
    const t3 = '2026-01-03T00:00:00.000Z';
    expect(await write(101, null, [record('a', 1), record('b', 2), record('c', 3)], t1)).toBe(3);
    expect(await write(102, 101, [record('a', 1), record('b', 20), record('d', 4)], t2)).toBe(4);
    expect(await read(102)).toEqual([
      { id: 'a', amount: 1, modifiedDate: t1, metadata: { isDeleted: false }, position: 0 },
      { id: 'b', amount: 20, modifiedDate: t2, metadata: { isDeleted: false }, position: 1 },
      { id: 'c', amount: 3, modifiedDate: t2, metadata: { isDeleted: true }, position: 2 },
      { id: 'd', amount: 4, modifiedDate: t2, metadata: { isDeleted: false }, position: 3 },
    ]);
    // Still gone: keeps the date it was deleted. Back at the source: live again, stamped now.
    expect(await write(103, 102, [record('a', 1), record('b', 20), record('d', 4)], t3)).toBe(4);
    expect((await read(103))[2]).toEqual({ id: 'c', amount: 3, modifiedDate: t2, metadata: { isDeleted: true }, position: 2 });
    await write(104, 103, [record('a', 1), record('b', 20), record('c', 3), record('d', 4)], t3);
    expect((await read(104))[2]).toEqual({ id: 'c', amount: 3, modifiedDate: t3, metadata: { isDeleted: false }, position: 2 });
    // The previous versions are untouched.
    expect((await read(101)).map((r) => r.modifiedDate)).toEqual([t1, t1, t1]);
  });

  it('stores ids, documents and indexed fields exactly, whatever characters they hold (COPY escapes on Postgres)', async () => {
    const hostile = ['back\\slash', 'tab\there', 'line\nfeed', 'carriage\rreturn', '\\N', '\\.', '', 'é 漢字 😀', 'quote " and \\" done'];
    const records: SourceRecord[] = hostile.map((text, i) => ({
      id: `id-${i}-${text}`,
      sourceModifiedDate: null,
      data: { id: `id-${i}-${text}`, status: text, currency: i % 2 ? null : text, amountDue: i === 0 ? 1e-7 : i * 1.5, note: text },
    }));
    // A document larger than a COPY chunk (256 KiB), mostly multi-byte characters.
    records.push({ id: 'zz-large', sourceModifiedDate: null, data: { id: 'zz-large', status: 'big', note: 'ü\t'.repeat(150_000) } });
    records.sort((a, b) => (a.id < b.id ? -1 : 1));
    const fields = { status: 'status', currency: 'currency', amount: 'amountDue' };
    const now = '2026-02-01T00:00:00.000Z';
    await writeVersion({
      store: store.store,
      version: 401,
      previousVersion: null,
      source: records,
      now,
      fields,
      onBatch: async () => {},
      batchSize: 4,
    });
    const stored = await read(401);
    expect(stored).toEqual(records.map((r, position) => ({ ...r.data, modifiedDate: now, metadata: { isDeleted: false }, position })));
    const index = await store.store.db
      .selectFrom('record_index')
      .select(['record_id', 'f_status', 'f_currency', 'f_amount'])
      .where('version', '=', 401)
      .orderBy('position')
      .execute();
    expect(index).toEqual(
      records.map((r) => ({
        record_id: r.id,
        f_status: r.data.status,
        f_currency: r.data.currency ?? null,
        f_amount: (r.data.amountDue as number | undefined) ?? null,
      })),
    );
  });

  it('refuses a platform that streams records out of id order', async () => {
    await expect(write(201, null, [record('b', 1), record('a', 2)], '2026-01-01T00:00:00.000Z')).rejects.toThrow(/out of order/);
  });

  it('lets no batch commit after it fails: what is stored when it rejects is all that ever will be', async () => {
    // A platform that fails after three batches of two; on Postgres the third is being stored as the read throws.
    async function* pages() {
      for (let i = 0; i < 6; i++) yield { records: [record(`r${i}`, i)] };
      throw new Error('the platform went away');
    }
    const count = async () =>
      Number(
        (
          await store.store.db
            .selectFrom('record_index')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('version', '=', 301)
            .executeTakeFirstOrThrow()
        ).n,
      );
    await expect(
      writeVersion({
        store: store.store,
        version: 301,
        previousVersion: null,
        pages: pages(),
        now: '2026-01-01T00:00:00.000Z',
        onBatch: async () => {},
        batchSize: 2,
      }),
    ).rejects.toThrow(/went away/);
    const atRejection = await count();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await count()).toBe(atRejection);
    expect(atRejection).toBe(6);
  });
});
