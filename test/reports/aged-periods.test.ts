import { describe, expect, it } from 'vitest';
import { agedRows } from '../../src/reports/aged/aged-grouping.js';
import { agedFacts } from '../../src/reports/aged/aged-combine.js';
import { agingParameters, agingPeriods, periodIndex } from '../../src/reports/aged/aging-periods.js';
import { ApiError } from '../../src/http/api-error.js';

/*
 * The periods and the grouping of the aged debtors and creditors reports (issue 30's rules, docs/lending/aged-reports.md),
 * checked against dates and sums worked out by hand from those rules.
 */

const march = { reportDate: '2024-03-31', numberOfPeriods: 4, periodLengthDays: 30 };

describe('aging periods', () => {
  it('counts back from the report date in whole periods, newest first, the last open-ended', () => {
    // 2024 is a leap year: 30 days before 31 March is 1 March, 60 is 31 January, 90 is 1 January.
    expect(agingPeriods(march)).toEqual([
      { fromDate: '2024-03-01', toDate: '2024-03-31' },
      { fromDate: '2024-01-31', toDate: '2024-03-01' },
      { fromDate: '2024-01-01', toDate: '2024-01-31' },
      { fromDate: '0001-01-01', toDate: '2024-01-01' },
    ]);
    expect(agingPeriods({ reportDate: '2024-03-31', numberOfPeriods: 1, periodLengthDays: 7 })).toEqual([
      { fromDate: '0001-01-01', toDate: '2024-03-31' },
    ]);
  });

  it('puts a day in the period whose end it reaches: the report date in the newest, a period start in the one before', () => {
    const at = (date: string) => periodIndex(date, march);
    // 1 March starts (exclusively) the newest period: the one before; 31 January and 1 January likewise.
    expect([at('2024-03-31'), at('2024-03-02'), at('2024-03-01'), at('2024-01-31'), at('2024-01-01'), at('1999-12-31')]).toEqual([
      0, 0, 1, 2, 3, 3,
    ]);
    // Not yet issued as at the report date.
    expect(at('2024-04-01')).toBeUndefined();
  });

  it('reaches back no further than 0001-01-01, however many long periods are asked', () => {
    const periods = agingPeriods({ reportDate: '0500-06-30', numberOfPeriods: 120, periodLengthDays: 3650 });
    expect(periods).toHaveLength(120);
    expect(periods.at(-1)).toEqual({ fromDate: '0001-01-01', toDate: '0001-01-01' });
    // (Python's datetime, proleptic Gregorian as JavaScript's dates: 0500-06-30 less 3,650 and 7,300 days.)
    expect(periods[1]).toEqual({ fromDate: '0480-07-04', toDate: '0490-07-02' });
  });
});

describe('aging parameters', () => {
  it('defaults to today, 4 periods of 30 days, and takes a date as a day or that day at midnight', () => {
    expect(agingParameters({}, '2024-05-06')).toEqual({ reportDate: '2024-05-06', numberOfPeriods: 4, periodLengthDays: 30 });
    expect(agingParameters({ reportDate: '2023-12-31T00:00:00Z', numberOfPeriods: '12', periodLengthDays: '7' }, '2024-05-06')).toEqual({
      reportDate: '2023-12-31',
      numberOfPeriods: 12,
      periodLengthDays: 7,
    });
    expect(agingParameters({ numberOfPeriods: '120', periodLengthDays: '3650' }, '2024-05-06')).toMatchObject({
      numberOfPeriods: 120,
      periodLengthDays: 3650,
    });
  });

  it("takes the report date as `date` too, as Codat's Lending SDK 4.x sends it, and refuses the two naming different days", () => {
    expect(agingParameters({ date: '2024-01-31T00:00:00.000Z' }, '2024-05-06').reportDate).toBe('2024-01-31');
    expect(agingParameters({ date: '2024-01-31', reportDate: '2024-01-31' }, '2024-05-06').reportDate).toBe('2024-01-31');
    expect(() => agingParameters({ date: '2024-01-30', reportDate: '2024-01-31' }, '2024-05-06')).toThrow(ApiError);
  });

  it('answers 400 naming each parameter out of bounds or not a date', () => {
    const refused = (query: Record<string, string>) => {
      try {
        agingParameters(query, '2024-05-06');
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        const error = err as ApiError;
        expect(error.statusCode).toBe(400);
        return error.validation?.map((v) => v.itemId);
      }
      throw new Error(`accepted ${JSON.stringify(query)}`);
    };
    expect(refused({ numberOfPeriods: '0' })).toEqual(['numberOfPeriods']);
    expect(refused({ numberOfPeriods: '121' })).toEqual(['numberOfPeriods']);
    expect(refused({ numberOfPeriods: '1.5' })).toEqual(['numberOfPeriods']);
    expect(refused({ periodLengthDays: '3651' })).toEqual(['periodLengthDays']);
    expect(refused({ periodLengthDays: 'thirty' })).toEqual(['periodLengthDays']);
    expect(refused({ reportDate: '2023-02-29' })).toEqual(['reportDate']);
    expect(refused({ reportDate: '31-03-2024' })).toEqual(['reportDate']);
    expect(refused({ reportDate: '0000-12-31' })).toEqual(['reportDate']);
    expect(refused({ reportDate: '2024-03-31T12:00:00Z', numberOfPeriods: '-1' })).toEqual(['reportDate', 'numberOfPeriods']);
  });
});

