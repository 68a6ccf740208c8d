import { defined, num, str, type Data } from '../source-kit.js';
import { xeroDate, xeroInstant, type XeroRecord } from './xero-api.js';

/*
 * Xero's documents in Codat's shapes (invoices, bills and the two credit notes, with their lines and allocations), as
 * docs/connectors/xero.md tables them; the other records are in xero-records.ts.
 */

/** A document line of an invoice, bill or credit note. */
export function lineItem(line: XeroRecord, amountTypes: unknown): Data {
  const lineAmount = num(line.LineAmount) ?? 0;
  const tax = num(line.TaxAmount) ?? 0;
  // `Inclusive` line amounts already hold their tax; `Exclusive` and `NoTax` ones do not.
  const subTotal = amountTypes === 'Inclusive' ? lineAmount - tax : lineAmount;
  return defined({
    description: str(line.Description),
    unitAmount: num(line.UnitAmount) ?? 0,
    quantity: num(line.Quantity) ?? 0,
    discountPercentage: num(line.DiscountRate),
    discountAmount: num(line.DiscountAmount),
    subTotal,
    taxAmount: tax,
    totalAmount: subTotal + tax,
    // The account's id (what a write names it by); its code is not its name, and its name needs another call.
    accountRef: str(line.AccountID) ? { id: line.AccountID } : undefined,
    taxRateRef: str(line.TaxType) ? { id: line.TaxType, name: line.TaxType } : undefined,
    itemRef: line.Item?.ItemID ? defined({ id: line.Item.ItemID, name: str(line.Item.Name) ?? str(line.ItemCode) }) : undefined,
    trackingCategoryRefs: Array.isArray(line.Tracking)
      ? line.Tracking.filter((t: XeroRecord) => t.TrackingOptionID ?? t.TrackingCategoryID).map((t: XeroRecord) => ({
          id: String(t.TrackingOptionID ?? t.TrackingCategoryID),
          name: `${t.Name}: ${t.Option}`,
        }))
      : undefined,
  });
}

/**
 * What else was applied to a document, as Codat's payment allocations beside its payments (as Codat's own Sandbox
 * writes them; the allocation's `payment.id` is the other record's id): on a credit note, the invoices or bills it was
 * allocated to (`Allocations[]`, each dated when it was made); on an invoice or bill, the prepayments and overpayments
 * applied to it (`Prepayments[]`, `Overpayments[]`, dated by the prepayment or overpayment: Xero's document does not
 * say when it was applied). The credit notes applied to an invoice are not repeated on it: Xero's `CreditNotes[]` there
 * carries the credit note's own date, not the allocation's; the credit note's `Allocations[]` says both.
 */
function applied(x: XeroRecord): Data[] {
  const currency = str(x.CurrencyCode);
  const entry = (id: unknown, amount: unknown, date: unknown, note: string) => ({
    payment: defined({ id: str(id), note, paidOnDate: xeroDate(date), totalAmount: num(amount), currency }),
    allocation: defined({ allocatedOnDate: xeroDate(date), totalAmount: num(amount), currency }),
  });
  const list = (value: unknown): XeroRecord[] => (Array.isArray(value) ? value : []);
  return [
    ...list(x.Prepayments).map((p) => entry(p.PrepaymentID, p.AppliedAmount, p.Date, 'Prepayment')),
    ...list(x.Overpayments).map((o) => entry(o.OverpaymentID, o.AppliedAmount, o.Date, 'Overpayment')),
    ...list(x.Allocations).map((a) =>
      entry(a.Invoice?.InvoiceID, a.Amount, a.Date, `Allocated to ${str(a.Invoice?.InvoiceNumber) ?? ''}`.trim()),
    ),
  ].filter((a) => a.payment.id !== undefined && a.allocation.totalAmount !== undefined);
}

/** Payments applied to a document, as Codat's payment allocations, then what else was applied to it (`applied`). */
function allocationsOf(x: XeroRecord): Data[] | undefined {
  const all = [...(allocations(x.Payments, x.CurrencyCode) ?? []), ...applied(x)];
  return all.length > 0 ? all : undefined;
}

/** Payments applied to a document, as Codat's payment allocations. */
function allocations(payments: unknown, currency: unknown): Data[] | undefined {
  if (!Array.isArray(payments) || payments.length === 0) return undefined;
  return payments.map((p: XeroRecord) => ({
    payment: defined({
      id: str(p.PaymentID),
      reference: str(p.Reference),
      paidOnDate: xeroDate(p.Date),
      totalAmount: num(p.Amount),
      currency: str(currency),
    }),
    allocation: defined({ allocatedOnDate: xeroDate(p.Date), totalAmount: num(p.Amount), currency: str(currency) }),
  }));
}

