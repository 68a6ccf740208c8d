import { describe, expect, it } from 'vitest';
import type { ConnectionSettings } from '../../../src/connectors/sandbox/generated-source.js';
import { accountingSandbox } from '../../../src/connectors/sandbox/accounting/index.js';
import { bankingSandbox } from '../../../src/connectors/sandbox/banking/index.js';
import { commerceSandbox } from '../../../src/connectors/sandbox/commerce/index.js';

/*
 * The commerce side of one company's story (docs/sandbox-banking-commerce.md, "One company, one story"): every payout
 * of the Commerce Sandbox's card processor, and each period's takings banked, is in the accounting Sandbox's books as a
 * sale paid into the bank account of its currency, and reaches the Banking Sandbox's statement as the books' other
 * receipts do. Each figure of the books' record is worked out here from the commerce records alone: the payout, the
 * card payments, refunds and fees of its period, the cash, PayPal and Klarna payments, and each payment's share of its
 * order's tax.
 */

type Data = Record<string, any>;
const cents = (amount: number) => Math.round(amount * 100);
const day = (text: string) => Math.round(Date.parse(`${text.slice(0, 10)}T00:00:00Z`) / 86_400_000);

function all(connector: typeof accountingSandbox, dataType: string, settings: ConnectionSettings, epoch: number): Data[] {
  const out: Data[] = [];
  for (const r of connector.dataTypes.get(dataType as never)!.fetch({ settings, epoch })) out.push(JSON.parse(JSON.stringify(r.data)));
  return out;
}

/** Tenders paid into the bank by the period's end besides cards (docs/sandbox-banking-commerce.md). */
const BANKED = new Set(['Cash', 'PayPal', 'Klarna']);

/**
 * What the books should record of what the shop paid in, from the commerce records at the first sync: each card
 * payout, with its period's card payments, refunds and fees; and each period's banked takings (cash, PayPal, Klarna
 * payments less their refunds, from `commerce-payments`), paid in on the payout's day.
 */
function expectedSales(settings: ConnectionSettings) {
  const transactions = all(commerceSandbox, 'commerce-transactions', settings, 0);
  const payments = all(commerceSandbox, 'commerce-payments', settings, 0);
  const orders = all(commerceSandbox, 'commerce-orders', settings, 0);
  // A payment's order, by the payment id (`<orderId>-p1`, `-p2`, `-r1`); its tax share is the order's tax over what
  // the order came to before refunds.
  const orderOf = new Map<string, Data>();
  for (const o of orders) for (const p of o.payments ?? []) orderOf.set(p.id, o);
  const taxOf = (paymentId: string, amount: number) => {
    const order = orderOf.get(paymentId)!;
    const gross = cents(order.totalAmount) - cents(order.totalRefund ?? 0);
    return gross === 0 ? 0 : Math.round((amount * cents(order.totalTaxAmount)) / gross);
  };
  // Periods as the Commerce Sandbox documents them: from the first day of its 36 months, a day long for shops of two
  // orders a day or more, else a week; paid in two days after they end.
  const asOf = new Date(`${settings.asOf}T00:00:00Z`);
  const spanStart = Math.round(Date.UTC(asOf.getUTCFullYear(), asOf.getUTCMonth() - 35, 1) / 86_400_000);
  const lastDay = day(settings.asOf);
  const period = orders.length / (lastDay - spanStart + 1) >= 2 ? 1 : 7;
  const bucket = (date: string) => Math.floor((day(date) - spanStart) / period);
  const paidIn = (b: number) => spanStart + (b + 1) * period - 1 + 2;
  const sums = new Map<string, { takings: number; tax: number; fees: number }>();
  const add = (key: string, takings: number, tax: number, fees: number) => {
    const sum = sums.get(key) ?? { takings: 0, tax: 0, fees: 0 };
    sum.takings += takings;
    sum.tax += tax;
    sum.fees += fees;
    sums.set(key, sum);
  };
  const expected: {
    kind: string;
    id: string;
    date: string;
    currency: string;
    amount: number;
    takings: number;
    tax: number;
    fees: number;
  }[] = [];
  for (const t of transactions) {
    if (t.type === 'Payout') continue;
    const key = `card|${bucket(t.createdDate)}|${t.currency}`;
    if (t.type === 'PaymentFee') add(key, 0, 0, -cents(t.totalAmount));
    else add(key, cents(t.totalAmount), taxOf(t.transactionSourceRef.id, cents(t.totalAmount)), 0);
  }
  for (const p of payments) {
    if (p.status !== 'Paid' || !BANKED.has(p.paymentMethodRef?.name)) continue;
    add(`banked|${bucket(p.createdDate)}|${p.currency}`, cents(p.amount), taxOf(p.id, cents(p.amount)), 0);
  }
  for (const t of transactions) {
    if (t.type !== 'Payout') continue;
    const sum = sums.get(`card|${Math.floor((day(t.createdDate) - 2 - spanStart) / period)}|${t.currency}`)!;
    expected.push({
      kind: 'card',
      id: t.id,
      date: t.createdDate.slice(0, 10),
      currency: t.currency,
      amount: -cents(t.totalAmount),
      ...sum,
    });
  }
  for (const [key, sum] of sums) {
    const [kind, b, currency] = key.split('|');
    const paid = paidIn(Number(b));
    if (kind !== 'banked' || paid > lastDay || sum.takings <= 0) continue;
    const date = new Date(paid * 86_400_000).toISOString().slice(0, 10);
    expected.push({ kind, id: `${date}|${currency}`, date, currency, amount: sum.takings, ...sum });
  }
  return expected;
}

