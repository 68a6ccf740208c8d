import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { authorize, companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs } from '../helpers/sandbox.js';
import { createRecordReader } from '../../src/records/record-reader.js';
import { createListContext } from '../../src/query/list-engine.js';
import { KEPT_FIELDS, keptTuple } from '../../src/records/record-fields.js';
import { dayNumber } from '../../src/lib/calendar-date.js';

/*
 * The kept tuples (record-fields.ts, KEPT_FIELDS): written with each version of the reports' inputs, each field at its
 * place (dates as day numbers, lists as tuples of their own); and a version written without them (before the column
 * existed) read from its documents, kept the same way, so a report reads the same either way. Both stores.
 */

let server: TestServer;
let client: TestClient;
let companyId: string;
const TYPES = ['invoices', 'payments', 'customers'] as const;

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient({ name: 'Kept fields' });
  const linked = await companyWithConnection(server, client);
  companyId = linked.companyId;
  await fetchOnFirstLinkOnly(server, client, companyId, TYPES);
  await authorize(server, client, linked);
  await waitForSyncs(server, client, companyId);
}, 60_000);
afterAll(() => server?.close());

async function served(dataType: string) {
  const res = await http(server, 'GET', `/companies/${companyId}/data/${dataType}?pageSize=5000`, { auth: client.auth });
  expect(res.status).toBe(200);
  return res.body.results as Record<string, unknown>[];
}

async function versionOf(dataType: string): Promise<number> {
  const { rows } = await sql<{ version: number | string }>`SELECT MAX(version) AS version FROM record_versions
    WHERE data_type = ${dataType} AND records IS NOT NULL`.execute(server.store.db);
  return Number(rows[0].version);
}

describe('kept copies of the reports inputs', () => {
  it('keep each field at its place: values as stored, dates as day numbers, lists as tuples', () => {
    const record = {
      id: 'p1',
      date: '2024-01-01T00:00:00',
      note: 'not kept',
      customerRef: { id: 'c1', companyName: 'Alpha', extra: 1 },
      lines: [{ amount: 5, note: 'x', links: [{ type: 'Invoice', id: 'i1', amount: -5, currencyRate: 1 }] }, { amount: 2 }],
    };
    expect(keptTuple(KEPT_FIELDS.payments!, record)).toEqual([
      'p1',
      dayNumber('2024-01-01'),
      null,
      'c1',
      'Alpha',
      [
        [5, null, [['Invoice', 'i1', -5]]],
        [2, null, null],
      ],
    ]);
    for (const day of ['1970-01-01', '0001-01-01', '0099-12-31', '2000-02-29', '1900-03-01', '9999-12-31'])
      expect(keptTuple(['x', { day: 'd' }], { d: `${day}T12:00:00Z` })).toEqual([null, dayNumber(day)]);
    expect(keptTuple([{ day: 'a' }, { day: 'b' }, { day: 'c' }], { a: '2024-1-01', b: 20240101, c: 'soon' })).toEqual([null, null, null]);
  });

  it.each(TYPES)('are written with each version of %s, and a version without them reads the same from its documents', async (dataType) => {
    const records = await served(dataType);
    expect(records.length).toBeGreaterThan(0);
    const want = records.map((r) => keptTuple(KEPT_FIELDS[dataType]!, r));
    const reader = createRecordReader(server.store, createListContext(server.store.db, server.store.dialect));
    const version = await versionOf(dataType);
    const read = async () => {
      const out: unknown[][] = [];
      await reader.eachKept([version], KEPT_FIELDS[dataType]!, (r) => out.push(r), 7);
      return out.sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    };
    const sorted = want.sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    const { rows } = await sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM record_index
      WHERE version = ${version} AND f_kept IS NOT NULL`.execute(server.store.db);
    expect(Number(rows[0].n)).toBe(records.length);
    expect(await read()).toEqual(sorted);
    await sql`UPDATE record_index SET f_kept = NULL WHERE version = ${version}`.execute(server.store.db);
    expect(await read()).toEqual(sorted);
    // Tuples of another layout (KEPT_FIELDS changed since they were written): read from the documents too.
    await sql`UPDATE record_index SET f_kept = '["an older layout", "0ld1ay0t"]' WHERE version = ${version}`.execute(server.store.db);
    expect(await read()).toEqual(sorted);
  });
});