/** ACCREC invoices → `invoices`. AUTHORISED with a payment is PartiallyPaid (Xero keeps it AUTHORISED until paid in full). */
export function invoiceRecord(x: XeroRecord): Data {
  const paid = (num(x.AmountPaid) ?? 0) + (num(x.AmountCredited) ?? 0) > 0;
  const status: Record<string, string> = {
    DRAFT: 'Draft',
    SUBMITTED: 'Submitted',
    AUTHORISED: paid ? 'PartiallyPaid' : 'Submitted',
    PAID: 'Paid',
    VOIDED: 'Void',
  };
  return defined({
    invoiceNumber: str(x.InvoiceNumber),
    customerRef: x.Contact?.ContactID ? defined({ id: x.Contact.ContactID, companyName: str(x.Contact.Name) }) : undefined,
    issueDate: xeroDate(x.Date) ?? `${(xeroInstant(x.UpdatedDateUTC) ?? '1970-01-01').slice(0, 10)}T00:00:00`,
    dueDate: xeroDate(x.DueDate),
    paidOnDate: xeroDate(x.FullyPaidOnDate),
    currency: str(x.CurrencyCode),
    currencyRate: num(x.CurrencyRate),
    lineItems: Array.isArray(x.LineItems) ? x.LineItems.map((l: XeroRecord) => lineItem(l, x.LineAmountTypes)) : undefined,
    paymentAllocations: allocationsOf(x),
    totalDiscount: num(x.TotalDiscount),
    subTotal: num(x.SubTotal),
    totalTaxAmount: num(x.TotalTax) ?? 0,
    totalAmount: num(x.Total) ?? 0,
    amountDue: num(x.AmountDue) ?? 0,
    status: status[x.Status] ?? 'Unknown',
    note: str(x.Reference),
  });
}

/** ACCPAY invoices → `bills`. Awaiting approval (SUBMITTED) is still a Draft to the business. */
export function billRecord(x: XeroRecord): Data {
  const paid = (num(x.AmountPaid) ?? 0) + (num(x.AmountCredited) ?? 0) > 0;
  const status: Record<string, string> = {
    DRAFT: 'Draft',
    SUBMITTED: 'Draft',
    AUTHORISED: paid ? 'PartiallyPaid' : 'Open',
    PAID: 'Paid',
    VOIDED: 'Void',
  };
  return defined({
    reference: str(x.InvoiceNumber),
    supplierRef: x.Contact?.ContactID ? defined({ id: x.Contact.ContactID, supplierName: str(x.Contact.Name) }) : undefined,
    issueDate: xeroDate(x.Date) ?? `${(xeroInstant(x.UpdatedDateUTC) ?? '1970-01-01').slice(0, 10)}T00:00:00`,
    dueDate: xeroDate(x.DueDate),
    currency: str(x.CurrencyCode),
    currencyRate: num(x.CurrencyRate),
    lineItems: Array.isArray(x.LineItems) ? x.LineItems.map((l: XeroRecord) => lineItem(l, x.LineAmountTypes)) : undefined,
    status: status[x.Status] ?? 'Unknown',
    subTotal: num(x.SubTotal) ?? 0,
    taxAmount: num(x.TotalTax) ?? 0,
    totalAmount: num(x.Total) ?? 0,
    amountDue: num(x.AmountDue),
    note: str(x.Reference),
    paymentAllocations: allocationsOf(x),
  });
}

function creditNoteStatus(x: XeroRecord): string {
  const total = num(x.Total) ?? 0;
  // Xero leaves RemainingCredit out of a credit note nothing was allocated from: all of it remains.
  const remaining = num(x.RemainingCredit) ?? total;
  const status: Record<string, string> = {
    DRAFT: 'Draft',
    SUBMITTED: 'Submitted',
    AUTHORISED: remaining < total ? 'PartiallyPaid' : 'Submitted',
    PAID: 'Paid',
    VOIDED: 'Void',
  };
  return status[x.Status] ?? 'Unknown';
}

function creditNoteFields(x: XeroRecord): Data {
  return {
    totalAmount: num(x.Total) ?? 0,
    totalDiscount: num(x.TotalDiscount) ?? 0,
    subTotal: num(x.SubTotal) ?? 0,
    totalTaxAmount: num(x.TotalTax) ?? 0,
    discountPercentage: 0,
    remainingCredit: num(x.RemainingCredit) ?? num(x.Total) ?? 0,
    status: creditNoteStatus(x),
    issueDate: xeroDate(x.Date),
    allocatedOnDate: xeroDate(x.FullyPaidOnDate),
    currency: str(x.CurrencyCode),
    currencyRate: num(x.CurrencyRate),
    lineItems: Array.isArray(x.LineItems) ? x.LineItems.map((l: XeroRecord) => lineItem(l, x.LineAmountTypes)) : undefined,
    paymentAllocations: allocationsOf(x),
    note: str(x.Reference),
  };
}

/** ACCRECCREDIT credit notes → `creditNotes`. */
export function creditNoteRecord(x: XeroRecord): Data {
  return defined({
    creditNoteNumber: str(x.CreditNoteNumber),
    customerRef: x.Contact?.ContactID ? defined({ id: x.Contact.ContactID, companyName: str(x.Contact.Name) }) : undefined,
    ...creditNoteFields(x),
  });
}

/** ACCPAYCREDIT credit notes → `billCreditNotes`. */
export function billCreditNoteRecord(x: XeroRecord): Data {
  return defined({
    billCreditNoteNumber: str(x.CreditNoteNumber),
    supplierRef: x.Contact?.ContactID ? defined({ id: x.Contact.ContactID, supplierName: str(x.Contact.Name) }) : undefined,
    ...creditNoteFields(x),
  });
}
