import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { registerConnector } from '../../src/connectors/registry.js';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import {
  authorize,
  companyWithConnection,
  fetchOnFirstLinkOnly,
  waitForOperation,
  waitForSyncs,
  type LinkedCompany,
} from '../helpers/sandbox.js';
import { ScriptedPlatform } from '../helpers/scripted-platform.js';

/**
 * Delta syncs and records in any order, through the real service: a platform of the test's own delivers its
 * invoices scrambled across pages of three, then only what changed since the cursor.
 */
const platform = new ScriptedPlatform();
registerConnector(platform.connector('tdlt'));

let server: TestServer;
let client: TestClient;
let linked: LinkedCompany;
const ids = Array.from({ length: 10 }, (_, i) => `inv-${String(i).padStart(2, '0')}`);
const invoice = (i: number, extra: Record<string, unknown> = {}) => ({
  invoiceNumber: `N${i}`,
  status: i % 2 ? 'Paid' : 'Submitted',
  totalAmount: 100 + i,
  currency: 'GBP',
  issueDate: '2026-01-01T00:00:00',
  ...extra,
});

beforeAll(async () => {
  // The scripted platform lives in this thread: versions are written here too. Superseded versions go at once.
  server = await startTestServer({ jobs: { writerThreads: 0, retainSupersededMs: 0 } });
  client = await server.newClient();
  ids.forEach((id, i) => platform.set(id, invoice(i)));
  linked = await companyWithConnection(server, client, 'tdlt');
  await fetchOnFirstLinkOnly(server, client, linked.companyId, ['invoices']);
  await authorize(server, client, linked, {});
  await waitForSyncs(server, client, linked.companyId);
});
afterAll(() => server.close());

async function list(query = '', pageSize = 4) {
  const all: any[] = [];
  let total = 0;
  for (let page = 1; ; page++) {
    const res = await http(server, 'GET', `/companies/${linked.companyId}/data/invoices?page=${page}&pageSize=${pageSize}${query}`, {
      auth: client.auth,
    });
    expect(res.status, res.text).toBe(200);
    total = res.body.totalResults;
    all.push(...res.body.results);
    if (all.length >= total || res.body.results.length === 0) break;
  }
  expect(all).toHaveLength(total);
  return all;
}

async function resync(query = '') {
  const res = await http(server, 'POST', `/companies/${linked.companyId}/data/queue/invoices${query}`, { auth: client.auth });
  expect(res.status, res.text).toBe(200);
  const op = await waitForOperation(server, client, linked.companyId, res.body.id);
  expect(op.status).toBe('Complete');
  return op;
}

async function currentVersion(): Promise<number> {
  const row = await server.store.db
    .selectFrom('data_sets')
    .select('current_version')
    .where('connection_id', '=', linked.connectionId)
    .executeTakeFirstOrThrow();
  return Number(row.current_version);
}

async function indexRows(version: number) {
  const rows = await server.store.db
    .selectFrom('record_index')
    .select(['record_id', 'position'])
    .select(sql<string>`CAST(doc_key AS TEXT)`.as('doc_key'))
    .where('version', '=', version)
    .orderBy('position')
    .execute();
  return rows.map((r) => ({ id: r.record_id, position: Number(r.position), docKey: String(r.doc_key) }));
}

