import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setEnv } from '../helpers/env.js';
import { connectionCalls } from '../helpers/connection-calls.js';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs, type LinkedCompany } from '../helpers/sandbox.js';
import { ALL_TYPES, expected, platformOwn, served, SIDES, type AgedRecords, type ReportName } from '../helpers/aged-oracle.js';
import { startQboFake, type QboFake } from '../fakes/quickbooks/qbo-fake.js';
import { startXeroFake, type XeroFake } from '../fakes/xero/xero-fake.js';
import { ENHANCED, expectEnhancedLikeStatements, type EnhancedName } from '../helpers/enhanced-oracle.js';

/** What the enhanced statements read. */
const STATEMENT_TYPES = ['profitAndLoss', 'balanceSheet', 'chartOfAccounts', 'company'];

/*
 * The enhanced P&L and balance sheet over the same fakes equal the monthly statements served for the company
 * (test/helpers/enhanced-oracle.ts). Aged debtors and creditors over the QuickBooks and Xero fakes (every answer they give checked against the vendor's
 * own contract): partly paid documents, a voided one, credits applied on a payment (QuickBooks' credit memos and
 * vendor credits) or allocated to a document (Xero's credit notes), credit left over, and money on account; each
 * report's figures equal the aging worked out in the test from the records Ledgerport serves for the company.
 */

type Data = Record<string, any>;
const round2 = (n: number) => Math.round(n * 100) / 100;

let server: TestServer;
let client: TestClient;
let restoreEnv: (() => void)[] = [];
let qbo: QboFake;
let xero: XeroFake;
let xeroTenant: ReturnType<XeroFake['addTenant']>;
let xeroSales: Data[];

beforeAll(async () => {
  qbo = await startQboFake();
  const realm = qbo.addRealm('Severn Trading');
  qbo.consent = { grant: true, realm };
  const invoices = realm.seedInvoices(40);
  const bills = realm.seedBills(20);
  realm.addPayment(invoices[0].Id, invoices[0].TotalAmt);
  realm.addPayment(invoices[1].Id, 10);
  realm.addPayment(invoices[5].Id, round2(invoices[5].TotalAmt / 2));
  realm.voidInvoice(invoices[2].Id);
  const memo = realm.addCreditMemo(invoices[3].CustomerRef.value, 100);
  realm.addPaymentWithCredit(invoices[3].Id, memo.Id, 100, round2(invoices[3].TotalAmt - 100));
  realm.addCreditMemo(invoices[7].CustomerRef.value, 45.5);
  realm.addPaymentOnAccount(invoices[8].CustomerRef.value, 80);
  realm.addBillPayment(bills[0].Id, 50);
  const vendorCredit = realm.addVendorCredit(bills[1].VendorRef.value, 30);
  realm.addBillPaymentWithCredit(bills[1].Id, vendorCredit.Id, 30, round2(bills[1].TotalAmt - 30));
  realm.addVendorCredit(bills[4].VendorRef.value, 12.25);

  xero = await startXeroFake();
  const tenant = (xeroTenant = xero.addTenant('Harbour Trading'));
  const sales = (xeroSales = tenant.seedInvoices(40, 'ACCREC'));
  const purchases = tenant.seedInvoices(20, 'ACCPAY');
  const pay = (invoice: Data, amount: number, date: string) =>
    tenant.createPayment({ Invoice: { InvoiceID: invoice.InvoiceID }, Account: { Code: '090' }, Amount: amount, Date: date });
  pay(sales[0], sales[0].AmountDue, '2025-10-20');
  pay(sales[1], 25, '2025-10-05');
  pay(purchases[0], 40, '2025-09-30');
  const credit = (type: 'ACCRECCREDIT' | 'ACCPAYCREDIT', contact: Data, amount: number) =>
    tenant.createCreditNote({
      Type: type,
      Contact: { ContactID: contact.ContactID },
      Date: '2025-10-10',
      Status: 'AUTHORISED',
      LineAmountTypes: 'NoTax',
      LineItems: [{ Description: 'Credit', Quantity: 1, UnitAmount: amount, AccountCode: type === 'ACCRECCREDIT' ? '200' : '429' }],
    });
  const salesCredit = credit('ACCRECCREDIT', sales[3].Contact, 90);
  tenant.allocateCreditNote(salesCredit.CreditNoteID, { Invoice: { InvoiceID: sales[3].InvoiceID }, Amount: 60, Date: '2025-10-15' });
  // A second part of the same credit note to the same invoice: both parts count.
  tenant.allocateCreditNote(salesCredit.CreditNoteID, { Invoice: { InvoiceID: sales[3].InvoiceID }, Amount: 20, Date: '2025-10-18' });
  const purchaseCredit = credit('ACCPAYCREDIT', purchases[2].Contact, 35);
  tenant.allocateCreditNote(purchaseCredit.CreditNoteID, {
    Invoice: { InvoiceID: purchases[2].InvoiceID },
    Amount: 20,
    Date: '2025-10-12',
  });

  restoreEnv = [setEnv(qbo.env()), setEnv(xero.env())];
  server = await startTestServer();
  client = await server.newClient({ name: 'Aged platforms' });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await qbo?.close();
  await xero?.close();
  for (const restore of restoreEnv.reverse()) restore();
});

