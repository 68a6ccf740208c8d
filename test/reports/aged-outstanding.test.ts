import { describe, expect, it } from 'vitest';
import { agedFacts } from '../../src/reports/aged/aged-combine.js';
import { agedRows, outstandingAmounts } from '../../src/reports/aged/aged-grouping.js';

type Inputs = Parameters<typeof agedFacts>[1];

/*
 * What is outstanding as at a report date (docs/lending/aged-reports.md), from records in the shapes the platforms
 * serve (the Sandbox's allocations on both sides, Xero's payments on the invoice and on the payment, QuickBooks'
 * amounts only on the payment), with each figure worked out by hand.
 */

const alpha = { id: 'c1', companyName: 'Alpha' };
// The Sandbox's way: the invoice lists the payment and the credit note applied to it; the payment links the invoice;
// the credit note lists the invoice it was applied to.
const sandbox = {
  documents: [
    {
      id: 'inv1',
      customerRef: alpha,
      currency: 'GBP',
      issueDate: '2024-03-10T00:00:00',
      totalAmount: 100,
      status: 'PartiallyPaid',
      paymentAllocations: [
        {
          payment: { id: 'p1', paidOnDate: '2024-03-20T00:00:00' },
          allocation: { totalAmount: 30, allocatedOnDate: '2024-03-20T00:00:00' },
        },
        { payment: { id: 'cn1' }, allocation: { totalAmount: 20, allocatedOnDate: '2024-03-25T00:00:00' } },
      ],
    },
    { id: 'inv2', customerRef: alpha, currency: 'GBP', issueDate: '2024-03-01', totalAmount: 10, status: 'Draft' },
    { id: 'inv3', customerRef: alpha, currency: 'GBP', issueDate: '2024-03-01', totalAmount: 10, status: 'Void' },
    { id: 'inv4', customerRef: alpha, currency: 'GBP', issueDate: '2024-04-02', totalAmount: 10, status: 'Submitted' },
  ],
  credits: [
    {
      id: 'cn1',
      customerRef: alpha,
      currency: 'GBP',
      issueDate: '2024-03-05T00:00:00',
      totalAmount: 50,
      status: 'PartiallyPaid',
      paymentAllocations: [{ payment: { id: 'inv1' }, allocation: { totalAmount: 20, allocatedOnDate: '2024-03-25T00:00:00' } }],
    },
  ],
  payments: [
    {
      id: 'p1',
      customerRef: alpha,
      currency: 'GBP',
      date: '2024-03-20T00:00:00',
      lines: [{ amount: 30, links: [{ type: 'Invoice', id: 'inv1', amount: -30 }] }],
    },
  ],
};

const asAt = (reportDate: string, inputs: Inputs = sandbox) =>
  outstandingAmounts(agedFacts('debtors', inputs), reportDate).map((a) => [a.detail, a.date, a.amount, a.currency, a.counterpartyId]);

describe('what is outstanding as at the report date', () => {
  it("takes each invoice's total less what was applied to it by then, and each credit note's unused credit, negative", () => {
    expect(asAt('2024-03-31')).toEqual([
      ['Invoices', '2024-03-10', '50', 'GBP', 'c1'],
      ['CreditNotes', '2024-03-05', '-30', 'GBP', 'c1'],
    ]);
    // Before the credit note was applied; before the payment; before the invoice was issued.
    expect(asAt('2024-03-22')).toEqual([
      ['Invoices', '2024-03-10', '70', 'GBP', 'c1'],
      ['CreditNotes', '2024-03-05', '-50', 'GBP', 'c1'],
    ]);
    expect(asAt('2024-03-15')).toEqual([
      ['Invoices', '2024-03-10', '100', 'GBP', 'c1'],
      ['CreditNotes', '2024-03-05', '-50', 'GBP', 'c1'],
    ]);
    expect(asAt('2024-03-07')).toEqual([['CreditNotes', '2024-03-05', '-50', 'GBP', 'c1']]);
  });

  it('counts a payment once when both the invoice and the payment show it (Xero)', () => {
    const xero = {
      documents: [
        {
          id: 'inv5',
          customerRef: alpha,
          issueDate: '2024-02-20',
          totalAmount: 200.1,
          status: 'PartiallyPaid',
          paymentAllocations: [
            { payment: { id: 'p3', paidOnDate: '2024-03-01' }, allocation: { totalAmount: 80.05, allocatedOnDate: '2024-03-01' } },
          ],
        },
      ],
      credits: [],
      payments: [
        {
          id: 'p3',
          customerRef: alpha,
          date: '2024-03-01',
          lines: [{ amount: 80.05, links: [{ type: 'Invoice', id: 'inv5', amount: -80.05 }] }],
        },
      ],
    };
    // No currency named: ISO 4217's "no currency".
    expect(asAt('2024-03-31', xero)).toEqual([['Invoices', '2024-02-20', '120.05', 'XXX', 'c1']]);
  });

  it('takes the amounts from the payment where the invoice names only the payment (QuickBooks), and money on account', () => {
    const quickbooks = {
      documents: [
        {
          id: 'inv6',
          customerRef: alpha,
          currency: 'USD',
          issueDate: '2024-01-05',
          totalAmount: 75,
          status: 'PartiallyPaid',
          paymentAllocations: [{ payment: { id: 'p4', currency: 'USD' }, allocation: { currency: 'USD' } }],
        },
      ],
      credits: [],
      payments: [
        {
          id: 'p4',
          customerRef: alpha,
          currency: 'USD',
          date: '2024-02-10',
          lines: [
            { amount: 25, links: [{ type: 'Invoice', id: 'inv6', amount: -25 }] },
            { amount: 15, links: [{ type: 'PaymentOnAccount', amount: -15 }] },
          ],
        },
      ],
    };
    expect(asAt('2024-03-31', quickbooks)).toEqual([
      ['Invoices', '2024-01-05', '50', 'USD', 'c1'],
      ['Payments', '2024-02-10', '-15', 'USD', 'c1'],
    ]);
    // Before the payment: the whole invoice, and nothing on account yet.
    expect(asAt('2024-02-09', quickbooks)).toEqual([['Invoices', '2024-01-05', '75', 'USD', 'c1']]);
  });

  it("reads the creditors' side by its own names: bills, supplier, bill payments", () => {
    const supplier = { id: 's1', supplierName: 'Supplier Ltd' };
    const amounts = outstandingAmounts(
      agedFacts('creditors', {
        documents: [{ id: 'b1', supplierRef: supplier, currency: 'EUR', issueDate: '2024-03-01', totalAmount: 40, status: 'Open' }],
        credits: [],
        payments: [
          {
            id: 'bp1',
            supplierRef: supplier,
            currency: 'EUR',
            date: '2024-03-02',
            lines: [{ amount: 15, links: [{ type: 'Bill', id: 'b1', amount: -15 }] }],
          },
        ],
      }),
      '2024-03-31',
    );
    expect(amounts).toEqual([{ recordId: 'b1', counterpartyId: 's1', currency: 'EUR', date: '2024-03-01', detail: 'Bills', amount: '25' }]);
  });
});

