import { describe, expect, it } from 'vitest';
import { AS_OF, Checks, byId, cents, fetchAll, settings, sum } from './helpers.js';

const S = settings(600);
const POSTED = new Set(['Submitted', 'Open', 'PartiallyPaid', 'Paid']);
const month = (date: string) => date.slice(0, 7);
const base = (amount: number, rate: number) => Math.round(cents(amount) * rate);

interface Line {
  accountId?: string;
  name: string;
  value: number;
  items?: Line[];
}
/** Each group's value is the sum of its items, all the way down. */
function sums(line: Line, c: Checks, where: string): void {
  if (!line.items) return;
  c.eq(cents(line.value), sum(line.items.map((i) => cents(i.value))), `${where} ${line.name}`);
  for (const item of line.items) sums(item, c, where);
}
function leaves(line: Line): Line[] {
  return line.items ? line.items.flatMap(leaves) : [line];
}

describe.each([0, 1, 3])('reports at epoch %i', (epoch) => {
  const pl = fetchAll('profitAndLoss', S, epoch).map((r) => r.data);
  const bs = fetchAll('balanceSheet', S, epoch).map((r) => r.data);
  const cf = fetchAll('cashFlowStatement', S, epoch).map((r) => r.data);
  const accounts = byId(fetchAll('chartOfAccounts', S, epoch));

  it('covers the 48 calendar months up to asOf', () => {
    for (const list of [pl, bs, cf]) {
      expect(list).toHaveLength(48);
      expect(list.at(-1)!.id).toBe(AS_OF.slice(0, 7));
      expect(list[0].id).toBe('2021-07');
    }
    expect(pl[0].fromDate).toBe('2021-07-01T00:00:00');
    expect(pl[0].toDate).toBe('2021-07-31T00:00:00');
    expect(bs[0].date).toBe('2021-07-31T00:00:00');
  });

  it('the balance sheet balances every month: assets - liabilities = equity = net assets', () => {
    const c = new Checks();
    for (const m of bs) {
      for (const section of [m.assets, m.liabilities, m.equity]) sums(section, c, m.id);
      const net = cents(m.assets.value) - cents(m.liabilities.value);
      c.eq(net, cents(m.equity.value), `${m.id} equity`);
      c.eq(net, cents(m.netAssets), `${m.id} net assets`);
    }
    expect(c.failures).toEqual([]);
  });

  it('profit and loss totals follow from the sections, and accumulate into equity', () => {
    const c = new Checks();
    for (const m of pl) {
      for (const section of [m.income, m.costOfSales, m.expenses, m.otherIncome, m.otherExpenses]) sums(section, c, m.id);
      c.eq(cents(m.grossProfit), cents(m.income.value) - cents(m.costOfSales.value), `${m.id} gross`);
      c.eq(cents(m.netOperatingProfit), cents(m.grossProfit) - cents(m.expenses.value), `${m.id} operating`);
      c.eq(cents(m.netOtherIncome), cents(m.otherIncome.value) - cents(m.otherExpenses.value), `${m.id} other`);
      c.eq(cents(m.netProfit), cents(m.netOperatingProfit) + cents(m.netOtherIncome), `${m.id} net`);
    }
    const equity = (m: any, name: string) => cents(m.equity.items.find((i: Line) => i.name === name).value);
    const profit = sum(pl.map((m) => cents(m.netProfit)));
    c.eq(
      equity(bs.at(-1), 'Retained Earnings') - equity(bs[0], 'Retained Earnings') + equity(bs.at(-1), 'Current Year Earnings'),
      profit,
      'profit in equity',
    );
    expect(c.failures).toEqual([]);
    expect(profit).toBeGreaterThan(0);
  });

  it('profit and loss of each month agrees with the documents issued in it, in base currency', () => {
    // Debit-positive base cents per month and account, rebuilt from the records.
    const expected = new Map<string, number>();
    const post = (date: string, accountId: string, amount: number) => {
      const key = `${month(date)}|${accountId}`;
      expected.set(key, (expected.get(key) ?? 0) + amount);
    };
    for (const { data: d } of fetchAll('invoices', S, epoch)) {
      if (POSTED.has(d.status)) for (const l of d.lineItems) post(d.issueDate, l.accountRef.id, -base(l.subTotal, d.currencyRate));
    }
    for (const { data: d } of fetchAll('creditNotes', S, epoch))
      for (const l of d.lineItems) post(d.issueDate, l.accountRef.id, base(l.subTotal, d.currencyRate));
    for (const { data: d } of fetchAll('bills', S, epoch)) {
      if (POSTED.has(d.status)) for (const l of d.lineItems) post(d.issueDate, l.accountRef.id, base(l.subTotal, d.currencyRate));
    }
    for (const { data: d } of fetchAll('billCreditNotes', S, epoch))
      for (const l of d.lineItems) post(d.issueDate, l.accountRef.id, -base(l.subTotal, d.currencyRate));
    for (const { data: d } of fetchAll('directCosts', S, epoch))
      for (const l of d.lineItems) post(d.issueDate, l.accountRef.id, base(l.subTotal, d.currencyRate));
    // Direct incomes: the shop's payouts among them, in the currency they were paid out in.
    for (const { data: d } of fetchAll('directIncomes', S, epoch))
      for (const l of d.lineItems) post(d.issueDate, l.accountRef.id, -base(l.subTotal, d.currencyRate));

    const c = new Checks();
    let lines = 0;
    for (const m of pl) {
      for (const [section, sign] of [
        [m.income, -1],
        [m.otherIncome, -1],
        [m.costOfSales, 1],
        [m.expenses, 1],
        [m.otherExpenses, 1],
      ] as const) {
        for (const line of leaves(section)) {
          lines++;
          c.eq(cents(line.value), sign * (expected.get(`${m.id}|${line.accountId}`) ?? 0) || 0, `${m.id} ${line.name}`);
          c.ok(accounts.get(line.accountId!)?.name === line.name, `${m.id} ${line.name} account`);
        }
      }
    }
    expect(c.failures).toEqual([]);
    expect(lines).toBeGreaterThan(48 * 20);
    expect(sum(pl.map((m) => cents(m.income.value)))).toBeGreaterThan(0);
  });

  it('cash flow agrees with payments and direct transactions, and with the change in cash', () => {
    const flows = new Map<string, number[]>();
    const add = (date: string, column: number, amount: number) => {
      const row = flows.get(month(date)) ?? [0, 0, 0, 0];
      row[column] += amount;
      flows.set(month(date), row);
    };
    for (const { data: p } of fetchAll('payments', S, epoch)) add(p.date, 0, base(p.totalAmount, p.currencyRate));
    for (const { data: d } of fetchAll('directIncomes', S, epoch)) add(d.issueDate, 1, base(d.totalAmount, d.currencyRate));
    for (const { data: p } of fetchAll('billPayments', S, epoch)) add(p.date, 2, base(p.totalAmount, p.currencyRate));
    for (const { data: d } of fetchAll('directCosts', S, epoch)) add(d.issueDate, 3, base(d.totalAmount, d.currencyRate));
    const banks = new Set([...accounts].filter(([, a]) => a.isBankAccount).map(([id]) => id));
    const cash = (m: any) =>
      sum(
        leaves(m.assets)
          .filter((l) => banks.has(l.accountId!))
          .map((l) => cents(l.value)),
      ) -
      sum(
        leaves(m.liabilities)
          .filter((l) => banks.has(l.accountId!))
          .map((l) => cents(l.value)),
      );

    const c = new Checks();
    cf.forEach((m, k) => {
      const row = flows.get(m.id) ?? [0, 0, 0, 0];
      const [customers, other] = m.cashReceipts.items.map((i: Line) => cents(i.value));
      const [suppliers, direct] = m.cashPayments.items.map((i: Line) => cents(i.value));
      c.eq(customers, row[0], `${m.id} receipts from customers`);
      c.eq(other, row[1], `${m.id} other receipts`);
      c.eq(suppliers, row[2], `${m.id} payments to suppliers`);
      c.eq(direct, row[3], `${m.id} direct payments`);
      sums(m.cashReceipts, c, m.id);
      sums(m.cashPayments, c, m.id);
      if (k > 0) c.eq(cash(bs[k]) - cash(bs[k - 1]), cents(m.cashReceipts.value) - cents(m.cashPayments.value), `${m.id} change in cash`);
    });
    expect(c.failures).toEqual([]);
  });

  it('the balance sheet shows the GBP bank balances of the bank accounts', () => {
    const last = bs.at(-1)!;
    const lines = new Map([...leaves(last.assets), ...leaves(last.liabilities)].map((l) => [l.name, cents(l.value)]));
    for (const { data: b } of fetchAll('bankAccounts', S, epoch)) {
      if (b.currency !== 'GBP' || !lines.has(b.accountName)) continue;
      expect(lines.get(b.accountName)).toBe(b.accountType === 'Credit' ? -cents(b.balance) : cents(b.balance));
    }
  });
});

describe('company info', () => {
  it('is one record describing a GBP company', () => {
    const list = fetchAll('company', S, 0);
    expect(list).toHaveLength(1);
    expect(list[0].id).toBe('company');
    expect(list[0].data).toMatchObject({ baseCurrency: 'GBP', accountingPlatformRef: 'mqjo' });
    expect(list[0].data.companyName).toMatch(/^[A-Z]/);
    expect(list[0].data.financialYearStartDate).toMatch(/^\d{4}-(01|04)-01T00:00:00$/);
  });
});
