import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { createClientsService } from '../../src/access/clients.service.js';
import { accountingSandbox } from '../../src/connectors/sandbox/accounting/index.js';
import type { SourceRecord } from '../../src/connectors/connector.js';
import { extractFields, recordFieldPaths } from '../../src/records/record-fields.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTestStore, storeKind, type TestStore } from '../helpers/test-store.js';
import { basicAuth, http } from '../helpers/test-server.js';

/**
 * 0004-record-layout over data written in the layout before it: a store stopped at 0003, a synced invoices
 * data set (and a customers one) written the way the old writer wrote `records`, then migrated to the latest
 * schema and read back, row by row and through the HTTP API.
 */

const SETTINGS = { seed: 1, invoices: 20, asOf: '2024-06-30' };
const SYNCED = '2024-07-01T09:00:00.000Z';
const DELETED_AT = '2024-07-02T09:00:00.000Z';
const INVOICES_VERSION = 3;
const CUSTOMERS_VERSION = 5;

interface OldRow {
  version: number;
  position: number;
  record_id: string;
  content_hash: string;
  modified_date: string;
  is_deleted: number;
  doc: string;
  data: Record<string, unknown>;
}

/** The rows the pre-0004 writer stored for one version: positions in id order, the served JSON as `doc`. */
function oldLayout(version: number, records: SourceRecord[], deletedIds: Set<string>): OldRow[] {
  return records.map((record, position) => {
    const content = JSON.stringify(record.data);
    const deleted = deletedIds.has(record.id);
    const modified = deleted ? DELETED_AT : SYNCED;
    return {
      version,
      position,
      record_id: record.id,
      content_hash: createHash('sha1').update(content).digest('base64'),
      modified_date: modified,
      is_deleted: deleted ? 1 : 0,
      doc: `${content.slice(0, -1)},"modifiedDate":${JSON.stringify(modified)},"metadata":{"isDeleted":${deleted}}}`,
      data: record.data,
    };
  });
}

const invoiceSource = accountingSandbox.dataTypes.get('invoices')!;
const customerSource = accountingSandbox.dataTypes.get('customers')!;
const invoices = [...invoiceSource.fetch({ settings: SETTINGS, epoch: 0 })];
const customers = [...customerSource.fetch({ settings: SETTINGS, epoch: 0 })].slice(0, 4);

// The rarest status held by at least two invoices: the filter must select some, not all. One of them is deleted.
const statusCounts = new Map<string, number>();
for (const r of invoices) statusCounts.set(r.data.status as string, (statusCounts.get(r.data.status as string) ?? 0) + 1);
const STATUS = [...statusCounts].filter(([, n]) => n >= 2).sort((a, b) => a[1] - b[1])[0][0];
const DELETED_ID = invoices.filter((r) => r.data.status === STATUS)[1].id;

const invoiceRows = oldLayout(INVOICES_VERSION, invoices, new Set([DELETED_ID]));
const customerRows = oldLayout(CUSTOMERS_VERSION, customers, new Set());
const KEY_STEP = 2 ** 32;

let store: TestStore;
let app: App;
let url: string;
let auth: string;
let companyId: string;

beforeAll(async () => {
  store = await createTestStore({ migrateTo: '0003-writes-and-webhooks' });
  const { db } = store.store;
  const { client, key } = await createClientsService({ db }).create({ name: 'Migration test', plan: 'standard' });
  auth = basicAuth(key.apiKey);

  // The 0003 schema, not the current one: written without the typed builder's table types.
  const old = db as any;
  companyId = randomUUID();
  const connectionId = randomUUID();
  await old
    .insertInto('companies')
    .values({
      id: companyId,
      client_id: client.id,
      name: 'Migrated',
      created: SYNCED,
      last_sync: SYNCED,
      doc: JSON.stringify({ id: companyId, name: 'Migrated', platform: '', created: SYNCED }),
    })
    .execute();
  await old
    .insertInto('connections')
    .values({
      id: connectionId,
      client_id: client.id,
      company_id: companyId,
      platform_key: 'mqjo',
      source_type: 'Accounting',
      status: 'Linked',
      created: SYNCED,
      last_sync: SYNCED,
      settings: JSON.stringify(SETTINGS),
      doc: JSON.stringify({
        id: connectionId,
        integrationKey: 'mqjo',
        sourceType: 'Accounting',
        platformName: 'Sandbox',
        status: 'Linked',
        lastSync: SYNCED,
        created: SYNCED,
        dataConnectionErrors: [],
      }),
    })
    .execute();
  for (const [seq, dataType, rows] of [
    [INVOICES_VERSION, 'invoices', invoiceRows],
    [CUSTOMERS_VERSION, 'customers', customerRows],
  ] as const) {
    const id = randomUUID();
    await old
      .insertInto('pull_operations')
      .values({
        seq,
        id,
        client_id: client.id,
        company_id: companyId,
        connection_id: connectionId,
        data_type: dataType,
        status: 'Complete',
        requested: SYNCED,
        epoch: 0,
        read_reported: 1,
        records_modified: rows.length,
        doc: JSON.stringify({
          id,
          companyId,
          connectionId,
          dataType,
          status: 'Complete',
          requested: SYNCED,
          completed: SYNCED,
          progress: 100,
          isCompleted: true,
          isErrored: false,
        }),
      })
      .execute();
    await old
      .insertInto('data_sets')
      .values({
        connection_id: connectionId,
        data_type: dataType,
        client_id: client.id,
        company_id: companyId,
        current_version: seq,
        completed_syncs: 1,
        last_successful_sync: SYNCED,
        latest_successful_sync_id: id,
      })
      .execute();
    await old
      .insertInto('records')
      .values(rows.map(({ data: _data, ...row }) => row))
      .execute();
  }

  await migrateToLatest(db, store.store.dialect.name);

  app = await buildApp({ store: store.store, logLevel: 'silent', jobs: { enabled: false } });
  url = await app.listen(0, '127.0.0.1');
});

