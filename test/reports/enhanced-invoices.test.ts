import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatLending } from '@codat/lending';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { authorize, companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs } from '../helpers/sandbox.js';
import { plantedStory } from '../helpers/sandbox-story.js';
import { expectErrorBody } from '../helpers/error-body.js';

/*
 * Enhanced invoices over HTTP, on both stores (docs/lending/enhanced-invoices.md), on a Sandbox company whose books and
 * bank tell one story (docs/sandbox-banking-commerce.md). Every invoice comes with its payments as its allocations
 * give them; before a bank is connected no payment has a bank reference; once the Banking Sandbox is, exactly the
 * payments the Sandbox gave a bank line are verified, each by that line, worked out here from the served records
 * alone: the payment's account transaction (the one whose line names it) and the bank line of the same account and
 * amount, 0 to 3 days later, whose description ends with the account transaction's.
 */

type Data = Record<string, any>;

let server: TestServer;
let client: TestClient;
let companyId: string;
let books: { companyId: string; connectionId: string };
const INPUTS = ['invoices', 'payments', 'customers', 'accountTransactions', 'bankAccounts', 'banking-transactions', 'banking-accounts'];

async function report(query = '') {
  const items: Data[] = [];
  let info: Data | undefined;
  for (let page = 1; ; page++) {
    const res = await http(server, 'GET', `/companies/${companyId}/reports/enhancedInvoices?page=${page}&pageSize=500${query}`, {
      auth: client.auth,
    });
    expect(res.status, res.text).toBe(200);
    info = res.body.reportInfo;
    items.push(...res.body.reportItems);
    if (items.length >= res.body.reportInfo.totalResults) return { info: info!, items };
  }
}

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient({ name: 'Enhanced invoices' });
  books = await companyWithConnection(server, client, 'mqjo');
  companyId = books.companyId;
  await fetchOnFirstLinkOnly(server, client, companyId, INPUTS);
  await authorize(server, client, books);
  await waitForSyncs(server, client, companyId);
}, 120_000);
afterAll(() => server?.close());

describe('enhanced invoices', () => {
  it('is 409 until invoices and payments have synced', async () => {
    const empty = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Nothing synced' } });
    const res = await http(server, 'GET', `/companies/${empty.body.id}/reports/enhancedInvoices`, { auth: client.auth });
    expectErrorBody(res, 409, { error: 'DataNotSyncedException: enhancedInvoices needs invoices, payments synced first' });
  });

  it('lists every invoice with its payments, none verified before a bank is connected', async () => {
    const invoices: Data[] = [];
    for (let page = 1; ; page++) {
      const res = await http(server, 'GET', `/companies/${companyId}/data/invoices?page=${page}&pageSize=1000`, { auth: client.auth });
      invoices.push(...res.body.results);
      if (invoices.length >= res.body.totalResults) break;
    }
    const { info, items } = await report();
    expect(info).toMatchObject({ reportName: 'Invoices report', totalResults: invoices.length, companyName: expect.any(String) });
    expect(items.map((i) => i.id).sort()).toEqual(invoices.map((i) => i.id).sort());
    for (const invoice of invoices) {
      const item = items.find((i) => i.id === invoice.id)!;
      expect(item).toMatchObject({
        invoiceNumber: invoice.invoiceNumber,
        status: invoice.status,
        totalAmount: invoice.totalAmount,
        amountDue: invoice.amountDue,
      });
      expect(item.payments.map((p: Data) => [p.id, p.amount])).toEqual(
        (invoice.paymentAllocations ?? []).map((a: Data) => [a.payment.id, a.allocation.totalAmount]),
      );
      for (const p of item.payments) expect(p.bankingTransactionRefs).toEqual([]);
    }
    expect(items.some((i) => i.payments.length > 0)).toBe(true);
  });

  it('verifies exactly the payments the Sandbox gave a bank line, each by that line', async () => {
    const bank = await companyWithConnection(server, client, 'bsbx', companyId);
    await authorize(server, client, bank);
    await waitForSyncs(server, client, companyId);
    const story = await plantedStory(server, client, companyId, { accounting: books.connectionId, banking: bank.connectionId });
    const { moves, bankAccounts } = story;
    // The planted line of each payment, by its account transaction.
    const lineOfPayment = new Map<string, Data>();
    for (const m of moves) {
      const line = story.lineOf.get(m.id);
      if (line) for (const l of m.lines) if (l.recordRef?.dataType === 'payments') lineOfPayment.set(l.recordRef.id, line);
    }
    const { items } = await report();
    let verified = 0;
    let unverified = 0;
    for (const item of items) {
      for (const p of item.payments) {
        const line = lineOfPayment.get(p.id);
        const account = line && bankAccounts.find((a) => a.id === line.accountId);
        expect(p.bankingTransactionRefs, `payment ${p.id}`).toEqual(
          line
            ? [
                {
                  id: line.id,
                  dataConnectionId: bank.connectionId,
                  accountId: line.accountId,
                  accountName: account!.name,
                  date: line.postedDate,
                  description: line.description,
                  amount: line.amount,
                },
              ]
            : [],
        );
        if (line) verified++;
        else unverified++;
      }
    }
    // The Sandbox leaves a tenth of money received off the bank: both kinds are there.
    expect(verified).toBeGreaterThan(20);
    expect(unverified).toBeGreaterThan(0);

    // A query selects invoices as on the invoices list, and the Lending SDK reads the report unchanged.
    const paid = await report(`&query=${encodeURIComponent('status=Paid')}`);
    expect(paid.items.every((i) => i.status === 'Paid')).toBe(true);
    const sdk = new CodatLending({ serverURL: server.url, security: { authHeader: client.auth } });
    const viaSdk = await sdk.accountsReceivable.invoices.listReconciled({ companyId, page: 1, pageSize: 5 });
    expect(viaSdk.statusCode).toBe(200);
    expect(viaSdk.enhancedInvoicesReport?.reportItems).toHaveLength(5);
    expect(viaSdk.enhancedInvoicesReport?.reportInfo?.reportName).toBe('Invoices report');
  });

  it('answers a bad query with the error body', async () => {
    const res = await http(server, 'GET', `/companies/${companyId}/reports/enhancedInvoices?query=${encodeURIComponent('nope=1')}`, {
      auth: client.auth,
    });
    expectErrorBody(res, 400, { validation: true });
  });
});
