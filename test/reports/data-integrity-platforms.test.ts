import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setEnv } from '../helpers/env.js';
import { connectionCalls } from '../helpers/connection-calls.js';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs, type LinkedCompany } from '../helpers/sandbox.js';
import { allRecords, uploadFiles } from '../helpers/uploads.js';
import { startXeroFake, type XeroFake } from '../fakes/xero/xero-fake.js';
import { startQboFake, type QboFake } from '../fakes/quickbooks/qbo-fake.js';
import { ofxStatement } from '../helpers/ofx-statement.js';

/*
 * Data integrity over a real platform's books (the Xero and QuickBooks fakes, every answer checked against the
 * vendor's own contract) and a bank statement file for the same company, on both stores: the test writes bank lines
 * for some of the movements the platform holds (the same amount, a few days later), and a line of the bank's own.
 * Exactly the movements with a written line are matched, each to its line; the rest, and the bank's line, are not.
 */

type Data = Record<string, any>;

let server: TestServer;
let client: TestClient;
let xero: XeroFake;
let qbo: QboFake;
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
  qbo = await startQboFake();
  seedQuickBooks(qbo);
  // Both platforms are configured before the server reads its configuration.
  restoreEnv = setEnv({ ...xero.env(), ...qbo.env() });
  server = await startTestServer();
  client = await server.newClient({ name: 'Data integrity over Xero' });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await xero?.close();
  await qbo?.close();
  restoreEnv?.();
});

