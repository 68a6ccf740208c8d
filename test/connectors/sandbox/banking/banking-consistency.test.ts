import { describe, expect, it } from 'vitest';
import { bankingSandbox } from '../../../../src/connectors/sandbox/banking/index.js';
import { collect } from './checks.js';

type Row = Record<string, any>;
type BankingType = 'banking-accounts' | 'banking-accountBalances' | 'banking-transactions' | 'banking-transactionCategories';
const load = (dataType: BankingType, invoices: number, epoch: number, asOf = '2024-05-15') =>
  collect(bankingSandbox.dataTypes.get(dataType)!, { seed: 5, invoices, asOf }, epoch).map((r) => r.data as Row);
const cents = (amount: number) => Math.round(amount * 100);

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
      // Opening balance + every transaction = the account's current balance.
      const opening = cents(account.balance.current) - total;
      if (account.type === 'Credit') {
        expect(opening).toBe(0);
        expect(cents(account.balance.available)).toBe(cents(account.balance.limit) + cents(account.balance.current));
      } else {
        expect(opening).toBeGreaterThan(0);
        expect(account.balance.available).toBe(account.balance.current);
      }
      // Each closing balance = opening + the transactions posted on or before its date.
      const dated = byAccountBalances.get(account.id) ?? [];
      expect(dated.length).toBeGreaterThan(0);
      let i = 0;
      let running = opening;
      const dailyFrom = new Date(Date.parse(`${asOf}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10);
      for (const b of dated) {
        while (i < own.length && own[i].postedDate <= b.date) running += cents(own[i++].amount);
        if (cents(b.balance.current) !== running) problems.push(`${account.name} on ${b.date}: ${b.balance.current} ≠ ${running / 100}`);
        if (b.balance.limit !== account.balance.limit) problems.push(`${account.name} on ${b.date}: limit`);
      }
      const last = dated[dated.length - 1];
      expect(last.date).toBe(`${asOf}T00:00:00`);
      expect(last.balance).toEqual(account.balance);
      // Month-end sweeps keep operating and savings accounts in credit at every month end.
      if (account.type === 'Debit') {
        for (const b of dated) if (b.date < dailyFrom && !(b.balance.current > 0)) problems.push(`${account.name} overdrawn on ${b.date}`);
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
  });
});

describe('banking Sandbox realism', () => {
  it('posts recurring bills, interest, card repayments and treasury sweeps at month ends', () => {
    const txns = load('banking-transactions', 6000, 0);
    // asOf 2024-05-15: 36 months of rent (1st of the month), 35 paydays (25th) and 35 completed months.
    const descriptions = txns.map((t) => t.description as string);
    expect(descriptions.filter((d) => d.startsWith('STANDING ORDER FAIRVIEW PROPERTY RENT')).length).toBe(36);
    expect(descriptions.filter((d) => d.startsWith('BULK PAYMENT SALARIES')).length).toBe(35);
    expect(descriptions.filter((d) => d.startsWith('GROSS INTEREST')).length).toBeGreaterThanOrEqual(35);
    expect(descriptions.filter((d) => d === 'DIRECT DEBIT PAYMENT - THANK YOU').length).toBeGreaterThanOrEqual(35);
    expect(descriptions.filter((d) => /^SWEEP (TO|FROM) TREASURY RESERVE/.test(d)).length).toBeGreaterThanOrEqual(35 * 3);
  });
});