describe.each([
  ['QuickBooks Online', 'qhyg'],
  ['Xero', 'gbol'],
])('aged reports over %s', (platformName, platformKey) => {
  let linked: LinkedCompany;
  const records: AgedRecords = {};
  const { allRecords, linkByFollowing, queue } = connectionCalls(
    () => server,
    () => client,
    () => linked,
  );

  beforeAll(async () => {
    linked = await companyWithConnection(server, client, platformKey);
    await fetchOnFirstLinkOnly(server, client, linked.companyId, [...ALL_TYPES, ...STATEMENT_TYPES]);
    await linkByFollowing(platformName);
    const status = await waitForSyncs(server, client, linked.companyId, 120_000);
    for (const type of [...ALL_TYPES, ...STATEMENT_TYPES]) expect(status[type]?.currentStatus, type).toBe('Complete');
    for (const type of ALL_TYPES) records[type] = await allRecords(type);
  }, 180_000);

  it.each(Object.keys(ENHANCED) as EnhancedName[])('%s equals the monthly statements served for the company', async (name) => {
    const res = await http(
      server,
      'GET',
      `/companies/${linked.companyId}/data/financials/${ENHANCED[name].statement}?periodLength=1&periodsToCompare=1`,
      {
        auth: client.auth,
      },
    );
    expect(res.status, res.text).toBe(200);
    const latest = res.body.mostRecentAvailableMonth.slice(0, 7);
    // Two years back: the fakes' documents are dated in 2025.
    const items = await expectEnhancedLikeStatements(server, client, linked.companyId, name, latest, 24);
    expect(items.length).toBeGreaterThan(0);
  });

  it.each(Object.keys(SIDES) as ReportName[])('%s equals the aging worked out from the served records', async (name) => {
    const side = SIDES[name];
    const days = records[side.types.documents].map((d) => String(d.issueDate).slice(0, 10)).sort();
    const paidDays = records[side.types.payments].map((p) => String(p.date).slice(0, 10)).sort();
    let credits = 0;
    for (const [reportDate, periods, length] of [
      [days.at(-1)!, 4, 30],
      [days[Math.floor(days.length / 2)], 6, 14],
      [paidDays[0] ?? days[0], 3, 7],
      ['2099-12-31', 12, 365],
    ] as [string, number, number][]) {
      const res = await http(
        server,
        'GET',
        `/companies/${linked.companyId}/reports/${name}?reportDate=${reportDate}&numberOfPeriods=${periods}&periodLengthDays=${length}`,
        { auth: client.auth },
      );
      expect(res.status, res.text).toBe(200);
      const want = expected(records, name, reportDate, periods, length);
      expect(served(name, res.body)).toEqual(want);
      for (const cells of want.values()) for (const period of cells) credits += period[1] !== 0 ? 1 : 0;
    }
    // The credits are in the comparison: some report shows credit left over, or taken off before its use.
    expect(credits).toBeGreaterThan(0);
  });

  it.each(Object.keys(SIDES) as ReportName[])(
    "%s as at today equals the platform's own figures: each counterparty's amounts due and credit remaining",
    async (name) => {
      const res = await http(server, 'GET', `/companies/${linked.companyId}/reports/${name}?reportDate=2099-12-31&numberOfPeriods=1`, {
        auth: client.auth,
      });
      expect(res.status, res.text).toBe(200);
      const report = new Map<string, number[]>();
      for (const [key, periods] of served(name, res.body))
        if (periods[0][0] !== 0 || periods[0][1] !== 0) report.set(key, periods[0].slice(0, 2));
      expect(report).toEqual(platformOwn(records, name));
    },
  );

  // Last, as it changes the fake's books: Xero reads changes since the last sync: the next versions are the previous ones with the changes merged in (their
  // unchanged records carried over in the store, never read by the connector), and each gets its own digest
  // (src/reports/aged/aged-digest.ts). The report on them equals the aging of the records served after the change.
  if (platformKey === 'gbol')
    it('after an incremental sync (a payment, a deleted invoice), equals the aging of what is served then', async () => {
      const before = await http(server, 'GET', `/companies/${linked.companyId}/reports/agedDebtor?reportDate=2099-12-31`, {
        auth: client.auth,
      });
      expect(before.status).toBe(200);
      const unpaid = xeroSales.filter((i) => i.Status === 'AUTHORISED' && i.AmountPaid === 0);
      expect(unpaid.length).toBeGreaterThan(12);
      xeroTenant.createPayment({
        Invoice: { InvoiceID: unpaid[10].InvoiceID },
        Account: { Code: '090' },
        Amount: 33.3,
        Date: '2025-11-02',
      });
      xeroTenant.remove('Invoices', unpaid[11].InvoiceID, 'DELETED');
      for (const type of ['invoices', 'payments']) expect((await queue(type)).status, type).toBe('Complete');
      const now: AgedRecords = {};
      for (const type of ALL_TYPES) now[type] = (await allRecords(type)).filter((r: Data) => r.metadata?.isDeleted !== true);
      expect(now.invoices.some((r: Data) => r.id === unpaid[11].InvoiceID)).toBe(false);
      expect(now.invoices.find((r: Data) => r.id === unpaid[10].InvoiceID)?.status).toBe('PartiallyPaid');
      // The new versions have their digests.
      const versions = await server.store.db
        .selectFrom('data_sets')
        .select('current_version')
        .where('company_id', '=', linked.companyId)
        .where('data_type', 'in', ['invoices', 'payments'])
        .execute();
      const digested = await server.store.db
        .selectFrom('version_digests')
        .select('version')
        .where(
          'version',
          'in',
          versions.map((v) => Number(v.current_version)),
        )
        .where('chunk', '=', 0)
        .execute();
      expect(digested.length).toBe(2);
      // Built from changes: the versions share the unchanged records' documents with the ones before (not dense).
      const built = await server.store.db
        .selectFrom('record_versions')
        .select('dense')
        .where(
          'version',
          'in',
          versions.map((v) => Number(v.current_version)),
        )
        .execute();
      expect(built.map((v) => Number(v.dense))).toEqual([0, 0]);
      const days = now.invoices.map((d: Data) => String(d.issueDate).slice(0, 10)).sort();
      for (const [reportDate, periods, length] of [
        [days.at(-1)!, 4, 30],
        ['2025-11-01', 3, 10],
        ['2099-12-31', 12, 365],
      ] as [string, number, number][]) {
        const res = await http(
          server,
          'GET',
          `/companies/${linked.companyId}/reports/agedDebtor?reportDate=${reportDate}&numberOfPeriods=${periods}&periodLengthDays=${length}`,
          { auth: client.auth },
        );
        expect(res.status, res.text).toBe(200);
        expect(served('agedDebtor', res.body)).toEqual(expected(now, 'agedDebtor', reportDate, periods, length));
      }
      expect(xero.violations).toEqual([]);
    });
});