describe.each([
  ['a small shop, paid out weekly', 300],
  ['a busy shop, paid out daily', 4000],
])('the shop in the books: %s (%i invoices)', (_, invoices) => {
  const settings: ConnectionSettings = { seed: 4242, invoices, asOf: '2024-05-15' };
  const expected = expectedSales(settings);
  const incomes = all(accountingSandbox, 'directIncomes', settings, 0);
  const keyOf = (d: Data) =>
    d.note.startsWith('Card payout ') ? d.note.slice('Card payout '.length) : `${d.issueDate.slice(0, 10)}|${d.currency}`;
  const isShop = (d: Data) => /^(Card payout |Takings banked)/.test(d.note ?? '');
  const shop = new Map(incomes.filter(isShop).map((d) => [keyOf(d), d]));

  it('records every payout and the takings banked as sales: takings with their tax, less any fees, on the day paid, in the currency', () => {
    expect(expected.filter((e) => e.kind === 'card').length).toBeGreaterThan(invoices > 1000 ? 1000 : 100);
    expect(expected.filter((e) => e.kind === 'banked').length).toBeGreaterThan(invoices > 1000 ? 500 : 40);
    expect(shop.size).toBe(expected.length);
    for (const want of expected) {
      const income = shop.get(want.id)!;
      expect(income, want.id).toBeDefined();
      const [sales, fees] = income.lineItems;
      expect(income.lineItems).toHaveLength(want.kind === 'card' ? 2 : 1);
      expect({
        date: income.issueDate.slice(0, 10),
        currency: income.currency,
        total: cents(income.totalAmount),
        takings: cents(sales.totalAmount),
        tax: cents(sales.taxAmount),
        fees: fees ? -cents(fees.totalAmount) : 0,
      }).toEqual({
        date: want.date,
        currency: want.currency,
        total: want.amount,
        takings: want.takings,
        tax: want.tax,
        fees: want.fees,
      });
      expect(cents(sales.subTotal) + cents(sales.taxAmount)).toBe(cents(sales.totalAmount));
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

  it('keeps what was paid in as it was at later syncs', () => {
    const later = all(accountingSandbox, 'directIncomes', settings, 2).filter(isShop);
    expect(later).toEqual([...shop.values()]);
  });
});
