import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setEnv } from '../helpers/env.js';
import { connectionCalls } from '../helpers/connection-calls.js';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs, type LinkedCompany } from '../helpers/sandbox.js';
import { allRecords, uploadFiles } from '../helpers/uploads.js';
import { startXeroFake, type XeroFake } from '../fakes/xero/xero-fake.js';
import { ofxStatement } from '../helpers/ofx-statement.js';

/*
 * Data integrity over a real platform's books (the Xero fake, every answer checked against Xero's own contract) and a
 * bank statement file for the same company, on both stores: the test writes bank lines for some of the payments and
 * bank transactions Xero holds (the same amount, a few days later), and a line of the bank's own. Exactly the
 * movements with a written line are matched, each to its line; the rest, and the bank's line, are not.
 */

type Data = Record<string, any>;

let server: TestServer;
let client: TestClient;
let xero: XeroFake;
let restoreEnv: () => void;
let linked: LinkedCompany;
/** The movements (payment or bank transaction ids) the statement shows, with their line's FITID. */
const written = new Map<string, string>();
const NOT_WRITTEN: string[] = [];

beforeAll(async () => {
  xero = await startXeroFake();
  const tenant = xero.addTenant('Kauri Trading');
  const sales = tenant.seedInvoices(8, 'ACCREC');
  const purchases = tenant.seedInvoices(4, 'ACCPAY');
  // Distinct amounts, days apart: each line can be only its own movement's.
  sales.forEach((invoice, i) => {
    const payment = tenant.createPayment({
      Invoice: { InvoiceID: invoice.InvoiceID },
      Account: { Code: '090' },
      Amount: 10 + i * 7.31,
      Date: `2025-10-${String(1 + i * 3).padStart(2, '0')}`,
      Reference: `Receipt ${invoice.InvoiceNumber}`,
    });
    if (i < 5) written.set(payment.PaymentID, `S${i}`);
    else NOT_WRITTEN.push(payment.PaymentID);
  });
  purchases.forEach((bill, i) => {
    const payment = tenant.createPayment({
      Invoice: { InvoiceID: bill.InvoiceID },
      Account: { Code: '090' },
      Amount: 20 + i * 5.17,
      Date: `2025-11-${String(2 + i * 4).padStart(2, '0')}`,
    });
    if (i < 2) written.set(payment.PaymentID, `P${i}`);
    else NOT_WRITTEN.push(payment.PaymentID);
  });
  const rent = tenant.addBankTransaction('SPEND', {
    bankCode: '090',
    day: '2025-11-20',
    reference: 'Office rent November',
    lines: [{ Description: 'Rent', UnitAmount: 950, AccountCode: '429' }],
  });
  written.set(rent.BankTransactionID, 'R0');
  restoreEnv = setEnv(xero.env());
  server = await startTestServer();
  client = await server.newClient({ name: 'Data integrity over Xero' });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await xero?.close();
  restoreEnv?.();
});

const addDays = (d: string, n: number) => new Date(Date.parse(`${d.slice(0, 10)}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

describe('data integrity over Xero and a bank statement file', () => {
  const { linkByFollowing } = connectionCalls(
    () => server,
    () => client,
    () => linked,
  );

  it('matches the payments and bank transactions whose bank lines were written, and nothing else', async () => {
    linked = await companyWithConnection(server, client, 'gbol');
    await fetchOnFirstLinkOnly(server, client, linked.companyId, ['accountTransactions', 'bankAccounts']);
    await linkByFollowing('Xero');
    const status = await waitForSyncs(server, client, linked.companyId, 120_000);
    expect(status.accountTransactions?.currentStatus).toBe('Complete');
    const moves = await allRecords(server, client.auth, linked, 'accountTransactions');
    const accounts = await allRecords(server, client.auth, linked, 'bankAccounts');
    const bank = accounts.find((a) => a.nominalCode === '090')!;
    expect(bank.accountNumber).toBeTruthy();
    // Every payment and the bank transaction, through the bank account, money in positive.
    expect(moves.map((m) => m.id).sort()).toEqual([...written.keys(), ...NOT_WRITTEN].sort());
    for (const m of moves) expect(m.bankAccountRef.id).toBe(bank.id);

    // The statement: a line for each written movement, 0 to 2 days later, and one the bank adds.
    const lines = moves
      .filter((m) => written.has(m.id))
      .map((m, i) => ({
        id: written.get(m.id)!,
        date: addDays(m.date, i % 3),
        amount: m.totalAmount as number,
        name: `BANK ${written.get(m.id)}`,
      }));
    lines.push({ id: 'FEE', date: '2025-11-25', amount: -3.33, name: 'ACCOUNT FEE' });
    const statement = await http(server, 'POST', `/companies/${linked.companyId}/connections`, {
      auth: client.auth,
      body: { platformKey: 'fstm' },
    });
    expect(statement.status, statement.text).toBe(200);
    const upload = await uploadFiles(server, client.auth, linked.companyId, statement.body.id, [
      { name: 'statement.ofx', bytes: ofxStatement(lines, { currency: bank.currency, number: bank.accountNumber }) },
    ]);
    expect(upload.status, upload.text).toBe(200);
    await waitForSyncs(server, client, linked.companyId);
    const bankLines = await allRecords(
      server,
      client.auth,
      { companyId: linked.companyId, connectionId: statement.body.id },
      'banking-transactions',
    );
    const lineId = (name: string) => bankLines.find((t) => t.description === name)!.id;

    const details: Data[] = [];
    for (let page = 1; ; page++) {
      const res = await http(
        server,
        'GET',
        `/data/companies/${linked.companyId}/assess/dataTypes/accountTransactions/dataIntegrity/details?page=${page}&pageSize=100`,
        { auth: client.auth },
      );
      expect(res.status, res.text).toBe(200);
      details.push(...res.body.results);
      if (details.length >= res.body.totalResults) break;
    }
    for (const m of moves) {
      const detail = details.find((d) => d.id === `${bank.id}_${m.id}`)!;
      const fitid = written.get(m.id);
      expect(
        detail.matches.map((x: Data) => x.id),
        m.id,
      ).toEqual(fitid ? [lineId(`BANK ${fitid}`)] : []);
    }
    const bankSide = await http(
      server,
      'GET',
      `/data/companies/${linked.companyId}/assess/dataTypes/banking-transactions/dataIntegrity/summaries`,
      {
        auth: client.auth,
      },
    );
    expect(bankSide.body.summaries[0].byCount).toMatchObject({ matched: written.size, unmatched: 1, total: written.size + 1 });
    const accountsSide = await http(
      server,
      'GET',
      `/data/companies/${linked.companyId}/assess/dataTypes/bankAccounts/dataIntegrity/details`,
      {
        auth: client.auth,
      },
    );
    expect(accountsSide.body.results.find((a: Data) => a.id === bank.id).matches).toHaveLength(1);
  }, 180_000);
});
