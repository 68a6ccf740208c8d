import { describe, expect, it } from 'vitest';
import type { ConnectionSettings } from '../../../src/connectors/sandbox/generated-source.js';
import { accountingSandbox } from '../../../src/connectors/sandbox/accounting/index.js';
import { bankingSandbox } from '../../../src/connectors/sandbox/banking/index.js';
import { commerceSandbox } from '../../../src/connectors/sandbox/commerce/index.js';
import { CommercePlan } from '../../../src/connectors/sandbox/commerce/plan.js';
import { payoutPeriod } from '../../../src/connectors/sandbox/commerce/transactions.js';

/*
 * The commerce side of one company's story (docs/sandbox-banking-commerce.md, "One company, one story"): every payout
 * of the Commerce Sandbox's card processor is in the accounting Sandbox's books as a sale paid into the bank account of
 * its currency, and reaches the Banking Sandbox's statement as the books' other receipts do. Each figure of the books'
 * record is worked out here from the commerce records alone: the payout, the card payments, refunds and fees of its
 * period, and each payment's share of its order's tax.
 */

type Data = Record<string, any>;
const cents = (amount: number) => Math.round(amount * 100);
const day = (text: string) => Math.round(Date.parse(`${text.slice(0, 10)}T00:00:00Z`) / 86_400_000);

function all(connector: typeof accountingSandbox, dataType: string, settings: ConnectionSettings, epoch: number): Data[] {
  const out: Data[] = [];
  for (const r of connector.dataTypes.get(dataType as never)!.fetch({ settings, epoch })) out.push(JSON.parse(JSON.stringify(r.data)));
  return out;
}

/** What the books should record of each payout, from the commerce records at the first sync. */
function expectedSales(settings: ConnectionSettings) {
  const transactions = all(commerceSandbox, 'commerce-transactions', settings, 0);
  const orders = all(commerceSandbox, 'commerce-orders', settings, 0);
  // A payment's order, by the payment id (`<orderId>-p1`, `-p2`, `-r1`); its tax share is the order's tax over what
  // the order came to before refunds.
  const orderOf = new Map<string, Data>();
  for (const o of orders) for (const p of o.payments ?? []) orderOf.set(p.id, o);
  const period = payoutPeriod(new CommercePlan({ settings, epoch: 0 }));
  const start = day(transactions.reduce((min: string, t) => (t.createdDate < min ? t.createdDate : min), '9999'));
  // Buckets as the Commerce Sandbox's span counts them: from the first day of its 36 months.
  const asOf = new Date(`${settings.asOf}T00:00:00Z`);
  const spanStart = Math.round(Date.UTC(asOf.getUTCFullYear(), asOf.getUTCMonth() - 35, 1) / 86_400_000);
  expect(start).toBeGreaterThanOrEqual(spanStart);
  const sums = new Map<string, { takings: number; tax: number; fees: number }>();
  const payouts: Data[] = [];
  for (const t of transactions) {
    if (t.type === 'Payout') {
      payouts.push(t);
      continue;
    }
    const key = `${Math.floor((day(t.createdDate) - spanStart) / period)}|${t.currency}`;
    const sum = sums.get(key) ?? { takings: 0, tax: 0, fees: 0 };
    if (t.type === 'PaymentFee') sum.fees -= cents(t.totalAmount);
    else {
      sum.takings += cents(t.totalAmount);
      const order = orderOf.get(t.transactionSourceRef.id)!;
      const gross = cents(order.totalAmount) - cents(order.totalRefund ?? 0);
      if (gross !== 0) sum.tax += Math.round((cents(t.totalAmount) * cents(order.totalTaxAmount)) / gross);
    }
    sums.set(key, sum);
  }
  return payouts.map((p) => {
    const paidDay = day(p.createdDate);
    // Paid two days after its period ends.
    const sum = sums.get(`${Math.floor((paidDay - 2 - spanStart) / period)}|${p.currency}`)!;
    return { id: p.id, date: p.createdDate.slice(0, 10), currency: p.currency, amount: -cents(p.totalAmount), ...sum };
  });
}

describe.each([
  ['a small shop, paid out weekly', 300],
  ['a busy shop, paid out daily', 4000],
])('the shop in the books: %s (%i invoices)', (_, invoices) => {
  const settings: ConnectionSettings = { seed: 4242, invoices, asOf: '2024-05-15' };
  const expected = expectedSales(settings);
  const incomes = all(accountingSandbox, 'directIncomes', settings, 0);
  const shop = new Map(incomes.filter((d) => /^Card payout /.test(d.note ?? '')).map((d) => [d.note.slice('Card payout '.length), d]));

  it('records every payout as a sale: takings with their tax, less the fees, on the day it was paid, in its currency', () => {
    expect(expected.length).toBeGreaterThan(invoices > 1000 ? 1000 : 100);
    expect(shop.size).toBe(expected.length);
    for (const want of expected) {
      const income = shop.get(want.id)!;
      expect(income, want.id).toBeDefined();
      const [sales, fees] = income.lineItems;
      expect({
        date: income.issueDate.slice(0, 10),
        currency: income.currency,
        total: cents(income.totalAmount),
        takings: cents(sales.totalAmount),
        tax: cents(sales.taxAmount),
        fees: -cents(fees.totalAmount),
      }).toEqual({
        date: want.date,
        currency: want.currency,
        total: want.amount,
        takings: want.takings,
        tax: want.tax,
        fees: want.fees,
      });
      expect(cents(sales.subTotal) + cents(sales.taxAmount)).toBe(cents(sales.totalAmount));
      expect(want.takings - want.fees).toBe(want.amount);
    }
  });

  it('pays each into the bank account of its currency, and the bank shows it as the books', () => {
    const accounts = all(accountingSandbox, 'bankAccounts', settings, 0);
    const moves = all(accountingSandbox, 'accountTransactions', settings, 0);
    const byIncome = new Map(
      moves.filter((m) => m.lines[0].recordRef.dataType === 'directIncomes').map((m) => [m.lines[0].recordRef.id, m]),
    );
    const lines = all(bankingSandbox, 'banking-transactions', settings, 0);
    let shown = 0;
    for (const want of expected) {
      const income = shop.get(want.id)!;
      const move = byIncome.get(income.id)!;
      const account = accounts.find((a) => a.id === move.bankAccountRef.id)!;
      expect(account.currency).toBe(want.currency);
      expect(account.accountType).toBe('Debit');
      expect(cents(move.totalAmount)).toBe(want.amount);
      expect(move.date.slice(0, 10)).toBe(want.date);
      const words = move.lines[0].description.toUpperCase();
      const line = lines.filter((t) => t.description.endsWith(` ${words}`));
      expect(line.length, words).toBeLessThanOrEqual(1);
      if (line.length === 0) continue;
      shown++;
      expect(cents(line[0].amount)).toBe(want.amount);
      expect(line[0].currency).toBe(want.currency);
      const lag = day(line[0].postedDate) - day(want.date);
      expect(lag).toBeGreaterThanOrEqual(0);
      expect(lag).toBeLessThanOrEqual(3);
    }
    // A tenth of the money the books receive never reaches the bank (the planted unmatched share).
    expect(shown / expected.length).toBeGreaterThan(0.8);
    expect(shown).toBeLessThan(expected.length);
  });

  it('keeps each payout as it was paid at later syncs', () => {
    const later = all(accountingSandbox, 'directIncomes', settings, 2).filter((d) => /^Card payout /.test(d.note ?? ''));
    expect(later).toEqual([...shop.values()]);
  });
});