afterAll(async () => {
  await app?.server.close();
  await store?.destroy();
});

describe(`0004-record-layout over existing records (${storeKind})`, () => {
  it('drops the old records table', async () => {
    await expect(sql`SELECT 1 FROM records`.execute(store.store.db)).rejects.toThrow(/records/);
  });

  it('keeps every document under version * 2^32 + position', async () => {
    const { rows } = await sql<{ key: number | string | bigint; doc: string }>`SELECT key, doc FROM record_docs ORDER BY key`.execute(
      store.store.db,
    );
    const expected = [...invoiceRows, ...customerRows].map((r) => ({ key: String(r.version * KEY_STEP + r.position), doc: r.doc }));
    expect(rows.map((r) => ({ key: String(r.key), doc: r.doc }))).toEqual(expected);
  });

  it('indexes every record with its identity, change tracking and the indexed fields the writer extracts', async () => {
    const rows = await store.store.db.selectFrom('record_index').selectAll().orderBy('version').orderBy('position').execute();
    const invoicePaths = recordFieldPaths(invoiceSource.schema);
    const customerPaths = recordFieldPaths(customerSource.schema);
    const expected = [...invoiceRows, ...customerRows].map((r) => {
      const [f_status, f_date, f_amount, f_currency, f_ref] = extractFields(
        r.version === INVOICES_VERSION ? invoicePaths : customerPaths,
        r.data,
      );
      return {
        version: r.version,
        record_id: r.record_id,
        position: r.position,
        content_hash: r.content_hash,
        modified_date: r.modified_date,
        is_deleted: r.is_deleted,
        f_status,
        f_date,
        f_amount,
        f_currency,
        f_ref,
        // 0014-kept-fields: a version written before it has no kept tuples (its documents are read instead).
        f_kept: null,
        // 0006-shared-records: each document's key, its own under version * 2^32 + position.
        doc_key: String(r.version * KEY_STEP + r.position),
      };
    });
    expect(
      rows.map((r) => ({
        ...r,
        version: Number(r.version),
        position: Number(r.position),
        is_deleted: Number(r.is_deleted),
        doc_key: String(r.doc_key),
      })),
    ).toEqual(expected);

    // Spelled out for invoices, whose schema fills all five columns.
    const invoiceIndex = rows.filter((r) => Number(r.version) === INVOICES_VERSION);
    expect(invoiceIndex).toHaveLength(invoices.length);
    invoiceIndex.forEach((row, i) => {
      const data = invoices[i].data as {
        status: string;
        issueDate: string;
        amountDue: number;
        currency: string;
        customerRef: { id: string };
      };
      expect(row.record_id).toBe(invoices[i].id);
      expect(Number(row.is_deleted)).toBe(invoices[i].id === DELETED_ID ? 1 : 0);
      expect(row).toMatchObject({
        f_status: data.status,
        f_date: data.issueDate,
        f_amount: data.amountDue,
        f_currency: data.currency,
        f_ref: data.customerRef.id,
      });
    });
    // Customers have a status and none of the other indexed fields.
    for (const row of rows.filter((r) => Number(r.version) === CUSTOMERS_VERSION)) {
      expect(row.f_status).toEqual(expect.any(String));
      expect([row.f_date, row.f_amount, row.f_currency, row.f_ref]).toEqual([null, null, null, null]);
    }
  });

  it('serves the migrated records through the API: pages, filters on indexed fields and single reads', async () => {
    const server = { url };
    const docs = invoiceRows.map((r) => JSON.parse(r.doc));
    const list = async (query?: string) => {
      const res = await http(
        server,
        'GET',
        `/companies/${companyId}/data/invoices?pageSize=100${query ? `&query=${encodeURIComponent(query)}` : ''}`,
        { auth },
      );
      expect(res.status, res.text).toBe(200);
      expect(res.body.totalResults).toBe(res.body.results.length);
      return res.body.results;
    };

    expect(await list()).toEqual(docs);
    const byStatus = await list(`status=${STATUS}`);
    expect(byStatus.length).toBeGreaterThanOrEqual(2);
    expect(byStatus.length).toBeLessThan(docs.length);
    expect(byStatus).toEqual(docs.filter((d) => d.status === STATUS));
    expect(byStatus.map((d: any) => d.id)).toContain(DELETED_ID);

    expect(await list('metadata.isDeleted=true')).toEqual(docs.filter((d) => d.id === DELETED_ID));
    expect(await list('amountDue>0')).toEqual(docs.filter((d) => d.amountDue > 0));
    const currency = docs[docs.length - 1].currency;
    expect(await list(`currency=${currency}`)).toEqual(docs.filter((d) => d.currency === currency));
    const customerId = docs[0].customerRef.id;
    expect(await list(`customerRef.id=${customerId}`)).toEqual(docs.filter((d) => d.customerRef.id === customerId));

    for (const doc of docs) {
      const one = await http(server, 'GET', `/companies/${companyId}/data/invoices/${doc.id}`, { auth });
      expect(one.status, one.text).toBe(200);
      expect(one.body).toEqual(doc);
    }
    const customerPage = await http(server, 'GET', `/companies/${companyId}/data/customers`, { auth });
    expect(customerPage.body.results).toEqual(customerRows.map((r) => JSON.parse(r.doc)));
  });
});