describe('what one maker took off one record', () => {
  const party = { id: 'c1', companyName: 'Alpha' };
  const invoice = { id: 'inv', customerRef: party, currency: 'GBP', issueDate: '2024-03-01', totalAmount: 100, status: 'PartiallyPaid' };
  const credit = { id: 'cn', customerRef: party, currency: 'GBP', issueDate: '2024-03-02', totalAmount: 50, status: 'PartiallyPaid' };
  const part = (id: string, amount: number, day: string) => ({
    payment: { id, paidOnDate: day },
    allocation: { totalAmount: amount, allocatedOnDate: day },
  });

  it('adds up the parts one record shows: two lines of a payment, two allocations of a credit note', () => {
    const amounts = (inputs: Inputs) => outstandingAmounts(agedFacts('debtors', inputs), '2024-03-31').map((a) => [a.recordId, a.amount]);
    const payment = {
      id: 'p',
      customerRef: party,
      currency: 'GBP',
      date: '2024-03-05',
      lines: [
        { amount: 10, links: [{ type: 'Invoice', id: 'inv', amount: -10 }] },
        { amount: 15, links: [{ type: 'Invoice', id: 'inv', amount: -15 }] },
      ],
    };
    expect(amounts({ documents: [invoice], credits: [], payments: [payment] })).toEqual([['inv', '75']]);
    // The credit note lists its two parts; the invoice lists none of them (Xero): both records are reduced by both.
    const parts = [part('inv', 20, '2024-03-10'), part('inv', 5, '2024-03-12')];
    expect(amounts({ documents: [invoice], credits: [{ ...credit, paymentAllocations: parts }], payments: [] })).toEqual([
      ['inv', '75'],
      ['cn', '-25'],
    ]);
    // Both records list both parts (the Sandbox): each part counts once.
    const listed = { ...invoice, paymentAllocations: [part('cn', 20, '2024-03-10'), part('cn', 5, '2024-03-12')] };
    expect(amounts({ documents: [listed], credits: [{ ...credit, paymentAllocations: parts }], payments: [] })).toEqual([
      ['inv', '75'],
      ['cn', '-25'],
    ]);
    // A payment's links are the better place: the invoice's own record of the same payment is not counted again.
    const paid = { ...invoice, paymentAllocations: [part('p', 25, '2024-03-05')] };
    expect(amounts({ documents: [paid], credits: [], payments: [payment] })).toEqual([['inv', '75']]);
  });
});

describe('exactness at any size', () => {
  const party = { id: 'c1', companyName: 'Alpha' };
  const invoice = (id: string, totalAmount: number) => ({
    id,
    customerRef: party,
    currency: 'GBP',
    issueDate: '2024-03-01',
    totalAmount,
    status: 'Submitted',
  });
  const total = (documents: object[]) => {
    const [row] = agedRows(agedFacts('debtors', { documents, credits: [], payments: [] }), {
      reportDate: '2024-03-31',
      numberOfPeriods: 1,
      periodLengthDays: 30,
    });
    return row.currencies[0].periods[0].amount;
  };

  it('adds cents exactly where doubles would not (0.1 + 0.2)', () => {
    expect(total([invoice('a', 0.1), invoice('b', 0.2)])).toBe(0.3);
  });

  it('adds amounts past 2^53 units exactly, rounding only the served number', () => {
    // 2 × 50,000,000,000,000.01 at two places is past 2^53 units: the bigint path, rounded once at the end.
    const big = 50000000000000.01;
    expect(agedFacts('debtors', { documents: [invoice('a', big), invoice('b', big)], credits: [], payments: [] }).exact).toBeUndefined();
    expect(total([invoice('a', big), invoice('b', big)])).toBe(Number('100000000000000.02'));
    expect(total([invoice('a', big), invoice('b', -49999999999999.98)])).toBe(0.03);
    expect(total([invoice('a', 0.1), invoice('b', 0.2)])).toBe(0.3);
  });
});
