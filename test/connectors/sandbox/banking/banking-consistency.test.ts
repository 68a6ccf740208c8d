import { describe, expect, it } from 'vitest';
import { bankingSandbox } from '../../../../src/connectors/sandbox/banking/index.js';
import { accountingSandbox } from '../../../../src/connectors/sandbox/accounting/index.js';
import { collect } from './checks.js';

type Row = Record<string, any>;
type BankingType = 'banking-accounts' | 'banking-accountBalances' | 'banking-transactions' | 'banking-transactionCategories';
const load = (dataType: BankingType, invoices: number, epoch: number, asOf = '2024-05-15') =>
  collect(bankingSandbox.dataTypes.get(dataType)!, { seed: 5, invoices, asOf }, epoch).map((r) => r.data as Row);
const cents = (amount: number) => Math.round(amount * 100);
const books = (
  dataType: 'accountTransactions' | 'bankAccounts' | 'customers' | 'suppliers',
  invoices: number,
  epoch: number,
  asOf = '2024-05-15',
) => collect(accountingSandbox.dataTypes.get(dataType)!, { seed: 5, invoices, asOf }, epoch).map((r) => r.data as Row);
const CHARGES = new Set(['ACCOUNT MAINTENANCE FEE', 'NON-STERLING TRANSACTION FEE', 'UNPAID ITEM CHARGE', 'SERVICE CHARGE']);
const dayOf = (text: string) => Math.round(Date.parse(`${text.slice(0, 10)}T00:00:00Z`) / 86_400_000);
/** The books' account a bank account is: the same IBAN, else the same number and currency. */
const sameAccount = (bank: Row, book: Row) =>
  bank.identifiers.iban
    ? bank.identifiers.iban.replace(/\s+/g, '') === book.iBan
    : bank.identifiers.number === book.accountNumber && bank.currency === book.currency;

describe.each([
  [200, '2024-05-15'],
  [1500, '2024-05-15'],
  [6000, '2024-05-15'],
  [1500, '2023-12-31'],
])('banking Sandbox consistency (%i invoices, asOf %s)', (invoices, asOf) => {
  it.each([0, 1, 3])('epoch %i: transactions, accounts and balances agree', (epoch) => {
    const accounts = new Map(load('banking-accounts', invoices, epoch, asOf).map((a) => [a.id as string, a]));
    const categories = new Map(load('banking-transactionCategories', invoices, epoch, asOf).map((c) => [c.id as string, c]));
    const txns = load('banking-transactions', invoices, epoch, asOf);
    const balances = load('banking-accountBalances', invoices, epoch, asOf);
    const bookAccounts = books('bankAccounts', invoices, epoch, asOf);
    const bookMoves = books('accountTransactions', invoices, epoch, asOf);
    // The statement's first day: the first of the month 35 months before the as-of month.
    const spanStart = dayOf(new Date(Date.UTC(Number(asOf.slice(0, 4)), Number(asOf.slice(5, 7)) - 36, 1)).toISOString());

    // References: every transaction names an existing account (in its currency) and category (by its name).
    // Problems are collected and asserted once: `expect` per record would dominate the run time.
    const problems: string[] = [];
    const byAccount = new Map<string, Row[]>();
    for (const t of txns) {
      const account = accounts.get(t.accountId);
      const category = categories.get(t.transactionCategoryRef.id);
      if (!account) problems.push(`${t.id}: no account ${t.accountId}`);
      else if (t.currency !== account.currency) problems.push(`${t.id}: currency ${t.currency} on a ${account.currency} account`);
      if (!category) problems.push(`${t.id}: no category ${t.transactionCategoryRef.id}`);
      else if (t.transactionCategoryRef.name !== category.name) problems.push(`${t.id}: category name ${t.transactionCategoryRef.name}`);
      if (!byAccount.has(t.accountId)) byAccount.set(t.accountId, []);
      byAccount.get(t.accountId)!.push(t);
    }
    for (const c of categories.values()) if (c.parentId !== null) expect(categories.get(c.parentId)?.hasChildren).toBe(true);

    const byAccountBalances = new Map<string, Row[]>();
    for (const b of balances) {
      expect(accounts.has(b.accountId), `account of balance ${b.id}`).toBe(true);
      if (!byAccountBalances.has(b.accountId)) byAccountBalances.set(b.accountId, []);
      byAccountBalances.get(b.accountId)!.push(b);
    }

    for (const account of accounts.values()) {
      const own = (byAccount.get(account.id) ?? [])
        .slice()
        .sort((a, b) => (a.postedDate < b.postedDate ? -1 : a.postedDate > b.postedDate ? 1 : 0));
      const total = own.reduce((s, t) => s + cents(t.amount), 0);
      // Opening balance + every transaction = the account's current balance; the opening is the books' balance of the
      // account the day before the statement's first day: the books' balance now less their movements since.
      const opening = cents(account.balance.current) - total;
      const book = bookAccounts.find((b) => sameAccount(account, b));
      expect(book, account.name).toBeDefined();
      const since = bookMoves.filter((m) => m.bankAccountRef.id === book!.id && dayOf(m.date) >= spanStart);
      expect(opening, `${account.name} opening`).toBe(cents(book!.balance) - since.reduce((s, m) => s + cents(m.totalAmount), 0));
      if (account.type === 'Credit') {
        expect(cents(account.balance.available)).toBe(cents(account.balance.limit) + cents(account.balance.current));
      } else {
        expect(account.balance.available).toBe(account.balance.current);
      }
      // Each closing balance = opening + the transactions posted on or before its date.
      const dated = byAccountBalances.get(account.id) ?? [];
      expect(dated.length).toBeGreaterThan(0);
      let i = 0;
      let running = opening;
      for (const b of dated) {
        while (i < own.length && own[i].postedDate <= b.date) running += cents(own[i++].amount);
        if (cents(b.balance.current) !== running) problems.push(`${account.name} on ${b.date}: ${b.balance.current} ≠ ${running / 100}`);
        if (b.balance.limit !== account.balance.limit) problems.push(`${account.name} on ${b.date}: limit`);
      }
      const last = dated[dated.length - 1];
      expect(last.date).toBe(`${asOf}T00:00:00`);
      expect(last.balance).toEqual(account.balance);
    }
    expect(problems.slice(0, 10)).toEqual([]);
  });
});