describe('delta syncs over records in any order', () => {
  it('writes a first full read delivered out of order as a complete version in id order', async () => {
    expect(platform.reads).toEqual([{ cursor: null, mode: 'full' }]);
    const records = await list();
    expect(records.map((r) => r.id)).toEqual(ids);
    expect(records.every((r) => r.metadata.isDeleted === false)).toBe(true);
    expect((await list('&query=status%3DPaid')).map((r) => r.id)).toEqual(ids.filter((_, i) => i % 2));
    expect((await indexRows(await currentVersion())).map((r) => r.position)).toEqual(ids.map((_, i) => i));
  });

  it('reads two changes and a delete since the cursor into a complete new version that shares the unchanged records', async () => {
    const before = await list();
    const previousVersion = await currentVersion();
    platform.set('inv-03', invoice(3, { totalAmount: 999 }), '2026-02-01T00:00:00Z');
    platform.set('inv-07', invoice(7, { status: 'Void' }), '2026-02-01T00:00:00Z');
    platform.delete('inv-05');
    await resync();
    expect(platform.reads.at(-1)).toEqual({ cursor: '10', mode: 'delta' });

    const after = await list();
    expect(after.map((r) => r.id)).toEqual(ids);
    const byId = (rows: any[], id: string) => rows.find((r) => r.id === id);
    expect(byId(after, 'inv-03').totalAmount).toBe(999);
    expect(byId(after, 'inv-07').status).toBe('Void');
    expect(byId(after, 'inv-05')).toMatchObject({ totalAmount: 105, metadata: { isDeleted: true } });
    const changed = ['inv-03', 'inv-05', 'inv-07'];
    for (const id of changed) expect(byId(after, id).modifiedDate > byId(before, id).modifiedDate).toBe(true);
    for (const id of ids.filter((i) => !changed.includes(i))) expect(byId(after, id)).toEqual(byId(before, id));
    expect((await list('&query=status%3DVoid')).map((r) => r.id)).toEqual(['inv-07']);
    expect((await http(server, 'GET', `/companies/${linked.companyId}/data/invoices/inv-07`, { auth: client.auth })).body.status).toBe(
      'Void',
    );

    // Unchanged records refer to the documents written by the first sync; the three others have their own.
    const version = await currentVersion();
    expect(version).toBeGreaterThan(previousVersion);
    const rows = await indexRows(version);
    expect(rows.map((r) => r.position)).toEqual(ids.map((_, i) => i));
    const own = rows.filter((r) => BigInt(r.docKey) >> 32n === BigInt(version)).map((r) => r.id);
    expect(own.sort()).toEqual(changed);
  });

  it('slots new records into id order and serves the previous version whole until the new one completes', async () => {
    const before = await list();
    platform.set('inv-045', invoice(45));
    platform.set('inv-99', invoice(99));
    platform.set('inv-00', invoice(0, { totalAmount: 1 }));
    platform.gate = new Promise<void>((release) => {
      void platform.atGate().then(async () => {
        // Mid-sync: the first page is staged, readers still see the previous version, complete.
        expect(await list()).toEqual(before);
        release();
      });
    });
    await resync();
    platform.gate = undefined;
    const after = await list();
    expect(after.map((r) => r.id)).toEqual([
      'inv-00',
      'inv-01',
      'inv-02',
      'inv-03',
      'inv-04',
      'inv-045',
      'inv-05',
      'inv-06',
      'inv-07',
      'inv-08',
      'inv-09',
      'inv-99',
    ]);
    expect(after[0].totalAmount).toBe(1);
    expect((await indexRows(await currentVersion())).map((r) => r.position)).toEqual(after.map((_, i) => i));
  });

  it('a deleted record deleted again, or one that comes back, keeps the history straight', async () => {
    platform.set('inv-05', invoice(5, { totalAmount: 555 }), '2026-03-01T00:00:00Z');
    await resync();
    const back = (await list()).find((r) => r.id === 'inv-05');
    expect(back).toMatchObject({ totalAmount: 555, metadata: { isDeleted: false } });
  });

  it('reads in full with ?full=true, and a record missing from a full read is deleted', async () => {
    platform.delete('inv-99');
    // Deleted on the platform, but the full read below is what must notice (not the change log).
    await resync('?full=true');
    expect(platform.reads.at(-1)).toEqual({ cursor: null, mode: 'full' });
    const records = await list();
    expect(records.find((r) => r.id === 'inv-99').metadata.isDeleted).toBe(true);
    expect(records.filter((r) => !r.metadata.isDeleted)).toHaveLength(11);
  });

  it('deletes superseded versions without taking the documents the current version still shares', async () => {
    const version = await currentVersion();
    // Superseded versions go as soon as their jobs run (retainSupersededMs: 0).
    const deadline = Date.now() + 20_000;
    for (;;) {
      const versions = await server.store.db.selectFrom('record_versions').select('version').execute();
      if (versions.length === 1) break;
      if (Date.now() > deadline) throw new Error(`superseded versions left: ${JSON.stringify(versions)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Every document left is one the current version refers to, and it refers to nothing missing.
    const rows = await indexRows(version);
    const docs = await server.store.db
      .selectFrom('record_docs')
      .select(sql<string>`CAST(key AS TEXT)`.as('key'))
      .execute();
    expect(docs.map((d) => String(d.key)).sort()).toEqual(rows.map((r) => r.docKey).sort());
    expect((await list()).map((r) => r.id)).toHaveLength(12);
  });

  it('a rate-limited read is not a failure: the sync waits as the platform asks and completes', async () => {
    platform.set('inv-01', invoice(1, { totalAmount: 111 }), '2026-04-01T00:00:00Z');
    platform.rateLimitOnce = 300;
    const reads = platform.reads.length;
    const op = await resync();
    expect(op.status).toBe('Complete');
    expect(platform.reads.slice(reads).map((r) => r.mode)).toEqual(['rate-limited', 'delta']);
    expect((await list()).find((r) => r.id === 'inv-01').totalAmount).toBe(111);
  });
});
