import { describe, expect, it } from 'vitest';
import { agedFacts } from '../../src/reports/aged/aged-facts.js';
import { outstandingAmounts } from '../../src/reports/aged/aged-grouping.js';

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