const addDays = (d: string, n: number) => new Date(Date.parse(`${d.slice(0, 10)}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/**
 * A statement for the bank account, with a line for each written movement (0 to 2 days later) and one the bank adds;
 * then every movement's matches must be exactly its own line, and the bank's fee none.
 */
async function statementMatchesWrittenMovements(
  linked: LinkedCompany,
  moves: Data[],
  bank: Data,
  written: ReadonlyMap<string, string>,
): Promise<void> {
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
  for (const m of moves.filter((x) => x.bankAccountRef.id === bank.id)) {
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
    { auth: client.auth },
  );
  expect(bankSide.body.summaries[0].byCount).toMatchObject({ matched: written.size, unmatched: 1, total: written.size + 1 });
  const accountsSide = await http(
    server,
    'GET',
    `/data/companies/${linked.companyId}/assess/dataTypes/bankAccounts/dataIntegrity/details`,
    { auth: client.auth },
  );
  expect(accountsSide.body.results.find((a: Data) => a.id === bank.id).matches).toHaveLength(1);
}

/** The company's bank statement file connection. */
async function statementConnection(linked: LinkedCompany): Promise<Data> {
  const res = await http(server, 'GET', `/companies/${linked.companyId}/connections?pageSize=100`, { auth: client.auth });
  expect(res.status, res.text).toBe(200);
  return res.body.results.find((c: Data) => c.platformName !== undefined && c.sourceType === 'Banking');
}

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
    await statementMatchesWrittenMovements(linked, moves, bank, written);
  }, 180_000);
});

/** Account transaction ids the QuickBooks statement shows, with their line's FITID. */
const shown = new Map<string, string>();
/** Every account transaction QuickBooks' books make, by id: its amount (money in positive), account and record. */
const expected = new Map<string, { amount: number; account: string; lines: Data[] }>();
/** Invoices by Id, with the FITIDs of the bank lines that show their payments (none: not on the statement). */
const invoiceLines = new Map<string, string[]>();

/**
 * A QuickBooks company whose money moves through its current account, its card and its savings in every way QuickBooks
 * records it; some of the current account's movements are on the statement the test writes.
 */
function seedQuickBooks(qbo: QboFake): void {
  const realm = qbo.addRealm('Teign Joinery');
  realm.account('1000').BankNum = '41926587';
  realm.addAccount('1050', { name: 'Company Card', classification: 'Liability', type: 'Credit Card', subType: 'CreditCard' });
  realm.addAccount('1200', {
    name: 'Undeposited Funds',
    classification: 'Asset',
    type: 'Other Current Asset',
    subType: 'UndepositedFunds',
  });
  realm.addAccount('1060', { name: 'Petty Cash', classification: 'Asset', type: 'Bank', subType: 'CashOnHand' });
  const invoices = realm.seedInvoices(6);
  const bills = realm.seedBills(3);
  const expect_ = (id: string, amount: number, account: string, recordRef: Data, fitid?: string, lines?: Data[]) => {
    expected.set(id, { amount, account, lines: lines ?? [{ amount, recordRef }] });
    if (fitid) shown.set(id, fitid);
  };
  // Payments straight into the current account: four on the statement, one not.
  invoices.slice(0, 5).forEach((invoice, i) => {
    const p = realm.addPayment(invoice.Id, 100 + i * 13.57, { day: `2025-10-${String(2 + i * 3).padStart(2, '0')}` });
    expect_(`Payment-${p.Id}`, p.TotalAmt, '1000', { id: p.Id, dataType: 'payments' }, i < 4 ? `PAY${i}` : undefined);
    invoiceLines.set(invoice.Id, i < 4 ? [`PAY${i}`] : []);
  });
  // Two payments into Undeposited Funds reach the bank as one deposit, with other money and less cash back.
  const held = [realm.addPayment(invoices[5].Id, 61.2, { day: '2025-10-20', account: '1200' })];
  const deposit = realm.addDeposit({
    day: '2025-10-22',
    account: '1000',
    payments: held.map((p) => p.Id),
    other: [{ amount: 40, account: '4000', description: 'Scrap timber sold' }],
    cashBack: { amount: 5.5, account: '1060' },
    note: 'Paying in book 12',
  });
  // Its lines: the payment it takes out of Undeposited Funds (so the invoice's payment reaches the bank line), the
  // other money, and the cash back, together what reached the bank.
  expect_(`Deposit-${deposit.Id}`, 95.7, '1000', { id: `Deposit-${deposit.Id}`, dataType: 'directIncomes' }, 'DEP', [
    { amount: 61.2, recordRef: { id: held[0].Id, dataType: 'payments' } },
    { amount: 40, recordRef: { id: `Deposit-${deposit.Id}`, dataType: 'directIncomes' }, description: 'Scrap timber sold' },
    { amount: -5.5, recordRef: { id: `Deposit-${deposit.Id}`, dataType: 'directIncomes' } },
  ]);
  invoiceLines.set(invoices[5].Id, ['DEP']);
  expect_(`Deposit-${deposit.Id}-CashBack`, 5.5, '1060', { id: `Deposit-${deposit.Id}`, dataType: 'directIncomes' });
  bills.forEach((bill, i) => {
    const p = realm.addBillPayment(bill.Id, 75 + i * 9.11, { day: `2025-11-${String(3 + i * 4).padStart(2, '0')}` });
    expect_(`BillPayment-${p.Id}`, -p.TotalAmt, '1000', { id: p.Id, dataType: 'billPayments' }, i < 2 ? `BP${i}` : undefined);
  });
  const cheque = realm.addPurchase({
    day: '2025-11-05',
    account: '1000',
    amount: 212.4,
    expense: '6100',
    paymentType: 'Check',
    docNumber: '100231',
    note: 'Workshop rent',
  });
  expect_(`Purchase-${cheque.Id}`, -212.4, '1000', { id: `Purchase-${cheque.Id}`, dataType: 'directCosts' }, 'CHQ');
  const card = realm.addPurchase({ day: '2025-11-06', account: '1050', amount: 48.99, expense: '6000', paymentType: 'CreditCard' });
  expect_(`Purchase-${card.Id}`, -48.99, '1050', { id: `Purchase-${card.Id}`, dataType: 'directCosts' });
  const refund = realm.addPurchase({
    day: '2025-11-08',
    account: '1050',
    amount: 12.5,
    expense: '6000',
    paymentType: 'CreditCard',
    credit: true,
  });
  expect_(`Purchase-${refund.Id}`, 12.5, '1050', { id: `Purchase-${refund.Id}`, dataType: 'directIncomes' });
  // Paying off the card: out of the current account (on the statement), into the card.
  const transfer = realm.addTransfer({ day: '2025-11-15', from: '1000', to: '1050', amount: 36.49, note: 'Card repayment' });
  expect_(`Transfer-${transfer.Id}-From`, -36.49, '1000', { id: `Transfer-${transfer.Id}`, dataType: 'transfers' }, 'TRF');
  expect_(`Transfer-${transfer.Id}-To`, 36.49, '1050', { id: `Transfer-${transfer.Id}`, dataType: 'transfers' });
  // Savings to current: only the current account's side is on the statement.
  const sweep = realm.addTransfer({ day: '2025-11-17', from: '1010', to: '1000', amount: 500 });
  expect_(`Transfer-${sweep.Id}-From`, -500, '1010', { id: `Transfer-${sweep.Id}`, dataType: 'transfers' });
  expect_(`Transfer-${sweep.Id}-To`, 500, '1000', { id: `Transfer-${sweep.Id}`, dataType: 'transfers' }, 'SWP');
  const customer = invoices[0].CustomerRef.value;
  const sale = realm.addReceipt('SalesReceipt', { day: '2025-11-19', account: '1000', customerId: customer, amount: 88.8 });
  expect_(`SalesReceipt-${sale.Id}`, 88.8, '1000', { id: `SalesReceipt-${sale.Id}`, dataType: 'directIncomes' }, 'SR');
  const back = realm.addReceipt('RefundReceipt', { day: '2025-11-21', account: '1000', customerId: customer, amount: 18.8 });
  expect_(`RefundReceipt-${back.Id}`, -18.8, '1000', { id: `RefundReceipt-${back.Id}`, dataType: 'directCosts' });
  // Paying the card off ("Pay down credit card"): out of the current account (on the statement), into the card.
  const paydown = realm.addCreditCardPayment({ day: '2025-11-16', bank: '1000', card: '1050', amount: 61.11, note: 'Card pay-down' });
  const paydownRef = { id: `CreditCardPayment-${paydown.Id}`, dataType: 'transfers' };
  expect_(`CreditCardPayment-${paydown.Id}-From`, -61.11, '1000', paydownRef, 'CCP');
  expect_(`CreditCardPayment-${paydown.Id}-To`, 61.11, '1050', paydownRef);
  // A journal entry on the current account (interest the bank paid), its other line on an income account.
  const interest = realm.addJournalEntry('1000', '4100', 4.21, 'Bank interest');
  expect_(`JournalEntry-${interest.Id}-0`, 4.21, '1000', { id: interest.Id, dataType: 'journalEntries' });
  // A customer in the euro area pays EUR 100 into the (GBP) current account, at 0.8615: GBP 86.15 reach it.
  const euros = realm.addPaymentOnAccount(customer, 100, {
    day: '2025-11-24',
    currency: { value: 'EUR', name: 'Euro' },
    exchangeRate: 0.8615,
  });
  expect_(`Payment-${euros.Id}`, 86.15, '1000', { id: euros.Id, dataType: 'payments' }, 'EUR');
  // Not through a bank account: a cash expense from Undeposited Funds is no account transaction.
  realm.addPurchase({ day: '2025-11-22', account: '1200', amount: 7, expense: '6100', paymentType: 'Cash' });
}

describe('data integrity over QuickBooks Online and a bank statement file', () => {
  let company: LinkedCompany;
  const { linkByFollowing } = connectionCalls(
    () => server,
    () => client,
    () => company,
  );

  it('serves the bank and card accounts and every movement through them, and matches exactly the lines written', async () => {
    company = await companyWithConnection(server, client, 'qhyg');
    await fetchOnFirstLinkOnly(server, client, company.companyId, ['accountTransactions', 'bankAccounts', 'invoices', 'payments']);
    await linkByFollowing('QuickBooks Online');
    const status = await waitForSyncs(server, client, company.companyId, 120_000);
    expect(status.accountTransactions?.currentStatus).toBe('Complete');
    expect(status.bankAccounts?.currentStatus).toBe('Complete');
    const accounts = await allRecords(server, client.auth, company, 'bankAccounts');
    const byCode = new Map(accounts.map((a) => [a.nominalCode as string, a]));
    // The current, savings, closed deposit and petty cash accounts, and the card: no other account of the chart.
    expect([...byCode.keys()].sort()).toEqual(['1000', '1010', '1020', '1050', '1060']);
    expect(byCode.get('1000')).toMatchObject({ accountType: 'Debit', accountNumber: '41926587', currency: 'GBP', status: 'Active' });
    expect(byCode.get('1050')).toMatchObject({ accountType: 'Credit', status: 'Active' });
    expect(byCode.get('1020')).toMatchObject({ status: 'Archived' });

    const moves = await allRecords(server, client.auth, company, 'accountTransactions');
    expect(moves.map((m) => m.id).sort()).toEqual([...expected.keys()].sort());
    for (const m of moves) {
      const want = expected.get(m.id)!;
      expect(m, m.id).toMatchObject({
        totalAmount: want.amount,
        currency: 'GBP',
        bankAccountRef: { id: byCode.get(want.account)!.id },
        lines: want.lines,
      });
    }
    expect(qbo.violations).toEqual([]);
    await statementMatchesWrittenMovements(company, moves, byCode.get('1000')!, shown);

    // Enhanced invoices follow each paid invoice to the bank line that shows its payment, through a deposit too.
    const report = await http(server, 'GET', `/companies/${company.companyId}/reports/enhancedInvoices?page=1&pageSize=500`, {
      auth: client.auth,
    });
    expect(report.status, report.text).toBe(200);
    const statementLines = await allRecords(
      server,
      client.auth,
      { companyId: company.companyId, connectionId: (await statementConnection(company)).id },
      'banking-transactions',
    );
    const lineOf = (fitid: string) => statementLines.find((t) => t.description === `BANK ${fitid}`)!.id;
    for (const [invoiceId, fitids] of invoiceLines) {
      const item = report.body.reportItems.find((r: Data) => r.id === invoiceId);
      expect(
        item.payments.flatMap((p: Data) => p.bankingTransactionRefs.map((r: Data) => r.id)),
        invoiceId,
      ).toEqual(fitids.map(lineOf));
    }
  }, 180_000);
});
