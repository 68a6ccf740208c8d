import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatAccounting } from '@codat/accounting';
import { setEnv } from '../../helpers/env.js';
import { connectionCalls } from '../../helpers/connection-calls.js';
import { readsEveryClaimedType } from '../../helpers/claimed-reads.js';
import { exercised } from '../../helpers/capabilities.js';
import { ownServerLinked, withDeclared } from '../../helpers/declared.js';
import { XERO } from '../../../src/connectors/xero/platform.js';
import { EVERYTHING_SINCE } from '../../../src/connectors/xero/xero-api.js';
import { startTestServer, type TestClient, type TestServer } from '../../helpers/test-server.js';
import { companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs, type LinkedCompany } from '../../helpers/sandbox.js';
import { createConsumer, expectEnvelope, startReceiver, verifySigned } from '../../webhooks/receiver.js';
import { startXeroFake, type XeroFake } from '../../fakes/xero/xero-fake.js';
import type { XeroTenant } from '../../fakes/xero/xero-tenant.js';

/**
 * Xero (`gbol`) against the stateful fake of test/fakes/xero/, whose every answer is checked against Xero's own
 * OpenAPI documents: link by following the linkUrl, a full sync of every type, incremental syncs that read only
 * what changed, write-back, a revoked consent, a 429 storm, and reads through Codat's accounting SDK.
 */
const TYPES = [
  'invoices',
  'bills',
  'creditNotes',
  'billCreditNotes',
  'customers',
  'suppliers',
  'payments',
  'billPayments',
  'chartOfAccounts',
  'bankAccounts',
  'items',
  'taxRates',
  'trackingCategories',
  'company',
  'journalEntries',
  'directCosts',
  'directIncomes',
  'accountTransactions',
  'balanceSheet',
  'profitAndLoss',
];

let fake: XeroFake;
let tenant: XeroTenant;
let server: TestServer;
let client: TestClient;
let linked: LinkedCompany;
let restoreEnv: () => void;

beforeAll(async () => {
  fake = await startXeroFake();
  tenant = fake.addTenant('Harbour Trading');
  tenant.seedInvoices(250, 'ACCREC');
  tenant.seedInvoices(30, 'ACCPAY');
  for (let i = 0; i < 12; i++) {
    const day = new Date(Date.UTC(2026, i, 15)).toISOString().slice(0, 10);
    tenant.addBankTransaction('SPEND', {
      bankCode: '090',
      day,
      reference: `Rent ${i + 1}`,
      lines: [{ Description: 'Rent', UnitAmount: 1200, AccountCode: '429', TaxType: 'INPUT2' }],
    });
    tenant.addBankTransaction('RECEIVE', {
      bankCode: '090',
      day,
      reference: `Interest ${i + 1}`,
      lines: [{ Description: 'Interest', UnitAmount: 12.5, AccountCode: '260', TaxType: 'NONE' }],
    });
  }
  // A scaled-down minute keeps the limits real while the tests stay quick.
  fake.limits = { concurrent: 5, perWindow: 60, perDay: 5000, windowMs: 2_000 };
  restoreEnv = setEnv(fake.env());
  server = await startTestServer();
  client = await server.newClient();
}, 60_000);

afterAll(async () => {
  await server?.close();
  await fake?.close();
  restoreEnv?.();
});

const { api, queue, queueThroughStorm, queueThroughServerErrors, allRecords, linkByFollowing, push } = connectionCalls(
  () => server,
  () => client,
  () => linked,
);

/** The data types the seeded organisation has no record of until a later test adds them. */
const CREDITS_AND_PAYMENTS = ['creditNotes', 'billCreditNotes', 'payments', 'billPayments'];

