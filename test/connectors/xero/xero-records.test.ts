import { describe, expect, it } from 'vitest';
import { financialYearStart, invoiceRecord, creditNoteRecord } from '../../../src/connectors/xero/xero-records.js';
import { xeroDate, xeroInstant } from '../../../src/connectors/xero/xero-api.js';

/** The parts of the Xero mapping with rules of their own, on Xero's records as its API documents them. */
describe('Xero records', () => {
  it("reads Xero's /Date(…)/ timestamps and dates", () => {
    expect(xeroInstant('/Date(1573755038314+0000)/')).toBe('2019-11-14T18:10:38Z');
    expect(xeroInstant('/Date(1552326816230)/')).toBe('2019-03-11T17:53:36Z');
    expect(xeroDate('/Date(1518652800000+0000)/')).toBe('2018-02-15T00:00:00');
    expect(xeroDate('2018-02-15T00:00:00')).toBe('2018-02-15T00:00:00');
    expect(xeroInstant('not a date')).toBeUndefined();
  });

  it('starts the financial year the day after the latest year end', () => {
    const today = new Date('2025-11-25T10:00:00Z');
    expect(financialYearStart(31, 3, today)).toBe('2025-04-01T00:00:00');
    expect(financialYearStart(31, 12, today)).toBe('2025-01-01T00:00:00');
    expect(financialYearStart(30, 11, today)).toBe('2024-12-01T00:00:00');
    // A year end of 29 February is the 28th in a year without one.
    expect(financialYearStart(29, 2, today)).toBe('2025-03-01T00:00:00');
    expect(financialYearStart(29, 2, new Date('2024-06-01T00:00:00Z'))).toBe('2024-03-01T00:00:00');
    // On the year end's own day, the year is still under way.
    expect(financialYearStart(31, 3, new Date('2025-03-31T15:00:00Z'))).toBe('2024-04-01T00:00:00');
  });

  it('maps statuses: part paid, voided, and inclusive line amounts', () => {
    const base = { Type: 'ACCREC', Total: 115, TotalTax: 15, SubTotal: 100, Date: '/Date(1518652800000+0000)/' };
    expect(invoiceRecord({ ...base, Status: 'AUTHORISED', AmountPaid: 0 }).status).toBe('Submitted');
    expect(invoiceRecord({ ...base, Status: 'AUTHORISED', AmountPaid: 15 }).status).toBe('PartiallyPaid');
    expect(invoiceRecord({ ...base, Status: 'VOIDED' }).status).toBe('Void');
    const inclusive = invoiceRecord({
      ...base,
      Status: 'DRAFT',
      LineAmountTypes: 'Inclusive',
      LineItems: [{ Quantity: 1, UnitAmount: 115, LineAmount: 115, TaxAmount: 15, AccountID: 'a1', TaxType: 'OUTPUT2' }],
    });
    expect(inclusive.lineItems).toEqual([
      expect.objectContaining({ subTotal: 100, taxAmount: 15, totalAmount: 115, accountRef: { id: 'a1' } }),
    ]);
    // Nothing allocated from a credit note: Xero leaves RemainingCredit out, and all of it remains.
    expect(creditNoteRecord({ Type: 'ACCRECCREDIT', Status: 'AUTHORISED', Total: 50 })).toMatchObject({
      remainingCredit: 50,
      status: 'Submitted',
    });
  });
});