describe(`0004-record-layout stopped part-way (${storeKind})`, () => {
  it('leaves the old layout in place, and the next start migrates', async () => {
    const failing = await createTestStore({ migrateTo: '0003-writes-and-webhooks' });
    try {
      const { db, dialect } = failing.store;
      const old = db as any;
      const { client } = await createClientsService({ db }).create({ name: 'Failing migration', plan: 'standard' });
      const companyId = randomUUID();
      const connectionId = randomUUID();
      await old
        .insertInto('companies')
        .values({ id: companyId, client_id: client.id, name: 'Failing', created: SYNCED, last_sync: null, doc: '{}' })
        .execute();
      await old
        .insertInto('connections')
        .values({
          id: connectionId,
          client_id: client.id,
          company_id: companyId,
          platform_key: 'mqjo',
          source_type: 'Accounting',
          status: 'Linked',
          created: SYNCED,
          last_sync: SYNCED,
          settings: JSON.stringify(SETTINGS),
          doc: '{}',
        })
        .execute();
      await old
        .insertInto('pull_operations')
        .values({
          seq: INVOICES_VERSION,
          id: randomUUID(),
          client_id: client.id,
          company_id: companyId,
          connection_id: connectionId,
          data_type: 'invoices',
          status: 'Complete',
          requested: SYNCED,
          epoch: 0,
          doc: '{}',
        })
        .execute();
      const rows = invoiceRows.slice(0, 3).map(({ data: _data, ...row }) => row);
      // Fails where the indexed fields are extracted, after both new tables are filled: not JSON.
      await old
        .insertInto('records')
        .values(rows.map((r, i) => (i === 2 ? { ...r, doc: '{"status":' } : r)))
        .execute();

      await expect(migrateToLatest(db, dialect.name)).rejects.toThrow();
      expect((await sql<{ n: number }>`SELECT COUNT(*) AS n FROM records`.execute(db)).rows[0].n).toEqual(3);
      await expect(sql`SELECT 1 FROM record_docs`.execute(db)).rejects.toThrow(/record_docs/);

      await old.updateTable('records').set({ doc: rows[2].doc }).where('position', '=', 2).execute();
      await migrateToLatest(db, dialect.name);
      const index = await db.selectFrom('record_index').select(['record_id', 'f_status']).orderBy('position').execute();
      expect(index).toEqual(invoices.slice(0, 3).map((r) => ({ record_id: r.id, f_status: r.data.status })));
    } finally {
      await failing.destroy();
    }
  });
});