describe('Xero', () => {
  it('is offered once configured, with the data types it reads', async () => {
    const res = await api('GET', '/integrations/gbol');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ key: 'gbol', name: 'Xero', sourceType: 'Accounting', enabled: true });
  });

  it('links by following the linkUrl through Xero consent, with no page to click through, and syncs every type', async () => {
    linked = await companyWithConnection(server, client, 'gbol');
    await fetchOnFirstLinkOnly(server, client, linked.companyId, TYPES);
    await linkByFollowing('Xero');
    const status = await waitForSyncs(server, client, linked.companyId, 120_000);
    for (const type of TYPES) expect(status[type]?.currentStatus, `${type}: ${JSON.stringify(status[type])}`).toBe('Complete');
    expect(fake.violations).toEqual([]);
  });

  it('serves every data type it claims to Get, valid against its own OpenAPI document', async () => {
    // The organisation holds no credit note or payment yet: "reads credit notes and payments of both sides" proves those.
    await readsEveryClaimedType(server, client, linked, 'gbol', { except: CREDITS_AND_PAYMENTS });
  });

  it('maps invoices, bills, contacts and accounts to Codat shapes', async () => {
    const invoices = await allRecords('invoices');
    expect(invoices).toHaveLength(250);
    const xeroInvoice = [...tenant.collection('Invoices').values()].find((i) => i.Type === 'ACCREC')!;
    const invoice = invoices.find((i) => i.id === xeroInvoice.InvoiceID)!;
    expect(invoice).toMatchObject({
      invoiceNumber: xeroInvoice.InvoiceNumber,
      customerRef: { id: xeroInvoice.Contact.ContactID, companyName: xeroInvoice.Contact.Name },
      totalAmount: xeroInvoice.Total,
      totalTaxAmount: xeroInvoice.TotalTax,
      amountDue: xeroInvoice.AmountDue,
      status: 'Submitted',
      currency: 'NZD',
      metadata: { isDeleted: false },
    });
    expect(invoice.issueDate).toMatch(/^\d{4}-\d\d-\d\dT00:00:00$/);
    expect(invoice.lineItems[0]).toMatchObject({ accountRef: { id: tenant.account('200').AccountID }, taxRateRef: { id: 'OUTPUT2' } });
    expect(await allRecords('bills')).toHaveLength(30);
    const customers = await allRecords('customers');
    expect(customers.length).toBe(25);
    expect(customers[0]).toMatchObject({ status: 'Active', defaultCurrency: 'NZD' });
    const accounts = await allRecords('chartOfAccounts');
    expect(accounts.find((a) => a.nominalCode === '090')).toMatchObject({
      type: 'Asset',
      isBankAccount: true,
      fullyQualifiedCategory: 'Asset.Bank',
    });
    expect(await allRecords('bankAccounts')).toHaveLength(2);
    const company = await api('GET', `/companies/${linked.companyId}/data/info`);
    expect(company.body).toMatchObject({ companyName: 'Harbour Trading', baseCurrency: 'NZD' });
  });

  it("reads the ledger, bank transactions and Xero's own reports; the balance sheets balance", async () => {
    const journals = await allRecords('journalEntries');
    expect(journals).toHaveLength(tenant.ledger.journals.length);
    const first = journals.find((j) => j.id === tenant.ledger.journals[0].JournalID)!;
    expect(first.recordRef).toMatchObject({ dataType: 'invoices' });
    expect(first.journalLines.reduce((sum: number, l: { netAmount: number }) => sum + Math.round(l.netAmount * 100), 0)).toBe(0);
    const costs = await allRecords('directCosts');
    expect(costs, JSON.stringify(costs.slice(0, 3))).toHaveLength(12);
    expect(costs[0]).toMatchObject({ subTotal: 1200, taxAmount: 180, totalAmount: 1380 });
    expect(await allRecords('directIncomes')).toHaveLength(12);

    const financials = async (statement: string) => {
      const res = await api('GET', `/companies/${linked.companyId}/data/financials/${statement}?periodLength=1&periodsToCompare=24`);
      expect(res.status, res.text).toBe(200);
      return res.body.reports as Record<string, any>[];
    };
    const sheets = await financials('balanceSheet');
    expect(sheets).toHaveLength(24);
    for (const sheet of sheets) {
      // Assets less liabilities is equity, current earnings included: Xero's books balance, and so must the mapping.
      expect(Math.round(sheet.netAssets * 100), sheet.date).toBe(Math.round(sheet.equity.value * 100));
      expect(Math.round((sheet.assets.value - sheet.liabilities.value) * 100)).toBe(Math.round(sheet.netAssets * 100));
    }
    const pls = await financials('profitAndLoss');
    const march = pls.find((p) => p.fromDate === '2026-03-01T00:00:00')!;
    expect(march).toMatchObject({ fromDate: '2026-03-01T00:00:00', toDate: '2026-03-31T00:00:00', otherIncome: { value: 12.5 } });
    expect(march.expenses.items).toEqual([expect.objectContaining({ name: 'General Expenses', value: 1200 })]);
    expect(march.netProfit).toBe(Math.round((march.grossProfit - march.expenses.value + march.netOtherIncome) * 100) / 100);
    // Sales of a month are the approved invoices dated in it, before tax.
    const sales = [...tenant.collection('Invoices').values()]
      .filter((i) => i.Type === 'ACCREC' && i.DateString.startsWith('2025-10'))
      .reduce((sum, i) => sum + i.SubTotal, 0);
    const october = pls.find((p) => p.fromDate === '2025-10-01T00:00:00')!;
    expect(october.income.value).toBeCloseTo(sales, 2);
  });

  it('reads through the official SDK', async () => {
    const sdk = new CodatAccounting({ serverURL: server.url, security: { authHeader: client.auth } });
    const page = await sdk.invoices.list({ companyId: linked.companyId, page: 1, pageSize: 10, query: 'status=Submitted' });
    expect(page.statusCode).toBe(200);
    expect(page.invoices?.results?.length).toBe(10);
    const customers = await sdk.customers.list({ companyId: linked.companyId, page: 1, pageSize: 5 });
    expect(customers.customers?.totalResults).toBe(25);
  });

  it('syncs incrementally: a change and a deletion, without reading unchanged pages again', async () => {
    const invoices = [...tenant.collection('Invoices').values()].filter((i) => i.Type === 'ACCREC');
    tenant.update('Invoices', invoices[5].InvoiceID, { Reference: 'Changed in Xero' });
    tenant.remove('Invoices', invoices[6].InvoiceID, 'DELETED');
    const before = fake.apiRequests().length;
    const op = await queue('invoices');
    expect(op.status, JSON.stringify(op)).toBe('Complete');
    const reads = fake.apiRequests().slice(before);
    // One page of changes, asked for with If-Modified-Since: not the three pages of 250 invoices.
    expect(reads, JSON.stringify(reads)).toHaveLength(1);
    expect(reads[0].ifModifiedSince).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    const records = await allRecords('invoices');
    expect(records.find((r) => r.id === invoices[5].InvoiceID)?.note).toBe('Changed in Xero');
    expect(records.find((r) => r.id === invoices[6].InvoiceID)?.metadata).toEqual({ isDeleted: true });
    // The deleted invoice left the books with a reversing journal: the next journal read asks only past the last.
    const journalsBefore = fake.apiRequests().length;
    expect((await queue('journalEntries')).status).toBe('Complete');
    const journalReads = fake.apiRequests().slice(journalsBefore);
    expect(journalReads).toHaveLength(1);
    expect(new URLSearchParams(journalReads[0].query).get('offset')).toBe(String(tenant.ledger.journals.length - 1));
    expect(await allRecords('journalEntries')).toHaveLength(tenant.ledger.journals.length);
    expect(fake.violations).toEqual([]);
  });

  it('writes an invoice and a payment back; both are in Xero and in the next sync', async () => {
    const customer = (await allRecords('customers'))[0];
    const sales = (await allRecords('chartOfAccounts')).find((a) => a.nominalCode === '200');
    const op = await push('invoices', {
      customerRef: { id: customer.id },
      issueDate: '2025-11-20T00:00:00',
      dueDate: '2025-12-20T00:00:00',
      currency: 'NZD',
      status: 'Submitted',
      lineItems: [
        { description: 'Written by Ledgerport', quantity: 2, unitAmount: 50, accountRef: { id: sales!.id }, taxRateRef: { id: 'OUTPUT2' } },
      ],
      totalAmount: 115,
      totalTaxAmount: 15,
      amountDue: 115,
    });
    expect(op.status, JSON.stringify(op)).toBe('Success');
    const id = op.changes?.[0]?.recordRef?.id;
    expect(id, JSON.stringify(op)).toBeTypeOf('string');
    const inXero = tenant.collection('Invoices').get(id);
    expect(inXero).toMatchObject({ Type: 'ACCREC', Status: 'AUTHORISED', Total: 115 });
    // The next sync has it (the push queues one; wait for it).
    await waitForSyncs(server, client, linked.companyId);
    const synced = (await allRecords('invoices')).find((r) => r.id === id);
    expect(synced).toMatchObject({ totalAmount: 115, status: 'Submitted' });
    exercised('gbol', 'invoices', 'Post');

    // A payment of part of it: Xero records it against the invoice, which the next sync shows part paid.
    const bank = (await allRecords('chartOfAccounts')).find((a) => a.nominalCode === '090');
    const paid = await push('payments', {
      accountRef: { id: bank!.id },
      date: '2025-11-21T00:00:00',
      totalAmount: 40,
      currency: 'NZD',
      lines: [{ amount: 40, links: [{ type: 'Invoice', id, amount: -40 }] }],
    });
    expect(paid.status, JSON.stringify(paid)).toBe('Success');
    expect(tenant.collection('Invoices').get(id)).toMatchObject({ AmountPaid: 40, AmountDue: 75 });
    await waitForSyncs(server, client, linked.companyId);
    expect((await queue('invoices')).status).toBe('Complete');
    expect((await allRecords('invoices')).find((r) => r.id === id)).toMatchObject({ amountDue: 75, status: 'PartiallyPaid' });
    expect(fake.violations).toEqual([]);
    exercised('gbol', 'payments', 'Post');
  });

  it('updates an invoice, and creates and updates a customer and a supplier; Xero holds each and the next sync shows it', async () => {
    // An approved, unpaid invoice of the seeded organisation, sent back with a new reference (Codat's note).
    const target = [...tenant.collection('Invoices').values()].find(
      (i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && i.AmountPaid === 0,
    )!;
    const read = (await allRecords('invoices')).find((r) => r.id === target.InvoiceID)!;
    const updated = await push(
      'invoices',
      {
        customerRef: read.customerRef,
        issueDate: read.issueDate,
        dueDate: read.dueDate,
        currency: read.currency,
        status: read.status,
        note: 'Updated by Ledgerport',
        totalAmount: read.totalAmount,
        totalTaxAmount: read.totalTaxAmount,
        amountDue: read.amountDue,
        lineItems: read.lineItems.map((l: Record<string, unknown>) => ({
          description: l.description,
          quantity: l.quantity,
          unitAmount: l.unitAmount,
          accountRef: l.accountRef,
          taxRateRef: l.taxRateRef,
        })),
      },
      { recordId: target.InvoiceID },
    );
    expect(updated.status, JSON.stringify(updated)).toBe('Success');
    expect(tenant.collection('Invoices').get(target.InvoiceID)).toMatchObject({ Reference: 'Updated by Ledgerport', Total: target.Total });
    expect((await allRecords('invoices')).find((r) => r.id === target.InvoiceID)).toMatchObject({
      note: 'Updated by Ledgerport',
      totalAmount: read.totalAmount,
    });
    exercised('gbol', 'invoices', 'Put');

    for (const [dataType, nameField] of [
      ['customers', 'customerName'],
      ['suppliers', 'supplierName'],
    ] as const) {
      const name = `Ledgerport ${dataType} Ltd`;
      const created = await push(dataType, { [nameField]: name, status: 'Active', emailAddress: 'first@example.com' });
      expect(created.status, JSON.stringify(created)).toBe('Success');
      const id = created.changes?.[0]?.recordRef?.id;
      expect(tenant.collection('Contacts').get(id)).toMatchObject({ Name: name, EmailAddress: 'first@example.com' });
      expect((await allRecords(dataType)).find((r) => r.id === id)).toMatchObject({ [nameField]: name, emailAddress: 'first@example.com' });
      exercised('gbol', dataType, 'Post');

      const changed = await push(dataType, { [nameField]: name, status: 'Active', emailAddress: 'second@example.com' }, { recordId: id });
      expect(changed.status, JSON.stringify(changed)).toBe('Success');
      expect(tenant.collection('Contacts').get(id)).toMatchObject({ Name: name, EmailAddress: 'second@example.com' });
      expect((await allRecords(dataType)).find((r) => r.id === id)).toMatchObject({ emailAddress: 'second@example.com' });
      exercised('gbol', dataType, 'Put');
    }
    expect(fake.violations).toEqual([]);
  });

  it('makes a write once when its answer is lost and it is sent again (the same Idempotency-Key)', async () => {
    const customer = (await allRecords('customers'))[1];
    const before = tenant.collection('Invoices').size;
    // Xero makes the invoice, then its answer is lost: the retry carries the same key and is answered the first result.
    fake.inject({ status: 503, count: 1, path: /^\/Invoices$/, method: 'PUT', afterProcessing: true });
    const op = await push('invoices', {
      customerRef: { id: customer.id },
      issueDate: '2025-11-22T00:00:00',
      status: 'Draft',
      lineItems: [
        {
          description: 'Sent twice, made once',
          quantity: 1,
          unitAmount: 10,
          taxRateRef: { id: 'NONE' },
          accountRef: { id: tenant.account('200').AccountID },
        },
      ],
      totalAmount: 10,
      totalTaxAmount: 0,
      amountDue: 10,
    });
    expect(op.status, JSON.stringify(op)).toBe('Success');
    expect(tenant.collection('Invoices').size).toBe(before + 1);
    const writes = fake.apiRequests((r) => r.method === 'PUT' && r.path.endsWith('/Invoices'));
    expect(writes.slice(-2).map((r) => r.status)).toEqual([503, 200]);
  });

  it('reads credit notes and payments of both sides', async () => {
    // Sales invoices the tests above leave as seeded: not the first (read field by field), approved, nothing paid.
    const invoices = [...tenant.collection('Invoices').values()];
    const [credited, paid] = invoices
      .filter((i) => i.Type === 'ACCREC')
      .slice(1)
      .filter((i) => i.Status === 'AUTHORISED' && i.AmountPaid === 0 && i.AmountCredited === 0);
    const bill = invoices.find((i) => i.Type === 'ACCPAY' && i.Status === 'AUTHORISED')!;

    // Goods returned by a customer, part of it set against what they owe; the rest is theirs to use later.
    const salesCredit = tenant.createCreditNote({
      Type: 'ACCRECCREDIT',
      Contact: { ContactID: credited.Contact.ContactID },
      Date: '2025-11-10',
      Status: 'AUTHORISED',
      LineAmountTypes: 'Exclusive',
      Reference: 'Returned goods',
      LineItems: [{ Description: 'Returned consulting hours', Quantity: 2, UnitAmount: 40, AccountCode: '200', TaxType: 'OUTPUT2' }],
    });
    tenant.allocateCreditNote(salesCredit.CreditNoteID, { Invoice: { InvoiceID: credited.InvoiceID }, Amount: 50, Date: '2025-11-11' });
    // A supplier's credit for faulty supplies, under the supplier's own number, not yet set against any bill.
    const purchaseCredit = tenant.createCreditNote({
      Type: 'ACCPAYCREDIT',
      CreditNoteNumber: 'SUP-CN-77',
      Contact: { ContactID: bill.Contact.ContactID },
      Date: '2025-11-10',
      Status: 'AUTHORISED',
      LineAmountTypes: 'Exclusive',
      LineItems: [{ Description: 'Faulty supplies', Quantity: 1, UnitAmount: 60, AccountCode: '429', TaxType: 'INPUT2' }],
    });
    const salesPayment = tenant.createPayment({
      Invoice: { InvoiceID: paid.InvoiceID },
      Account: { Code: '090' },
      Amount: 30,
      Date: '2025-11-12',
      Reference: 'Part payment',
    });
    const billPayment = tenant.createPayment({
      Invoice: { InvoiceID: bill.InvoiceID },
      Account: { Code: '090' },
      Amount: bill.AmountDue,
      Date: '2025-11-13',
      Reference: 'Bill paid in full',
    });
    // Xero's own arithmetic, which the reads below must carry through.
    expect(salesCredit).toMatchObject({ Total: 92, RemainingCredit: 42, Status: 'AUTHORISED' });
    expect(purchaseCredit).toMatchObject({ Total: 69, RemainingCredit: 69 });
    expect(bill.Status).toBe('PAID');

    for (const type of [...CREDITS_AND_PAYMENTS, 'invoices', 'bills', 'journalEntries'])
      expect((await queue(type)).status, type).toBe('Complete');
    await readsEveryClaimedType(server, client, linked, 'gbol', { only: CREDITS_AND_PAYMENTS });

    const contactRef = (document: Record<string, any>) => ({ id: document.Contact.ContactID });
    const creditNotes = await allRecords('creditNotes');
    expect(creditNotes.map((c) => c.id)).toEqual([salesCredit.CreditNoteID]);
    expect(creditNotes[0]).toMatchObject({
      creditNoteNumber: salesCredit.CreditNoteNumber,
      customerRef: { ...contactRef(credited), companyName: credited.Contact.Name },
      issueDate: '2025-11-10T00:00:00',
      subTotal: 80,
      totalTaxAmount: 12,
      totalAmount: 92,
      remainingCredit: 42,
      // Approved with some of it allocated: Xero keeps it AUTHORISED until none is left.
      status: 'PartiallyPaid',
      currency: 'NZD',
      note: 'Returned goods',
    });
    expect(creditNotes[0].lineItems).toEqual([
      expect.objectContaining({
        quantity: 2,
        unitAmount: 40,
        subTotal: 80,
        taxAmount: 12,
        totalAmount: 92,
        accountRef: { id: tenant.account('200').AccountID },
        taxRateRef: expect.objectContaining({ id: 'OUTPUT2' }),
      }),
    ]);
    const billCreditNotes = await allRecords('billCreditNotes');
    expect(billCreditNotes.map((c) => c.id)).toEqual([purchaseCredit.CreditNoteID]);
    expect(billCreditNotes[0]).toMatchObject({
      billCreditNoteNumber: 'SUP-CN-77',
      supplierRef: { ...contactRef(bill), supplierName: bill.Contact.Name },
      subTotal: 60,
      totalTaxAmount: 9,
      totalAmount: 69,
      remainingCredit: 69,
      status: 'Submitted',
    });

    // Each payment is on its own side only, and names the document it settles and by how much.
    const payments = await allRecords('payments');
    const billPayments = await allRecords('billPayments');
    expect(billPayments.map((p) => p.id)).toEqual([billPayment.PaymentID]);
    expect(payments.map((p) => p.id)).toContain(salesPayment.PaymentID);
    expect(payments.map((p) => p.id)).not.toContain(billPayment.PaymentID);
    expect(payments.find((p) => p.id === salesPayment.PaymentID)).toMatchObject({
      customerRef: { ...contactRef(paid), companyName: paid.Contact.Name },
      accountRef: { id: tenant.account('090').AccountID },
      totalAmount: 30,
      currency: 'NZD',
      date: '2025-11-12T00:00:00',
      reference: 'Part payment',
      lines: [{ amount: 30, links: [{ type: 'Invoice', id: paid.InvoiceID, amount: -30 }] }],
    });
    expect(billPayments[0]).toMatchObject({
      supplierRef: { ...contactRef(bill), supplierName: bill.Contact.Name },
      accountRef: { id: tenant.account('090').AccountID },
      totalAmount: bill.Total,
      date: '2025-11-13T00:00:00',
      reference: 'Bill paid in full',
      lines: [{ amount: bill.Total, links: [{ type: 'Bill', id: bill.InvoiceID, amount: -bill.Total }] }],
    });

    // The documents they settle show it: credit and payment lower what is owed.
    const readInvoices = await allRecords('invoices');
    expect(readInvoices.find((i) => i.id === credited.InvoiceID)).toMatchObject({
      amountDue: Math.round((credited.Total - 50) * 100) / 100,
      status: 'PartiallyPaid',
    });
    expect(readInvoices.find((i) => i.id === paid.InvoiceID)?.paymentAllocations).toEqual([
      expect.objectContaining({ payment: expect.objectContaining({ id: salesPayment.PaymentID, totalAmount: 30 }) }),
    ]);
    expect((await allRecords('bills')).find((b) => b.id === bill.InvoiceID)).toMatchObject({ amountDue: 0, status: 'Paid' });

    // Both credit notes and both payments reached the books: each has its journal, read as what it came from.
    const journals = await allRecords('journalEntries');
    expect(journals).toHaveLength(tenant.ledger.journals.length);
    const journalOf = (id: string) => journals.find((j) => j.recordRef?.id === id);
    expect(journalOf(salesCredit.CreditNoteID)?.recordRef.dataType).toBe('creditNotes');
    expect(journalOf(purchaseCredit.CreditNoteID)?.recordRef.dataType).toBe('billCreditNotes');
    expect(journalOf(salesPayment.PaymentID)?.recordRef.dataType).toBe('payments');
    expect(journalOf(billPayment.PaymentID)?.recordRef.dataType).toBe('billPayments');
    // A sales credit note lowers what is receivable by its total; a supplier's lowers what is payable.
    const receivable = tenant.account('610').AccountID;
    const payable = tenant.account('800').AccountID;
    const netOn = (id: string, account: string) =>
      journalOf(id)!
        .journalLines.filter((l: { accountRef?: { id: string } }) => l.accountRef?.id === account)
        .reduce((sum: number, l: { netAmount: number }) => sum + l.netAmount, 0);
    expect(netOn(salesCredit.CreditNoteID, receivable)).toBe(-92);
    expect(netOn(purchaseCredit.CreditNoteID, payable)).toBe(69);
    expect(fake.violations).toEqual([]);
  });

  it("catches a fake answer that breaks Xero's contract", async () => {
    fake.tamper = (path, body) => {
      if (path === '/Items') body.Items[0].IsSold = 'yes';
    };
    try {
      await queue('items');
      expect(fake.violations).toEqual([expect.stringMatching(/^Xero Accounting API GET \/Items 200: \/Items\/0\/IsSold must be boolean/)]);
    } finally {
      fake.tamper = undefined;
      fake.violations.length = 0;
    }
  });

  it('ends a journal read whose answer holds no list of journals as FetchError, with what Xero answered', async () => {
    fake.tamper = (path, body) => {
      if (path === '/Journals') body.Journals = { JournalID: 'not a list' };
    };
    try {
      const sync = await queue('journalEntries');
      expect(sync.status, JSON.stringify(sync)).toBe('FetchError');
      expect(JSON.stringify(sync)).toContain('Xero answered /Journals without a list of journals');
      expect((await api('GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`)).body.status).toBe('Linked');
    } finally {
      fake.tamper = undefined;
      fake.violations.length = 0;
    }
  });

  it('retries a 5xx within a read; a Xero still failing ends the sync FetchError and keeps the connection Linked', async () => {
    await queueThroughServerErrors(fake, 'customers', /^\/Contacts/, XERO.transport.retry.attempts);
    expect(fake.violations).toEqual([]);
  });

  it('sends nothing more in the window once X-MinLimit-Remaining is 0, though another app spent those calls: no 429', async () => {
    // Another app has left one call of this window: the connector's next call is answered with none left.
    fake.leaveInWindow(tenant.tenantId, 1);
    const before = fake.apiRequests().length;
    expect((await queue('customers')).status).toBe('Complete');
    expect((await queue('chartOfAccounts')).status).toBe('Complete');
    const calls = fake.apiRequests().slice(before);
    expect(calls.filter((r) => r.status === 429)).toEqual([]);
    const spent = calls.findIndex((r) => r.minLimitRemaining === 0);
    expect(spent).toBeGreaterThanOrEqual(0);
    // The next call waited for the window (2 s here) rather than being refused.
    expect(calls.length).toBeGreaterThan(spent + 1);
    expect(calls[spent + 1].at - calls[spent].at).toBeGreaterThanOrEqual(fake.limits.windowMs - 50);
    expect(fake.violations).toEqual([]);
  });

  it('waits out a storm of 429s and completes the sync later, without failing', async () => {
    // More 429s than a read waits out: the sync goes back to the queue and finishes on a later run.
    fake.inject({ status: 429, count: 8, retryAfterSeconds: 1, path: /^\/Contacts/ });
    await queueThroughStorm(fake, 'customers', 8);
  });

  it('reads its declaration when it runs: a changed page size, cursor, retry count and OAuth scope are what Xero is asked', async () => {
    // Linked to the same organisation from a server whose syncs read where the declaration is changed.
    const { server: own, client: ownClient, calls } = await ownServerLinked('gbol', ['invoices'], (calls) => calls.linkByFollowing('Xero'));
    try {
      const invoiceReads = (from: number) =>
        fake
          .apiRequests()
          .slice(from)
          .filter((r) => r.path.endsWith('/Invoices'));

      // No cursor declared for invoices and 40 to a page: a full read (everything since 1900), in pages of 40.
      let from = fake.apiRequests().length;
      await withDeclared(XERO, { 'transport.paging.pageSize': 40, 'dataTypes.invoices.cursor': 'none' }, async () => {
        expect((await calls.queue('invoices')).status).toBe('Complete');
      });
      const full = invoiceReads(from);
      expect(full.length).toBeGreaterThanOrEqual(Math.ceil(250 / 40));
      expect(full.every((r) => new URLSearchParams(r.query).get('pageSize') === '40' && r.ifModifiedSince === EVERYTHING_SINCE)).toBe(true);
      // Declared again as it is: a read in full handed on no cursor, so the next is in full, 100 to a page, and hands
      // one on; the one after reads what changed since it.
      from = fake.apiRequests().length;
      expect((await calls.queue('invoices')).status).toBe('Complete');
      const again = invoiceReads(from);
      expect(again.every((r) => new URLSearchParams(r.query).get('pageSize') === '100' && r.ifModifiedSince === EVERYTHING_SINCE)).toBe(
        true,
      );
      from = fake.apiRequests().length;
      expect((await calls.queue('invoices')).status).toBe('Complete');
      expect(invoiceReads(from).map((r) => r.ifModifiedSince)).not.toContain(EVERYTHING_SINCE);

      // Two attempts declared: a read gives up after two 500s.
      await withDeclared(XERO, { 'transport.retry.attempts': 2 }, () => calls.queueThroughServerErrors(fake, 'invoices', /^\/Invoices/, 2));

      // No remaining-limit header declared: with one call of the window left (another app spent the rest), the next
      // call is sent anyway and meets Xero's 429 (declared, it waits for the window instead: the test above).
      fake.leaveInWindow(tenant.tenantId, 1);
      from = fake.apiRequests().length;
      await withDeclared(XERO, { 'transport.remainingLimits': undefined }, async () => {
        expect((await calls.queue('customers')).status).toBe('Complete');
        expect((await calls.queue('chartOfAccounts')).status).toBe('Complete');
      });
      expect(
        fake
          .apiRequests()
          .slice(from)
          .filter((r) => r.status === 429).length,
      ).toBeGreaterThan(0);

      // The scope asked on Xero's consent page is the declared one.
      await withDeclared(XERO, { 'oauth2.scope': 'offline_access accounting.contacts' }, async () => {
        const other = await companyWithConnection(own, ownClient, 'gbol');
        const connection = (await calls.api('GET', `/companies/${other.companyId}/connections/${other.connectionId}`)).body;
        let at = new URL(connection.linkUrl);
        for (let hop = 0; hop < 5 && !at.pathname.endsWith('/authorize'); hop++) {
          const answer = await fetch(at, { redirect: 'manual' });
          at = new URL(answer.headers.get('location') ?? '', at);
        }
        expect(at.pathname).toBe('/identity/connect/authorize');
        expect(at.searchParams.get('scope')).toBe('offline_access accounting.contacts');
      });
      expect(fake.violations).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it("asks the pages page 1 counts ahead, within Xero's declared concurrency, only where the declaration names the count", async () => {
    const { server: own, calls } = await ownServerLinked('gbol', ['invoices'], (calls) => calls.linkByFollowing('Xero'));
    try {
      const reads = async (changes: Record<string, unknown>) => {
        fake.peaks.delete(tenant.tenantId);
        const from = fake.apiRequests().length;
        await withDeclared(XERO, { 'transport.paging.pageSize': 25, 'dataTypes.invoices.cursor': 'none', ...changes }, async () => {
          expect((await calls.queue('invoices')).status).toBe('Complete');
        });
        const pages = fake
          .apiRequests()
          .slice(from)
          .filter((r) => r.path.endsWith('/Invoices'))
          .map((r) => Number(new URLSearchParams(r.query).get('page')));
        return { pages: [...pages].sort((a, b) => a - b), peak: fake.peaks.get(tenant.tenantId)?.inFlight };
      };
      const ahead = await reads({});
      expect(ahead.pages.length).toBeGreaterThan(3);
      expect(ahead.peak).toBeGreaterThan(1);
      expect(ahead.peak).toBeLessThanOrEqual(XERO.transport.politeness.maxConcurrent);
      // No count declared: one page after another, the same pages.
      const inTurn = await reads({ 'transport.paging.pageCount': undefined });
      expect(inTurn).toEqual({ pages: ahead.pages, peak: 1 });
      expect(fake.violations).toEqual([]);
    } finally {
      await own.close();
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

      // Linked again through its linkUrl (a new consent), then revoked again: a write is what finds out this time.
      const end = await fetch(connection.linkUrl, { redirect: 'follow' });
      expect(await end.text()).toContain('Xero is now connected');
      expect((await api('GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`)).body.status).toBe('Linked');
      fake.revokeConsents();
      const write = await push('customers', { customerName: 'Written after revocation', status: 'Active' });
      expect(write.status, JSON.stringify(write)).toBe('Failed');
      expect((await api('GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`)).body.status).toBe('Deauthorized');
      const [, again] = await receiver.waitFor(2);
      expect(expectEnvelope(verifySigned(consumer.secret, again), 'connection.disconnected').connection).toMatchObject({
        id: linked.connectionId,
        status: 'Deauthorized',
      });
    } finally {
      await receiver.close();
    }
  });
});
