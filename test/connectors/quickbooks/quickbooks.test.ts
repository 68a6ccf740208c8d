import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatAccounting } from '@codat/accounting';
import { setEnv } from '../../helpers/env.js';
import { connectionCalls } from '../../helpers/connection-calls.js';
import { readsEveryClaimedType } from '../../helpers/claimed-reads.js';
import { exercised } from '../../helpers/capabilities.js';
import { ownServerLinked, withDeclared } from '../../helpers/declared.js';
import { QUICKBOOKS } from '../../../src/connectors/quickbooks/platform.js';
import { startTestServer, type TestClient, type TestServer } from '../../helpers/test-server.js';
import { companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs, type LinkedCompany } from '../../helpers/sandbox.js';
import { createConsumer, expectEnvelope, startReceiver, verifySigned } from '../../webhooks/receiver.js';
import { startQboFake, type QboFake } from '../../fakes/quickbooks/qbo-fake.js';
import type { QboEntity, QboRealm } from '../../fakes/quickbooks/qbo-realm.js';
import { changedSince, withinCdcWindow } from '../../../src/connectors/quickbooks/qbo-sources.js';

/**
 * QuickBooks Online (`qhyg`) against the stateful fake of test/fakes/quickbooks/, whose every answer is checked
 * against Intuit's own XSD: link by following the linkUrl, a full sync of every type, incremental syncs by change
 * data capture (and a full read once it no longer reaches back), write-back with SyncToken conflicts, a 429 storm,
 * an expired token, a revoked consent, and reads through Codat's accounting SDK.
 */
const TYPES = [
  'invoices',
  'bills',
  'customers',
  'suppliers',
  'chartOfAccounts',
  'payments',
  'billPayments',
  'creditNotes',
  'billCreditNotes',
  'journalEntries',
  'items',
  'taxRates',
  'company',
  'balanceSheet',
  'profitAndLoss',
  'bankAccounts',
  'accountTransactions',
];

let fake: QboFake;
let realm: QboRealm;
let server: TestServer;
let client: TestClient;
let linked: LinkedCompany;
let invoices: QboEntity[];
let creditPayment: QboEntity;
let creditMemo: QboEntity;
let creditBillPayment: QboEntity;
let vendorCredit: QboEntity;
let restoreEnv: () => void;

beforeAll(async () => {
  fake = await startQboFake();
  // A second company the consent does not cover: its data must never appear.
  fake.addRealm('Other Company').seedInvoices(3);
  realm = fake.addRealm('Severn Trading');
  fake.consent = { grant: true, realm };
  // More than one page of 1,000: an incremental read must not read them again.
  invoices = realm.seedInvoices(1050);
  realm.seedBills(30);
  realm.addPayment(invoices[0].Id, invoices[0].TotalAmt);
  realm.addPayment(invoices[1].Id, 10);
  realm.voidInvoice(invoices[2].Id);
  realm.addBillPayment(realm.all('Bill')[0].Id, 50);
  // Credit applied on a payment: 720 of invoice settled by a credit memo of 100 and 620 in money; a 108 bill by a
  // vendor credit of 30 and a cheque of 78.
  creditMemo = realm.addCreditMemo(invoices[3].CustomerRef.value, 100);
  creditPayment = realm.addPaymentWithCredit(invoices[3].Id, creditMemo.Id, 100, round2(invoices[3].TotalAmt - 100));
  const bill = realm.all('Bill')[1];
  vendorCredit = realm.addVendorCredit(bill.VendorRef.value, 30);
  creditBillPayment = realm.addBillPaymentWithCredit(bill.Id, vendorCredit.Id, 30, round2(bill.TotalAmt - 30));
  realm.addJournalEntry('6000', '1000', 250, 'Accrued advertising');
  realm.edit('Customer', realm.all('Customer')[3].Id, { Active: false });
  restoreEnv = setEnv(fake.env());
  server = await startTestServer();
  client = await server.newClient();
}, 60_000);

afterAll(async () => {
  await server?.close();
  await fake?.close();
  restoreEnv?.();
});

const round2 = (n: number) => Math.round(n * 100) / 100;
const {
  api,
  queue,
  queueThroughStorm,
  queueThroughServerErrors,
  allRecords,
  linkByFollowing,
  push: write,
} = connectionCalls(
  () => server,
  () => client,
  () => linked,
);
/** A write: POST creates, PUT updates the record with `recordId`. */
const push = (method: 'POST' | 'PUT', dataType: string, record: unknown, recordId?: string) =>
  write(dataType, record, method === 'PUT' ? { recordId: recordId! } : undefined);

