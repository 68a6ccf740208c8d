import { describe, expect, it } from 'vitest';
import { ACCOUNTING_DATA_TYPES, type DataType } from '../../../../src/codat-model/data-types.js';
import { accountingSandbox } from '../../../../src/connectors/sandbox/accounting/index.js';
import { commerceSandbox } from '../../../../src/connectors/sandbox/commerce/index.js';
import { settings } from './helpers.js';

function count(dataType: DataType, invoices: number, epoch = 0, which?: (data: Record<string, any>) => boolean): number {
  let n = 0;
  let last = '';
  for (const r of accountingSandbox.dataTypes.get(dataType)!.fetch({ settings: settings(invoices), epoch })) {
    if (!(r.id > last)) throw new Error(`${dataType} out of order at ${r.id}`);
    last = r.id;
    if (!which || which(r.data)) n++;
  }
  return n;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** The card payouts the same company's Commerce Sandbox makes: the books have one direct income each. */
function payouts(invoices: number): number {
  let n = 0;
  for (const r of commerceSandbox.dataTypes.get('commerce-transactions')!.fetch({ settings: settings(invoices), epoch: 0 }))
    if (r.data.type === 'Payout') n++;
  return n;
}

describe('sizes', () => {
  it.each([200, 1_000, 20_000])('%i invoices: the base set has the documented size of each scaled type', (n) => {
    expect(count('invoices', n)).toBe(n);
    expect(count('customers', n)).toBe(clamp(Math.round(n / 20), 20, 50_000));
    expect(count('suppliers', n)).toBe(clamp(Math.round(n / 40), 10, 25_000));
    expect(count('bills', n)).toBe(Math.round(n / 2));
    expect(count('items', n)).toBe(clamp(Math.round(2 * Math.sqrt(n)), 12, 2_000));
    expect(count('directCosts', n)).toBe(Math.max(24, Math.round(n / 10)));
    // Besides the shop's: a direct income for each card payout, and one for each period's takings banked
    // (test/connectors/sandbox/shop-in-the-books.test.ts works those out).
    const shop = (d: Record<string, any>) => /^(Card payout |Takings banked)/.test(d.note ?? '');
    expect(count('directIncomes', n, 0, (d) => !shop(d))).toBe(Math.max(12, Math.round(n / 40)));
    expect(count('directIncomes', n, 0, (d) => /^Card payout /.test(d.note ?? ''))).toBe(payouts(n));
    expect(count('transfers', n)).toBe(4 * 48 * Math.max(1, Math.round(n / 200 / (4 * 48))));
    if (n <= 1_000) {
      const payments = count('payments', n);
      expect(payments / n).toBeGreaterThan(0.8);
      expect(payments / n).toBeLessThan(1.3);
    }
  });

  it('every data type has records at 200 invoices, and the derived types scale with the documents', () => {
    const small = Object.fromEntries(ACCOUNTING_DATA_TYPES.map((t) => [t, count(t, 200)]));
    for (const t of ACCOUNTING_DATA_TYPES) expect(small[t], t).toBeGreaterThan(0);
    expect(small.company).toBe(1);
    for (const t of ['profitAndLoss', 'balanceSheet', 'cashFlowStatement']) expect(small[t]).toBe(48);
    expect(small.chartOfAccounts).toBe(34);
    expect(small.bankAccounts).toBe(5);
    const larger = count('journalEntries', 2_000);
    expect(larger / small.journalEntries).toBeGreaterThan(5);
    expect(larger / 2_000).toBeGreaterThan(3);
  });

  it('reference data grows by at least one record per epoch', () => {
    for (const t of [
      'chartOfAccounts',
      'taxRates',
      'trackingCategories',
      'paymentMethods',
      'journals',
      'bankAccounts',
      'items',
    ] as DataType[]) {
      expect(count(t, 200, 2), t).toBeGreaterThan(count(t, 200, 0));
    }
  });
});
