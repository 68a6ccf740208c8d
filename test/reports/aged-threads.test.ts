import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { dayOf, expected, served, SIDES, type ReportName, syncedSandbox, type AgedRecords } from '../helpers/aged-oracle.js';

/*
 * A large company's aged reports are made on two threads of their own (src/reports/aged/aged-reading-threads.ts): the
 * payments, credit notes and counterparties read on one, the documents on the other, each over its own store
 * connection, and put together there. Here every company is large (`threadFrom: 0`), on both stores: the figures
 * and the counterparties' names equal an aging worked out from the records the API serves, as the reports made on the
 * calling thread do (aged-reports.test.ts).
 */

let server: TestServer;
let client: TestClient;
let companyId: string;
let records: AgedRecords;

beforeAll(async () => {
  server = await startTestServer({ reports: { threadFrom: 0 } });
  client = await server.newClient({ name: 'Aged reports on threads' });
  ({ companyId, records } = await syncedSandbox(server, client));
}, 120_000);
afterAll(() => server?.close());

describe.each(Object.keys(SIDES) as ReportName[])('%s made on reading threads', (name) => {
  it('equals an aging worked out from the served records, names included', async () => {
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
});