describe('QuickBooks Online', () => {
  it('is offered once configured, with the data types it reads', async () => {
    const res = await api('GET', '/integrations/qhyg');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ key: 'qhyg', name: 'QuickBooks Online', sourceType: 'Accounting', enabled: true });
  });

  it("links by following the linkUrl through Intuit's consent, with no page to click through, and syncs every type", async () => {
    linked = await companyWithConnection(server, client, 'qhyg');
    await fetchOnFirstLinkOnly(server, client, linked.companyId, TYPES);
    await linkByFollowing('QuickBooks Online');
    const status = await waitForSyncs(server, client, linked.companyId, 120_000);
    for (const type of TYPES) expect(status[type]?.currentStatus, `${type}: ${JSON.stringify(status[type])}`).toBe('Complete');
    // Only the consented company was asked, always with the pinned minor version.
    const calls = fake.apiRequests();
    expect(calls.every((r) => r.realmId === realm.realmId && r.minorVersion === '73')).toBe(true);
    // 1,050 invoices: two pages of a query, ordered by Id.
    const invoiceQueries = calls.filter((r) => r.query?.includes('FROM Invoice'));
    expect(invoiceQueries.map((r) => r.query)).toEqual([
      'SELECT * FROM Invoice ORDERBY Id STARTPOSITION 1 MAXRESULTS 1000',
      // The second page starts 100 records before the end of the first (see the test of deletions during a read).
      'SELECT * FROM Invoice ORDERBY Id STARTPOSITION 901 MAXRESULTS 1000',
    ]);
    expect(fake.peaks.get(realm.realmId)!.inFlight).toBeLessThanOrEqual(10);
    expect(fake.violations).toEqual([]);
  });

  it('serves every data type it claims to Get, valid against its own OpenAPI document', async () => {
    await readsEveryClaimedType(server, client, linked, 'qhyg');
  });

  it('maps invoices, bills, names, accounts, payments, journals, items, tax codes and the company to Codat shapes', async () => {
    const synced = await allRecords('invoices');
    expect(synced).toHaveLength(1050);
    const byId = new Map(synced.map((r) => [r.id, r]));
    const open = realm.table('Invoice').get(invoices[5].Id)!;
    expect(byId.get(open.Id)).toMatchObject({
      invoiceNumber: open.DocNumber,
      customerRef: { id: open.CustomerRef.value, companyName: open.CustomerRef.name },
      issueDate: `${open.TxnDate}T00:00:00`,
      dueDate: `${open.DueDate}T00:00:00`,
      currency: 'GBP',
      subTotal: open.TotalAmt - open.TxnTaxDetail.TotalTax,
      totalTaxAmount: open.TxnTaxDetail.TotalTax,
      totalAmount: open.TotalAmt,
      amountDue: open.Balance,
      status: 'Submitted',
      note: 'Order 1005',
      metadata: { isDeleted: false },
    });
    expect(byId.get(open.Id)!.lineItems[0]).toMatchObject({
      quantity: 1,
      unitAmount: 150,
      itemRef: { id: realm.item('CONSULT').Id, name: 'Consulting' },
      taxRateRef: { id: realm.taxCode('20.0% S').Id },
    });
    // Timestamps come in Pacific time and are served in UTC.
    expect(byId.get(open.Id)!.sourceModifiedDate).toBe(
      new Date(Date.parse(open.MetaData.LastUpdatedTime)).toISOString().replace('.000', ''),
    );
    expect(byId.get(invoices[0].Id)).toMatchObject({ status: 'Paid', amountDue: 0 });
    expect(byId.get(invoices[0].Id)!.paymentAllocations).toHaveLength(1);
    expect(byId.get(invoices[1].Id)).toMatchObject({ status: 'PartiallyPaid' });
    expect(byId.get(invoices[2].Id)).toMatchObject({ status: 'Void', totalAmount: 0 });

    const bills = await allRecords('bills');
    expect(bills).toHaveLength(30);
    expect(bills.find((b) => b.id === realm.all('Bill')[0].Id)).toMatchObject({ status: 'PartiallyPaid', taxAmount: expect.any(Number) });
    expect(bills[0].lineItems[0]).toMatchObject({ accountRef: { id: realm.account('6000').Id, name: 'Advertising' } });

    const customers = await allRecords('customers');
    expect(customers).toHaveLength(105);
    expect(customers.filter((c) => c.status === 'Archived')).toHaveLength(1);
    expect(customers[0]).toMatchObject({ defaultCurrency: 'GBP', addresses: [{ type: 'Billing', city: 'Bristol' }, { type: 'Delivery' }] });
    expect(await allRecords('suppliers')).toHaveLength(3);

    const accounts = await allRecords('chartOfAccounts');
    expect(accounts.find((a) => a.nominalCode === '1000')).toMatchObject({
      type: 'Asset',
      isBankAccount: true,
      fullyQualifiedCategory: 'Asset.Bank.Checking',
      status: 'Active',
    });
    expect(accounts.find((a) => a.nominalCode === '4000')).toMatchObject({ type: 'Income' });
    expect(accounts.find((a) => a.nominalCode === '1020')).toMatchObject({ status: 'Archived' });

    const payments = await allRecords('payments');
    expect(payments).toHaveLength(3);
    expect(payments.find((p) => p.totalAmount === 10)).toMatchObject({
      customerRef: { id: invoices[1].CustomerRef.value },
      lines: [{ amount: 10, links: [{ type: 'Invoice', id: invoices[1].Id, amount: -10 }] }],
    });
    expect((await allRecords('billPayments')).find((p) => p.totalAmount === 50)).toMatchObject({ lines: [{ links: [{ type: 'Bill' }] }] });
    const [journal] = await allRecords('journalEntries');
    expect(journal.journalLines.map((l: { netAmount: number }) => l.netAmount)).toEqual([250, -250]);

    const items = await allRecords('items');
    expect(items.find((i) => i.code === 'CONSULT')).toMatchObject({ type: 'Service', isInvoiceItem: true, isBillItem: false });
    const rates = await allRecords('taxRates');
    expect(rates.find((r) => r.id === realm.taxCode('20.0% S').Id)).toMatchObject({
      name: '20.0% S',
      effectiveTaxRate: 20,
      components: [{ name: '20.0% S (sales)', rate: 20, isCompound: false }],
    });
    const company = await api('GET', `/companies/${linked.companyId}/data/info`);
    expect(company.body).toMatchObject({ companyName: 'Severn Trading', baseCurrency: 'GBP', accountingPlatformRef: realm.realmId });
  });

  it("reads QuickBooks' own monthly reports; the balance sheets balance and a month's income is its invoices", async () => {
    const asked = fake.apiRequests((r) => r.kind === 'report');
    expect(asked.map((r) => r.path.split('/').at(-1)).sort()).toEqual(['BalanceSheet', 'ProfitAndLoss']);
    for (const r of asked)
      expect(r.report).toMatchObject({
        start_date: expect.stringMatching(/^\d{4}-\d\d-01$/),
        end_date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
        summarize_column_by: 'Month',
        accounting_method: 'Accrual',
      });
    const financials = async (statement: string) => {
      const res = await api('GET', `/companies/${linked.companyId}/data/financials/${statement}?periodLength=1&periodsToCompare=24`);
      expect(res.status, res.text).toBe(200);
      return res.body.reports as Record<string, any>[];
    };
    const cents = (n: number) => Math.round(n * 100);
    const sheets = await financials('balanceSheet');
    expect(sheets).toHaveLength(24);
    for (const sheet of sheets) {
      // Assets less liabilities is equity, the profit to date ("Net Income", no account) included.
      expect(cents(sheet.assets.value) - cents(sheet.liabilities.value), sheet.date).toBe(cents(sheet.equity.value));
      expect(cents(sheet.netAssets), sheet.date).toBe(cents(sheet.equity.value));
    }
    const latest = sheets.reduce((a, b) => (a.date > b.date ? a : b));
    expect(latest.assets.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ accountId: realm.account('1100').Id, name: 'Debtors' })]),
    );
    expect(latest.liabilities.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ accountId: realm.account('2100').Id, name: 'Creditors' })]),
    );
    expect(latest.equity.items).toEqual([expect.objectContaining({ name: 'Net Income' })]);
    expect(latest.equity.items[0].accountId).toBeUndefined();

    const pls = await financials('profitAndLoss');
    expect(pls).toHaveLength(24);
    for (const pl of pls)
      expect(cents(pl.netProfit), pl.fromDate).toBe(cents(pl.grossProfit) - cents(pl.expenses.value) + cents(pl.netOtherIncome));
    // Sales of a month are the invoices dated in it, before tax.
    const october = pls.find((p) => p.fromDate === '2025-10-01T00:00:00')!;
    expect(october).toMatchObject({ toDate: '2025-10-31T00:00:00' });
    const sales = realm
      .all('Invoice')
      .filter((i) => i.TxnDate.startsWith('2025-10'))
      .reduce((sum, i) => sum + cents(i.TotalAmt) - cents(i.TxnTaxDetail.TotalTax), 0);
    expect(sales).toBeGreaterThan(0);
    expect(cents(october.income.value)).toBe(sales);
    expect(october.income.items).toEqual([expect.objectContaining({ accountId: realm.account('4100').Id, name: 'Services' })]);
    // The month's bills are advertising (an expense), not cost of sales.
    const advertising = realm
      .all('Bill')
      .filter((b) => b.TxnDate.startsWith('2025-10'))
      .reduce((sum, b) => sum + cents(b.TotalAmt) - cents(b.TxnTaxDetail.TotalTax), 0);
    expect(advertising).toBeGreaterThan(0);
    expect(october.expenses.items).toEqual([
      expect.objectContaining({ accountId: realm.account('6000').Id, name: 'Advertising', value: advertising / 100 }),
    ]);
    expect(october.costOfSales.value).toBe(0);
    expect(fake.violations).toEqual([]);
  });

  it('maps a credit memo or vendor credit applied on a payment as a negative line with a positive credit-note link', async () => {
    const sum = (p: Record<string, any>) => round2((p.lines as { amount: number }[]).reduce((total, l) => total + l.amount, 0));
    const invoice = realm.table('Invoice').get(invoices[3].Id)!;
    const payment = (await allRecords('payments')).find((p) => p.id === creditPayment.Id)!;
    expect(payment).toMatchObject({
      totalAmount: round2(invoice.TotalAmt - 100),
      lines: [
        { amount: invoice.TotalAmt, links: [{ type: 'Invoice', id: invoice.Id, amount: -invoice.TotalAmt }] },
        { amount: -100, links: [{ type: 'CreditNote', id: creditMemo.Id, amount: 100 }] },
      ],
    });
    // Codat's rule: a payment's lines add up to its total.
    expect(sum(payment)).toBe(payment.totalAmount);
    expect((await allRecords('invoices')).find((r) => r.id === invoice.Id)).toMatchObject({ status: 'Paid', amountDue: 0 });

    const bill = realm.all('Bill')[1];
    const billPayment = (await allRecords('billPayments')).find((p) => p.id === creditBillPayment.Id)!;
    expect(billPayment).toMatchObject({
      totalAmount: round2(bill.TotalAmt - 30),
      lines: [
        { amount: bill.TotalAmt, links: [{ type: 'Bill', id: bill.Id, amount: -bill.TotalAmt }] },
        { amount: -30, links: [{ type: 'CreditNote', id: vendorCredit.Id, amount: 30 }] },
      ],
    });
    expect(sum(billPayment)).toBe(billPayment.totalAmount);
    // The credits themselves: used in full, naming the payment that used them (its amount is on the payment's link).
    expect((await allRecords('creditNotes')).find((c) => c.id === creditMemo.Id)).toMatchObject({
      creditNoteNumber: creditMemo.DocNumber,
      customerRef: { id: creditMemo.CustomerRef.value },
      totalAmount: 100,
      remainingCredit: 0,
      status: 'Paid',
      issueDate: `${creditMemo.TxnDate}T00:00:00`,
      paymentAllocations: [{ payment: { id: creditPayment.Id } }],
      lineItems: [expect.objectContaining({ description: 'Goodwill credit', subTotal: 100 })],
    });
    expect((await allRecords('billCreditNotes')).find((c) => c.id === vendorCredit.Id)).toMatchObject({
      billCreditNoteNumber: vendorCredit.DocNumber,
      supplierRef: { id: vendorCredit.VendorRef.value },
      totalAmount: 30,
      remainingCredit: 0,
      status: 'Paid',
      lineItems: [expect.objectContaining({ description: 'Refund for a cancelled campaign', subTotal: 30 })],
    });
    // The ordinary payments' lines still add up too.
    for (const p of [...(await allRecords('payments')), ...(await allRecords('billPayments'))]) expect(sum(p)).toBe(p.totalAmount);
  });

  it('reads through the official SDK', async () => {
    const sdk = new CodatAccounting({ serverURL: server.url, security: { authHeader: client.auth } });
    const page = await sdk.invoices.list({ companyId: linked.companyId, page: 1, pageSize: 10, query: 'status=PartiallyPaid' });
    expect(page.statusCode).toBe(200);
    expect(page.invoices?.results?.map((i) => i.id)).toEqual([invoices[1].Id]);
    const customers = await sdk.customers.list({ companyId: linked.companyId, page: 1, pageSize: 5 });
    expect(customers.customers?.totalResults).toBe(105);
  });

  it('syncs incrementally by change data capture: a change and a deletion, without reading unchanged pages again', async () => {
    realm.edit('Invoice', invoices[7].Id, { CustomerMemo: { value: 'Changed in QuickBooks' } });
    realm.remove('Invoice', invoices[8].Id);
    const before = fake.apiRequests().length;
    const op = await queue('invoices');
    expect(op.status, JSON.stringify(op)).toBe('Complete');
    const reads = fake.apiRequests().slice(before);
    // One change data capture request, not the two pages of 1,050 invoices.
    expect(
      reads.map((r) => r.kind),
      JSON.stringify(reads),
    ).toEqual(['cdc']);
    expect(reads[0].changedSince).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const records = await allRecords('invoices');
    expect(records.find((r) => r.id === invoices[7].Id)?.note).toBe('Changed in QuickBooks');
    expect(records.find((r) => r.id === invoices[8].Id)?.metadata).toEqual({ isDeleted: true });
    expect(fake.violations).toEqual([]);
  });

  it('reads in full once change data capture no longer reaches back to the cursor', async () => {
    // Unit: by this server's clock, a cursor about 30 days old is not asked of change data capture at all.
    expect(withinCdcWindow(new Date(Date.now() - 40 * 86_400_000).toISOString())).toBe(false);
    expect(withinCdcWindow(new Date(Date.now() - 29.99 * 86_400_000).toISOString())).toBe(false);
    expect(withinCdcWindow(new Date(Date.now() - 86_400_000).toISOString())).toBe(true);
    expect(changedSince('2025-11-01T10:00:00Z')).toBe('2025-11-01T09:59:00Z');

    // End to end: a month passes at QuickBooks without a sync; it refuses the old changedSince, and the read is full.
    realm.advance(31 * 86_400_000);
    realm.edit('Invoice', invoices[9].Id, { CustomerMemo: { value: 'Changed a month later' } });
    const before = fake.apiRequests().length;
    const op = await queue('invoices');
    expect(op.status, JSON.stringify(op)).toBe('Complete');
    const reads = fake.apiRequests().slice(before);
    expect(reads.map((r) => `${r.kind} ${r.status}`)).toEqual(['cdc 400', 'query 200', 'query 200']);
    const records = await allRecords('invoices');
    expect(records.find((r) => r.id === invoices[9].Id)?.note).toBe('Changed a month later');
    expect(records.filter((r) => !r.metadata.isDeleted)).toHaveLength(1049);
    // And the cursor of that full read lets the next sync use change data capture again.
    const next = fake.apiRequests().length;
    expect((await queue('invoices')).status).toBe('Complete');
    expect(
      fake
        .apiRequests()
        .slice(next)
        .map((r) => r.kind),
    ).toEqual(['cdc']);
    expect(fake.violations).toEqual([]);
  });

  it('loses no record when records on a page already read are deleted while the next page is read', async () => {
    /** A full read (the cursor is made too old) during which, before the second page, `count` records of the first are deleted. */
    async function readWhileDeleting(count: number) {
      realm.advance(31 * 86_400_000);
      const deleted: string[] = [];
      fake.beforeQuery = (r, query) => {
        const start = Number(/FROM Invoice .*STARTPOSITION (\d+)/.exec(query)?.[1] ?? 1);
        if (start === 1 || deleted.length > 0) return;
        // A user deletes invoices in the middle of the first page, pulling every later invoice forward.
        const firstPage = r
          .all('Invoice')
          .sort((a, b) => Number(a.Id) - Number(b.Id))
          .slice(0, 1000);
        for (const x of firstPage.slice(100, 100 + count)) {
          r.remove('Invoice', x.Id);
          deleted.push(x.Id);
        }
      };
      const before = fake.apiRequests().length;
      try {
        const op = await queue('invoices');
        expect(op.status, JSON.stringify(op)).toBe('Complete');
      } finally {
        fake.beforeQuery = undefined;
      }
      expect(deleted).toHaveLength(count);
      const queries = fake
        .apiRequests()
        .slice(before)
        .filter((r) => r.kind === 'query')
        .map((r) => Number(/STARTPOSITION (\d+)/.exec(r.query!)![1]));
      const liveIds = async () =>
        (await allRecords('invoices'))
          .filter((r) => !r.metadata.isDeleted)
          .map((r) => r.id)
          .sort();
      const inQuickBooks = realm
        .all('Invoice')
        .map((x) => x.Id)
        .sort();
      // Every invoice QuickBooks still has is served: none was pushed across a page boundary unread. (Those deleted
      // after they were read are still served, as they were when read.)
      expect(await liveIds()).toEqual([...inQuickBooks, ...deleted].sort());
      // The next sync, by change data capture, has the deletions.
      expect((await queue('invoices')).status).toBe('Complete');
      expect(await liveIds()).toEqual(inQuickBooks);
      return queries;
    }
    // Fewer deletions than the pages overlap: the second page still reaches back to what the first read.
    expect(await readWhileDeleting(10)).toEqual([1, 901]);
    // More: the second page holds nothing read already (a gap may be behind it), so the read steps back to check.
    expect(await readWhileDeleting(150)).toEqual([1, 901, 1]);
    expect(fake.violations).toEqual([]);
  });

  it('writes an invoice back, once for its requestid; it is in QuickBooks and in the next sync', async () => {
    const customer = (await allRecords('customers'))[0];
    const op = await push('POST', 'invoices', {
      customerRef: { id: customer.id },
      issueDate: '2025-11-20T00:00:00',
      dueDate: '2025-12-20T00:00:00',
      currency: 'GBP',
      status: 'Submitted',
      note: 'Written by Ledgerport',
      lineItems: [
        {
          description: 'Two hours',
          quantity: 2,
          unitAmount: 150,
          itemRef: { id: realm.item('CONSULT').Id },
          taxRateRef: { id: realm.taxCode('20.0% S').Id },
        },
      ],
      totalAmount: 360,
      totalTaxAmount: 60,
      amountDue: 360,
    });
    expect(op.status, JSON.stringify(op)).toBe('Success');
    const id = op.changes?.[0]?.recordRef?.id;
    expect(id, JSON.stringify(op)).toBeTypeOf('string');
    expect(realm.table('Invoice').get(id)).toMatchObject({ TotalAmt: 360, Balance: 360, TxnTaxDetail: { TotalTax: 60 } });
    const writes = fake.apiRequests((r) => r.kind === 'write');
    expect(writes).toHaveLength(1);
    expect(writes[0].requestId).toBeTruthy();
    await waitForSyncs(server, client, linked.companyId);
    expect((await queue('invoices')).status).toBe('Complete');
    expect((await allRecords('invoices')).find((r) => r.id === id)).toMatchObject({
      totalAmount: 360,
      status: 'Submitted',
      note: 'Written by Ledgerport',
    });
    expect(fake.violations).toEqual([]);
    exercised('qhyg', 'invoices', 'Post');
  });

  it('refuses an update made on a stale SyncToken with a message saying to read the record again', async () => {
    const target = realm.table('Invoice').get(invoices[10].Id)!;
    const current = (await allRecords('invoices')).find((r) => r.id === target.Id)!;
    // A user edits the invoice in QuickBooks between the connector's read of its SyncToken and its write.
    fake.afterRead = (r, entity, id) => {
      if (entity === 'Invoice' && id === target.Id) r.edit('Invoice', id, { CustomerMemo: { value: 'Edited by someone else' } });
      fake.afterRead = undefined;
    };
    const { id: _id, modifiedDate: _m, sourceModifiedDate: _s, metadata: _md, ...record } = current;
    const op = await push('PUT', 'invoices', { ...record, note: 'Our change' }, target.Id);
    expect(op.status, JSON.stringify(op)).toBe('Failed');
    expect(op.errorMessage).toMatch(/changed in QuickBooks Online since it was read; read it again/);
    expect(realm.table('Invoice').get(target.Id)!.CustomerMemo.value).toBe('Edited by someone else');
    // Without the interference the same update goes through on the current SyncToken.
    const retried = await push('PUT', 'invoices', { ...record, note: 'Our change' }, target.Id);
    expect(retried.status, JSON.stringify(retried)).toBe('Success');
    expect(realm.table('Invoice').get(target.Id)!.CustomerMemo.value).toBe('Our change');
    expect(fake.violations).toEqual([]);
    exercised('qhyg', 'invoices', 'Put');
  });

  it('updates a customer without un-archiving it or overwriting its company name', async () => {
    const target = realm.all('Customer').find((c) => c.Active === false)!;
    realm.edit('Customer', target.Id, { CompanyName: 'Harbour Plumbing Holdings Ltd' });
    const served = (await allRecords('customers')).find((c) => c.id === target.Id)!;
    expect(served.status).toBe('Archived');
    const { id: _id, modifiedDate: _m, sourceModifiedDate: _s, metadata: _md, ...record } = served;
    // A status that says nothing of being archived (Codat's Unknown) leaves it as QuickBooks has it.
    const op = await push('PUT', 'customers', { ...record, customerName: 'Harbour Plumbing (Bristol)', status: 'Unknown' }, target.Id);
    expect(op.status, JSON.stringify(op)).toBe('Success');
    const after = realm.table('Customer').get(target.Id)!;
    expect(after).toMatchObject({ DisplayName: 'Harbour Plumbing (Bristol)', CompanyName: 'Harbour Plumbing Holdings Ltd', Active: false });
    // Saying Active does un-archive it.
    const reactivated = await push(
      'PUT',
      'customers',
      { ...record, customerName: 'Harbour Plumbing (Bristol)', status: 'Active' },
      target.Id,
    );
    expect(reactivated.status, JSON.stringify(reactivated)).toBe('Success');
    expect(realm.table('Customer').get(target.Id)!.Active).toBe(true);
    expect(fake.violations).toEqual([]);
    exercised('qhyg', 'customers', 'Put');
  });

  it('creates a customer, and creates and updates a bill; QuickBooks holds each and the next sync shows it', async () => {
    const created = await push('POST', 'customers', {
      customerName: 'Ledgerport Trading Ltd',
      status: 'Active',
      emailAddress: 'ap@example.com',
    });
    expect(created.status, JSON.stringify(created)).toBe('Success');
    const customerId = created.changes?.[0]?.recordRef?.id;
    expect(realm.table('Customer').get(customerId)).toMatchObject({
      DisplayName: 'Ledgerport Trading Ltd',
      CompanyName: 'Ledgerport Trading Ltd',
      PrimaryEmailAddr: { Address: 'ap@example.com' },
    });
    expect((await allRecords('customers')).find((c) => c.id === customerId)).toMatchObject({
      customerName: 'Ledgerport Trading Ltd',
      emailAddress: 'ap@example.com',
    });
    exercised('qhyg', 'customers', 'Post');

    const supplier = (await allRecords('suppliers'))[0];
    const bill = {
      supplierRef: { id: supplier.id },
      issueDate: '2025-11-20T00:00:00',
      dueDate: '2025-12-20T00:00:00',
      currency: 'GBP',
      status: 'Open',
      note: 'Written by Ledgerport',
      lineItems: [
        {
          description: 'Adverts',
          quantity: 1,
          unitAmount: 250,
          accountRef: { id: realm.account('6000').Id },
          taxRateRef: { id: realm.taxCode('20.0% S').Id },
        },
      ],
      subTotal: 250,
      taxAmount: 50,
      totalAmount: 300,
      amountDue: 300,
    };
    const made = await push('POST', 'bills', bill);
    expect(made.status, JSON.stringify(made)).toBe('Success');
    const billId = made.changes?.[0]?.recordRef?.id;
    expect(realm.table('Bill').get(billId)).toMatchObject({ VendorRef: { value: supplier.id }, PrivateNote: 'Written by Ledgerport' });
    expect((await allRecords('bills')).find((b) => b.id === billId)).toMatchObject({
      supplierRef: { id: supplier.id },
      note: 'Written by Ledgerport',
    });
    exercised('qhyg', 'bills', 'Post');

    const changed = await push('PUT', 'bills', { ...bill, note: 'Changed by Ledgerport' }, billId);
    expect(changed.status, JSON.stringify(changed)).toBe('Success');
    expect(realm.table('Bill').get(billId)).toMatchObject({ PrivateNote: 'Changed by Ledgerport' });
    expect((await allRecords('bills')).find((b) => b.id === billId)).toMatchObject({ note: 'Changed by Ledgerport' });
    exercised('qhyg', 'bills', 'Put');
    expect(fake.violations).toEqual([]);
  });

  it('retries a 5xx within a read; a QuickBooks still failing ends the sync FetchError and keeps the connection Linked', async () => {
    await queueThroughServerErrors(fake, 'customers', /^\/(query|cdc)/, QUICKBOOKS.transport.retry.attempts);
    expect(fake.violations).toEqual([]);
  });

  it('waits out a storm of 429s and completes the sync later, without failing', async () => {
    // More 429s than a read waits out: the sync goes back to the queue and finishes on a later run.
    fake.inject({ status: 429, count: 8, retryAfterSeconds: 1, path: /^\/(query|cdc)/ });
    await queueThroughStorm(fake, 'customers', 8);
    expect(fake.violations).toEqual([]);
  });

  it('reads its declaration when it runs: a changed minor version, page size and cursor are what QuickBooks is asked', async () => {
    // Linked to the same company from a server whose syncs read where the declaration is changed.
    const { server: own, calls } = await ownServerLinked('qhyg', ['invoices'], (calls) => calls.linkByFollowing('QuickBooks Online'));
    try {
      const since = (from: number) => fake.apiRequests().slice(from);

      // No cursor declared, 400 to a page, minor version 75 (the fake's environment names the version too: unset here,
      // so the declared one counts): a full read by query, in pages of 400.
      const pinned = process.env.QBO_MINOR_VERSION;
      delete process.env.QBO_MINOR_VERSION;
      let from = fake.apiRequests().length;
      await withDeclared(
        QUICKBOOKS,
        { 'transport.apiVersion.value': '75', 'transport.paging.pageSize': 400, 'dataTypes.invoices.cursor': 'none' },
        async () => expect((await calls.queue('invoices')).status).toBe('Complete'),
      );
      const queries = since(from).filter((r) => r.query?.includes('FROM Invoice'));
      expect(queries[0]?.query).toBe('SELECT * FROM Invoice ORDERBY Id STARTPOSITION 1 MAXRESULTS 400');
      expect(queries.length).toBeGreaterThan(1);
      expect(since(from).every((r) => r.minorVersion === '75' && r.kind !== 'cdc')).toBe(true);
      process.env.QBO_MINOR_VERSION = pinned;

      // The minor version's environment variable overrides the declared one.
      const restore = setEnv({ QBO_MINOR_VERSION: '74' });
      try {
        from = fake.apiRequests().length;
        expect((await calls.queue('invoices')).status).toBe('Complete');
        expect(since(from).every((r) => r.minorVersion === '74')).toBe(true);
      } finally {
        restore();
      }
      // Declared again as it is: the read in full above handed on a cursor, so the next is change data capture.
      from = fake.apiRequests().length;
      expect((await calls.queue('invoices')).status).toBe('Complete');
      expect(since(from).map((r) => [r.kind, r.minorVersion])).toEqual([['cdc', '73']]);
      expect(fake.violations).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it("reads each page the declared overlap into the one before: QuickBooks is asked each page's STARTPOSITION accordingly", async () => {
    const { server: own, calls } = await ownServerLinked('qhyg', ['invoices'], (calls) => calls.linkByFollowing('QuickBooks Online'));
    try {
      const starts = async (overlap: number) => {
        const from = fake.apiRequests().length;
        const changes = { 'transport.paging.pageSize': 40, 'transport.paging.overlap': overlap, 'dataTypes.invoices.cursor': 'none' };
        await withDeclared(QUICKBOOKS, changes, async () => expect((await calls.queue('invoices')).status).toBe('Complete'));
        return fake
          .apiRequests()
          .slice(from)
          .filter((r) => r.query?.includes('FROM Invoice'))
          .map((r) => Number(/STARTPOSITION (\d+)/.exec(r.query ?? '')?.[1]));
      };
      const wide = await starts(10);
      expect(wide.slice(0, 3)).toEqual([1, 31, 61]);
      const narrow = await starts(1);
      expect(narrow.slice(0, 3)).toEqual([1, 40, 79]);
      expect(fake.violations).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('catches an answer that breaks the contract (TotalAmt as a string)', async () => {
    fake.tamper = (path, body) => {
      for (const invoice of body.QueryResponse?.Invoice ?? []) invoice.TotalAmt = String(invoice.TotalAmt);
      for (const invoice of body.CDCResponse?.[0]?.QueryResponse?.[0]?.Invoice ?? []) invoice.TotalAmt = String(invoice.TotalAmt);
    };
    try {
      realm.edit('Invoice', invoices[11].Id, { CustomerMemo: { value: 'Tampered' } });
      await queue('invoices');
      expect(fake.violations.length).toBeGreaterThan(0);
      expect(fake.violations[0]).toMatch(/TotalAmt.*must be number/s);
    } finally {
      fake.tamper = undefined;
      fake.violations.length = 0;
    }
  });

  it('refreshes an expired token and carries on; a revoked consent turns the connection Deauthorized, with an event', async () => {
    fake.expireTokens();
    const refreshesBefore = fake.grants.filter((g) => g.type === 'refresh_token').length;
    expect((await queue('chartOfAccounts')).status).toBe('Complete');
    expect(fake.grants.filter((g) => g.type === 'refresh_token').length).toBe(refreshesBefore + 1);

    const receiver = await startReceiver();
    try {
      const consumer = await createConsumer(server, client, { url: receiver.url, eventTypes: ['connection.disconnected'] });
      fake.revokeConsents();
      const op = await queue('taxRates');
      expect(op.status).toBe('AuthError');
      const connection = (await api('GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`)).body;
      expect(connection.status).toBe('Deauthorized');
      const [delivery] = await receiver.waitFor(1);
      const payload = expectEnvelope(verifySigned(consumer.secret, delivery), 'connection.disconnected');
      expect(payload.connection).toMatchObject({ id: linked.connectionId, status: 'Deauthorized' });
      expect(JSON.stringify(connection)).not.toMatch(/access|refresh/i);
    } finally {
      await receiver.close();
    }
    expect(fake.violations).toEqual([]);
  });

  it('links even when the company name cannot be read (Intuit refuses the companyinfo call)', async () => {
    const second = await companyWithConnection(server, client, 'qhyg');
    const connection = (await api('GET', `/companies/${second.companyId}/connections/${second.connectionId}`)).body;
    const before = fake.apiRequests().length;
    fake.inject({ status: 401, count: 1, path: /^\/companyinfo\// });
    const end = await fetch(connection.linkUrl, { redirect: 'follow' });
    expect(end.status).toBe(200);
    expect(await end.text()).toContain('QuickBooks Online is now connected');
    expect(fake.apiRequests().slice(before)[0]).toMatchObject({ path: expect.stringContaining('/companyinfo/'), status: 401 });
    const after = (await api('GET', `/companies/${second.companyId}/connections/${second.connectionId}`)).body;
    expect(after.status).toBe('Linked');
  });

  it("revokes the connection's refresh token at Intuit, as JSON, when the connection is deleted", async () => {
    const second = await companyWithConnection(server, client, 'qhyg');
    const connection = (await api('GET', `/companies/${second.companyId}/connections/${second.connectionId}`)).body;
    expect((await fetch(connection.linkUrl, { redirect: 'follow' })).status).toBe(200);
    const refreshToken = fake.lastRefreshToken();
    const res = await api('DELETE', `/companies/${second.companyId}/connections/${second.connectionId}`);
    expect(res.status, res.text).toBeLessThan(300);
    for (let i = 0; i < 100 && !fake.revoked.includes(refreshToken); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.revoked).toContain(refreshToken);
  });
});