describe.each([
  [200, 0],
  [1500, 0],
  [1500, 2],
  [6000, 1],
])('the bank side of the books (%i invoices, epoch %i)', (invoices, epoch) => {
  it('shows every movement of the books in its span once, 0 to 3 days later, but a tenth of the money received; and charges of its own', () => {
    const asOf = '2024-05-15';
    const spanStart = dayOf('2021-06-01');
    const accounts = load('banking-accounts', invoices, epoch, asOf);
    const txns = load('banking-transactions', invoices, epoch, asOf);
    const bookAccounts = books('bankAccounts', invoices, epoch, asOf);
    const bookMoves = books('accountTransactions', invoices, epoch, asOf).filter((m) => dayOf(m.date) >= spanStart);
    const accountOf = new Map(accounts.map((a) => [a.id, bookAccounts.find((b) => sameAccount(a, b))!.id]));
    expect(accountOf.size).toBe(bookAccounts.length);
    // The lines as the books' movements would have them: by account, amount and the movement's own words.
    const lines = new Map<string, Row[]>();
    const charges: Row[] = [];
    for (const t of txns) {
      if (CHARGES.has(t.description)) {
        charges.push(t);
        continue;
      }
      const key = `${accountOf.get(t.accountId)} ${cents(t.amount)}`;
      if (!lines.has(key)) lines.set(key, []);
      lines.get(key)!.push(t);
    }
    const problems: string[] = [];
    let receipts = 0;
    let unmatched = 0;
    const used = new Set<string>();
    for (const m of bookMoves) {
      const words = m.lines[0].description.toUpperCase();
      const own = (lines.get(`${m.bankAccountRef.id} ${cents(m.totalAmount)}`) ?? []).filter((t) => {
        const lag = dayOf(t.postedDate) - dayOf(m.date);
        return !used.has(t.id) && t.description.endsWith(` ${words}`) && lag >= 0 && lag <= 3;
      });
      if (m.totalAmount > 0) receipts++;
      if (own.length === 0) {
        if (m.totalAmount > 0) unmatched++;
        else problems.push(`${m.id}: money paid out with no line`);
        continue;
      }
      used.add(own[0].id);
    }
    // Every line not a charge is a movement's.
    expect(used.size).toBe(txns.length - charges.length);
    // Its merchant, where it names one, is a customer or supplier of the books.
    const names = new Set([
      ...books('customers', invoices, epoch, asOf).map((c) => c.customerName),
      ...books('suppliers', invoices, epoch, asOf).map((c) => c.supplierName),
    ]);
    const strangers = txns.filter((t) => t.merchantName && !names.has(t.merchantName)).map((t) => t.merchantName);
    expect(strangers.slice(0, 5)).toEqual([]);
    expect(problems.slice(0, 5)).toEqual([]);
    expect(unmatched / receipts).toBeGreaterThan(0.05);
    expect(unmatched / receipts).toBeLessThan(0.15);
    expect(charges.length / txns.length).toBeGreaterThan(0.02);
    expect(charges.length / txns.length).toBeLessThan(0.08);
    for (const c of charges) {
      expect(c.amount).toBeLessThan(0);
      // No movement of its account has its amount within 10 days.
      const near = bookMoves.filter(
        (m) =>
          m.bankAccountRef.id === accountOf.get(c.accountId) &&
          cents(m.totalAmount) === cents(c.amount) &&
          Math.abs(dayOf(m.date) - dayOf(c.postedDate)) <= 10,
      );
      expect(near, c.id).toEqual([]);
    }
  });
});