describe('aged rows', () => {
  const beta = { id: 'c2', companyName: 'beta Ltd' };
  const invoice = (id: string, customerRef: object, currency: string, issueDate: string, totalAmount: number) => ({
    id,
    customerRef,
    currency,
    issueDate,
    totalAmount,
    status: 'Submitted',
  });
  const facts = agedFacts('debtors', {
    documents: [
      invoice('i1', beta, 'GBP', '2024-03-31', 100.1),
      invoice('i2', beta, 'GBP', '2024-03-15', 0.2),
      invoice('i3', { id: 'c1', companyName: 'Alpha plc' }, 'GBP', '2024-01-15', 12),
      // Nothing outstanding, or issued after the report date: no row.
      invoice('i4', { id: 'c3', companyName: 'Gamma' }, 'GBP', '2024-02-01', 0),
      invoice('i5', { id: 'c4', companyName: 'Delta' }, 'GBP', '2024-04-01', 9),
    ],
    credits: [{ ...invoice('cn1', beta, 'GBP', '2024-03-01', 30) }],
    payments: [{ id: 'p1', customerRef: beta, currency: 'EUR', date: '2020-01-01', lines: [{ amount: 5.5, links: [] }] }],
  });
  // The four periods of March's report (worked out above), each [Invoices, CreditNotes, Payments, amount]; zeros where
  // nothing is given.
  const edges = [
    ['2024-03-01', '2024-03-31'],
    ['2024-01-31', '2024-03-01'],
    ['2024-01-01', '2024-01-31'],
    ['0001-01-01', '2024-01-01'],
  ];
  const periods = (given: Record<number, [number, number, number, number]>) =>
    edges.map(([fromDate, toDate], k) => {
      const [invoices, credits, payments, amount] = given[k] ?? [0, 0, 0, 0];
      const details = [
        { name: 'Invoices', amount: invoices },
        { name: 'CreditNotes', amount: credits },
        { name: 'Payments', amount: payments },
      ];
      return { fromDate, toDate, amount, details };
    });

  it('lists each counterparty and currency with every period, zeros included, each period the sum of its details', () => {
    expect(agedRows(facts, march)).toEqual([
      {
        counterpartyId: 'c1',
        counterpartyName: 'Alpha plc',
        currencies: [{ currency: 'GBP', periods: periods({ 2: [12, 0, 0, 12] }) }],
      },
      {
        counterpartyId: 'c2',
        counterpartyName: 'beta Ltd',
        currencies: [
          { currency: 'EUR', periods: periods({ 3: [0, 0, -5.5, -5.5] }) },
          { currency: 'GBP', periods: periods({ 0: [100.3, 0, 0, 100.3], 1: [0, -30, 0, -30] }) },
        ],
      },
    ]);
  });

  it("names the creditors' details and counterparties by the suppliers' own records", () => {
    const supplierRef = { id: 's1', supplierName: 'On the bill' };
    const creditors = agedFacts('creditors', {
      counterparties: [{ id: 's1', supplierName: 'Supplier Ltd' }],
      documents: [],
      credits: [],
      payments: [{ id: 'bp1', supplierRef, currency: 'USD', date: '2024-03-31', lines: [{ amount: 1 }] }],
    });
    const [row] = agedRows(creditors, march);
    expect(row.counterpartyName).toBe('Supplier Ltd');
    expect(row.currencies[0].periods[0].details).toEqual([
      { name: 'Bills', amount: 0 },
      { name: 'BillCreditNotes', amount: 0 },
      { name: 'BillPayments', amount: -1 },
    ]);
  });
});
