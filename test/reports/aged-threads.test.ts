import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { dayOf, expected, served, SIDES, type ReportName, syncedSandbox, type AgedRecords } from '../helpers/aged-oracle.js';
import { AGED_DIGEST_FORMAT, AGED_DIGEST_KIND } from '../../src/reports/aged/aged-digest.js';

/*
 * A large company's aged reports are made on threads of their own (src/reports/aged/aged-reading-threads.ts), each
 * over its own store connection, from the digests each sync kept with its version (src/reports/aged/aged-digest.ts;
 * made on threads of their own here too, `digestThreadFrom: 0`) and, for a version without one, from its kept tuples:
 * the documents' on the thread that puts the parts together, the others' on a second thread. Here every company is
 * large (`threadFrom: 0`), on both stores, and each report is made three ways: every version digested (and its
 * records then not read at all: their index rows are deleted); the payments' and documents' digests gone (a store
 * from before digests: both threads read tuples); every digest of a format this code does not read (read as absent).
 * Each time the figures and the counterparties' names equal an aging worked out from the records the API serves, as
 * the reports made on the calling thread do (aged-reports.test.ts).
 */

let server: TestServer;
let client: TestClient;
const companies: Record<Way, { companyId: string; records: AgedRecords }> = {} as never;

const WAYS = ['every version digested', 'payments and documents undigested', 'digests of another format'] as const;
type Way = (typeof WAYS)[number];

/** The company's current versions of these data types. */
async function versionsOf(companyId: string, types: string[]): Promise<number[]> {
  const rows = await server.store.db
    .selectFrom('data_sets')
    .select('current_version')
    .where('company_id', '=', companyId)
    .where('data_type', 'in', types)
    .execute();
  return rows.map((r) => Number(r.current_version));
}

beforeAll(async () => {
  server = await startTestServer({ reports: { threadFrom: 0, digestThreadFrom: 0 } });
  client = await server.newClient({ name: 'Aged reports on threads' });
  for (const way of WAYS) companies[way] = await syncedSandbox(server, client);
  const db = server.store.db;
  // Each sync kept its version's digest.
  for (const way of WAYS) {
    const all = await versionsOf(
      companies[way].companyId,
      Object.values(SIDES).flatMap((side) => Object.values(side.types)),
    );
    expect(all.length).toBe(8);
    const kept = await db.selectFrom('version_digests').select('version').where('version', 'in', all).where('chunk', '=', 0).execute();
    expect(kept.length).toBe(8);
  }
  // Where every version has its digest, no record is read: with the index rows of its versions gone (the documents
  // stay, for the served records above), the report still equals the oracle.
  const digested = await versionsOf(
    companies['every version digested'].companyId,
    Object.values(SIDES).flatMap((side) => Object.values(side.types)),
  );
  await db.deleteFrom('record_index').where('version', 'in', digested).execute();
  const undigested = await versionsOf(
    companies['payments and documents undigested'].companyId,
    Object.values(SIDES).flatMap((side) => [side.types.payments, side.types.documents]),
  );
  await db.deleteFrom('version_digests').where('version', 'in', undigested).execute();
  // Another format: the number in each digest's header raised, the rest as it was.
  const other = await versionsOf(
    companies['digests of another format'].companyId,
    Object.values(SIDES).flatMap((side) => Object.values(side.types)),
  );
  for (const row of await db.selectFrom('version_digests').selectAll().where('version', 'in', other).where('chunk', '=', 0).execute()) {
    const bytes = Buffer.from(row.bytes);
    const length = bytes.readUInt32LE(0);
    const header = bytes.subarray(8, 8 + length).toString('utf8');
    const raised = header.replace(`"format":${AGED_DIGEST_FORMAT}`, `"format":${AGED_DIGEST_FORMAT + 1}`);
    expect(raised).not.toBe(header);
    bytes.write(raised, 8, 'utf8');
    await sql`UPDATE version_digests SET bytes = ${bytes} WHERE version = ${row.version} AND kind = ${AGED_DIGEST_KIND} AND chunk = 0`.execute(
      db,
    );
  }
}, 240_000);
afterAll(() => server?.close());

describe.each(WAYS.flatMap((way) => (Object.keys(SIDES) as ReportName[]).map((name) => [name, way] as const)))(
  '%s made on reading threads, %s',
  (name, way) => {
    it('equals an aging worked out from the served records, names included', async () => {
      const { companyId, records } = companies[way];
      const side = SIDES[name];
      const dates = records[side.types.documents].map((d) => dayOf(d.issueDate)).sort();
      expect(dates.length).toBeGreaterThan(10);
      // Two first requests at once share one computation; both answer the same.
      const [first, again] = await Promise.all(
        [0, 1].map(() => http(server, 'GET', `/companies/${companyId}/reports/${name}?reportDate=${dates.at(-1)}`, { auth: client.auth })),
      );
      expect(first.status, first.text).toBe(200);
      expect(again.body.data).toEqual(first.body.data);
      for (const [reportDate, periods, length] of [
        [dates.at(-1)!, 4, 30],
        [dates[Math.floor(dates.length / 2)], 6, 14],
        ['2099-12-31', 120, 3650],
      ] as const) {
        const res = await http(
          server,
          'GET',
          `/companies/${companyId}/reports/${name}?reportDate=${reportDate}&numberOfPeriods=${periods}&periodLengthDays=${length}`,
          {
            auth: client.auth,
          },
        );
        expect(res.status, res.text).toBe(200);
        expect(served(name, res.body)).toEqual(expected(records, name, reportDate, periods, length));
        expect(res.body.data.length).toBeGreaterThan(0);
        for (const row of res.body.data) {
          const own = records[side.types.counterparties].filter((c) => c.id === row[`${side.who}Id`]);
          if (own.length === 1) expect(row[`${side.who}Name`]).toBe(own[0][`${side.who}Name`]);
        }
      }
    });
  },
);
