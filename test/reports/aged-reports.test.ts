import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatLending } from '@codat/lending';
import { RFCDate } from '@codat/lending/dist/sdk/types/index.js';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { fetchOnFirstLinkOnly, linkedSandbox, companyWithConnection, authorize, waitForSyncs } from '../helpers/sandbox.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { dayOf, expected, platformOwn, served, SIDES, type ReportName, syncedSandbox, type AgedRecords } from '../helpers/aged-oracle.js';

/*
 * The aged debtors and creditors reports over HTTP, on both stores (docs/lending/aged-reports.md): each figure equals
 * an aging worked out here, in whole cents, from the records the API serves for the same company — never by the
 * service's own code — at several report dates and period shapes; 409 before the inputs have synced, `/available`,
 * 400 naming a bad parameter, 404 for an unknown company.
 */

type Data = Record<string, any>;

let server: TestServer;
let client: TestClient;
let companyId: string;
let records: AgedRecords;

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient({ name: 'Aged reports' });
  ({ companyId, records } = await syncedSandbox(server, client));
}, 120_000);
afterAll(() => server?.close());

async function report(name: ReportName, query: string) {
  const res = await http(server, 'GET', `/companies/${companyId}/reports/${name}?${query}`, { auth: client.auth });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe.each(Object.keys(SIDES) as ReportName[])('%s over the Sandbox', (name) => {
  it('equals an aging worked out from the served records, at several dates and period shapes', async () => {
    const dates = records[SIDES[name].types.documents].map((d) => dayOf(d.issueDate)).sort();
    expect(dates.length).toBeGreaterThan(10);
    const middle = dates[Math.floor(dates.length / 2)];
    const shapes: [string, number, number][] = [
      [dates.at(-1)!, 4, 30],
      [middle, 6, 14],
      [dates[0], 1, 1],
      ['2099-12-31', 120, 3650],
    ];
    // Which details had something outstanding in some report: the comparison must cover all three.
    const seen = [0, 0, 0];
    for (const [reportDate, periods, length] of shapes) {
      const body = await report(name, `reportDate=${reportDate}&numberOfPeriods=${periods}&periodLengthDays=${length}`);
      expect(body.reportDate).toBe(`${reportDate}T00:00:00Z`);
      const want = expected(records, name, reportDate, periods, length);
      expect(served(name, body)).toEqual(want);
      for (const cells of want.values()) for (const period of cells) period.slice(0, 3).forEach((v, d) => (seen[d] += v !== 0 ? 1 : 0));
      for (const row of body.data) {
        const names = records[SIDES[name].types.counterparties].filter((c) => c.id === row[`${SIDES[name].who}Id`]);
        if (names.length === 1) expect(row[`${SIDES[name].who}Name`]).toBe(names[0][`${SIDES[name].who}Name`]);
      }
    }
    // The Sandbox's data differs per connection: each detail must show wherever the records hold one outstanding at
    // the last report date (an unapplied credit note, a payment line settling nothing).
    const side = SIDES[name];
    const openCredit = records[side.types.credits].some((c) => c.remainingCredit > 0 && c.status !== 'Draft' && c.status !== 'Void');
    const onAccount = records[side.types.payments].some((p) =>
      (p.lines ?? []).some((l: Data) => (l.links ?? []).every((k: Data) => k.type === 'PaymentOnAccount' || k.type === 'Unlinked')),
    );
    expect([seen[0] > 0, seen[1] > 0 || !openCredit, seen[2] > 0 || !onAccount], `non-zero cells per detail: ${seen}`).toEqual([
      true,
      true,
      true,
    ]);
  });

  it("as at a day after every record equals the Sandbox's own amounts due and credit remaining", async () => {
    const body = await report(name, 'reportDate=2099-12-31&numberOfPeriods=1');
    const totals = new Map<string, number[]>();
    for (const [key, periods] of served(name, body))
      if (periods[0][0] !== 0 || periods[0][1] !== 0) totals.set(key, periods[0].slice(0, 2));
    expect(totals).toEqual(platformOwn(records, name));
  });

  it('lists periods newest first, each toDate the next fromDate, the last from 0001-01-01', async () => {
    const body = await report(name, 'reportDate=2024-03-31&numberOfPeriods=3&periodLengthDays=10');
    for (const row of body.data)
      for (const currency of row.agedCurrencyOutstanding)
        expect(currency.agedOutstandingAmounts.map((p: Data) => [p.fromDate, p.toDate])).toEqual([
          ['2024-03-21T00:00:00Z', '2024-03-31T00:00:00Z'],
          ['2024-03-11T00:00:00Z', '2024-03-21T00:00:00Z'],
          ['0001-01-01T00:00:00Z', '2024-03-11T00:00:00Z'],
        ]);
  });

  it('is available, and answers 400 naming a parameter out of bounds', async () => {
    const available = await http(server, 'GET', `/companies/${companyId}/reports/${name}/available`, { auth: client.auth });
    expect([available.status, available.body]).toEqual([200, true]);
    for (const [query, parameter] of [
      ['numberOfPeriods=0', 'numberOfPeriods'],
      ['numberOfPeriods=121', 'numberOfPeriods'],
      ['periodLengthDays=3651', 'periodLengthDays'],
      ['periodLengthDays=ten', 'periodLengthDays'],
      ['reportDate=2023-02-29', 'reportDate'],
      ['reportDate=31-03-2024', 'reportDate'],
      ['reportDate=0000-12-31', 'reportDate'],
      ['reportDate=2024-01-31&reportDate=2024-02-29', 'reportDate'],
      ['numberOfPeriods=99999999999999999999', 'numberOfPeriods'],
    ]) {
      const res = await http(server, 'GET', `/companies/${companyId}/reports/${name}?${query}`, { auth: client.auth });
      const body = expectErrorBody(res, 400, { validation: true });
      expect(body.validation.errors.map((e: Data) => e.itemId)).toContain(parameter);
    }
  });
});

describe('through the official SDK (@codat/lending 4.3), unchanged but for its server URL', () => {
  it('reads both reports and their availability, with the figures served over HTTP', async () => {
    const sdk = new CodatLending({ serverURL: server.url, security: { authHeader: client.auth } });
    const reports = sdk.accountsReceivable.reports;
    const request = { companyId, reportDate: new RFCDate('2026-01-31'), numberOfPeriods: 5, periodLengthDays: 45 };
    const query = 'reportDate=2026-01-31&numberOfPeriods=5&periodLengthDays=45';
    const debtors = await reports.getAgedDebtors(request);
    expect(debtors.statusCode).toBe(200);
    const debtorsOverHttp = await report('agedDebtor', query);
    expect(debtors.accountingAgedDebtorReport?.data?.map((row) => [row.customerId, row.customerName])).toEqual(
      debtorsOverHttp.data.map((row: Data) => [row.customerId, row.customerName]),
    );
    const amounts = (rows: Data[] | undefined) =>
      (rows ?? []).flatMap((row) => row.agedCurrencyOutstanding.flatMap((c: Data) => c.agedOutstandingAmounts.map((p: Data) => p.amount)));
    expect(amounts(debtors.accountingAgedDebtorReport?.data)).toEqual(amounts(debtorsOverHttp.data));
    const creditors = await reports.getAgedCreditors(request);
    expect(creditors.statusCode).toBe(200);
    expect(creditors.accountingAgedCreditorReport?.data?.map((row) => row.supplierId)).toEqual(
      (await report('agedCreditor', query)).data.map((row: Data) => row.supplierId),
    );
    expect((await reports.isAgedDebtorsAvailable({ companyId })).boolean).toBe(true);
    expect((await reports.isAgedCreditorsAvailable({ companyId })).boolean).toBe(true);
  });
});

describe('before the inputs have synced', () => {
  it('is not available, and the report answers 409 naming what must sync first', async () => {
    const linked = await companyWithConnection(server, client);
    await fetchOnFirstLinkOnly(server, client, linked.companyId, ['invoices']);
    await authorize(server, client, linked);
    await waitForSyncs(server, client, linked.companyId);
    const path = `/companies/${linked.companyId}/reports`;
    const available = await http(server, 'GET', `${path}/agedDebtor/available`, { auth: client.auth });
    expect([available.status, available.body]).toEqual([200, false]);
    const res = await http(server, 'GET', `${path}/agedDebtor`, { auth: client.auth });
    expectErrorBody(res, 409);
    expect(res.body.error).toBe('DataNotSyncedException: agedDebtor needs customers, payments synced first');
    const creditors = await http(server, 'GET', `${path}/agedCreditor`, { auth: client.auth });
    expect(creditors.body.error).toBe('DataNotSyncedException: agedCreditor needs bills, suppliers, billPayments synced first');
  });

  it("answers 404 for an unknown company, and 403 for another client's, as every company path does", async () => {
    const other = await server.newClient({ name: 'Another client' });
    const theirs = await linkedSandbox(server, other);
    for (const path of ['agedDebtor', 'agedDebtor/available', 'agedCreditor', 'agedCreditor/available']) {
      const unknown = await http(server, 'GET', `/companies/${crypto.randomUUID()}/reports/${path}`, { auth: client.auth });
      expectErrorBody(unknown, 404);
      const res = await http(server, 'GET', `/companies/${theirs.companyId}/reports/${path}`, { auth: client.auth });
      expectErrorBody(res, 403);
    }
  });
});
