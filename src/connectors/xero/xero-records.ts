import { defined, num, str, type Data } from '../source-kit.js';
import { xeroDate, xeroInstant, type XeroRecord } from './xero-api.js';
import { lineItem } from './xero-documents.js';
import { clockFor } from '../../lib/clock.js';

/*
 * Xero's records in Codat's shapes, field by field as docs/connectors/xero.md tables them. Each mapping takes one
 * record as Xero's Accounting API answers it (PascalCase, `/Date(…)/` dates) and returns Codat's fields; `id` and
 * `sourceModifiedDate` are added by the reader.
 */

export type { XeroRecord } from './xero-api.js';

// The documents' mappings, read through this module by the platform's declaration.
export { billCreditNoteRecord, billRecord, creditNoteRecord, invoiceRecord } from './xero-documents.js';

const CONTACT_STATUS: Record<string, string> = { ACTIVE: 'Active', ARCHIVED: 'Archived', GDPRREQUEST: 'Archived' };

/** Xero's POBOX address is where post (and invoices) go; STREET is where goods go. */
function addresses(x: XeroRecord): Data[] | undefined {
  if (!Array.isArray(x.Addresses)) return undefined;
  const lines = x.Addresses.filter((a: XeroRecord) => a.AddressLine1 || a.City || a.PostalCode || a.Country);
  if (lines.length === 0) return undefined;
  return lines.map((a: XeroRecord) =>
    defined({
      type: a.AddressType === 'POBOX' ? 'Billing' : a.AddressType === 'STREET' ? 'Delivery' : 'Unknown',
      line1: str(a.AddressLine1),
      line2: [a.AddressLine2, a.AddressLine3, a.AddressLine4].filter((l) => typeof l === 'string' && l !== '').join(', ') || undefined,
      city: str(a.City),
      region: str(a.Region),
      country: str(a.Country),
      postalCode: str(a.PostalCode),
    }),
  );
}

function phone(x: XeroRecord): string | undefined {
  const phones: XeroRecord[] = Array.isArray(x.Phones) ? x.Phones : [];
  const first = phones.find((p) => p.PhoneType === 'DEFAULT' && p.PhoneNumber) ?? phones.find((p) => p.PhoneNumber);
  if (!first) return undefined;
  return [first.PhoneCountryCode, first.PhoneAreaCode, first.PhoneNumber].filter((p) => typeof p === 'string' && p !== '').join(' ');
}

function contactName(x: XeroRecord): string | undefined {
  return [x.FirstName, x.LastName].filter((n) => typeof n === 'string' && n !== '').join(' ') || undefined;
}

/**
 * Whether a contact is a customer or a supplier to Codat: Xero marks a contact once it has a sales or purchase
 * document (`IsCustomer`, `IsSupplier`); a contact with neither yet is both, as a new contact can become either.
 */
export const isCustomer = (x: XeroRecord): boolean => x.IsCustomer === true || x.IsSupplier !== true;
export const isSupplier = (x: XeroRecord): boolean => x.IsSupplier === true || x.IsCustomer !== true;

/** Contacts → `customers`. */
export function customerRecord(x: XeroRecord): Data {
  return defined({
    customerName: str(x.Name),
    contactName: contactName(x),
    emailAddress: str(x.EmailAddress),
    phone: phone(x),
    defaultCurrency: str(x.DefaultCurrency),
    addresses: addresses(x),
    contacts: Array.isArray(x.ContactPersons)
      ? x.ContactPersons.map((p: XeroRecord) => defined({ name: contactName(p), email: str(p.EmailAddress), status: 'Active' }))
      : undefined,
    registrationNumber: str(x.CompanyNumber),
    taxNumber: str(x.TaxNumber),
    status: CONTACT_STATUS[x.ContactStatus] ?? 'Unknown',
  });
}

/** Contacts → `suppliers`. */
export function supplierRecord(x: XeroRecord): Data {
  return defined({
    supplierName: str(x.Name),
    contactName: contactName(x),
    emailAddress: str(x.EmailAddress),
    phone: phone(x),
    addresses: addresses(x),
    registrationNumber: str(x.CompanyNumber),
    taxNumber: str(x.TaxNumber),
    status: CONTACT_STATUS[x.ContactStatus] ?? 'Unknown',
    defaultCurrency: str(x.DefaultCurrency),
  });
}

const ACCOUNT_CLASS: Record<string, string> = {
  ASSET: 'Asset',
  EQUITY: 'Equity',
  EXPENSE: 'Expense',
  LIABILITY: 'Liability',
  REVENUE: 'Income',
};
const STATUS: Record<string, string> = { ACTIVE: 'Active', ARCHIVED: 'Archived' };

/** Accounts → `chartOfAccounts`; the category is Xero's class and account type, e.g. `Asset.Bank`. */
export function accountRecord(x: XeroRecord): Data {
  const type = ACCOUNT_CLASS[x.Class] ?? 'Unknown';
  const category = `${type}.${String(x.Type ?? 'Unknown')
    .toLowerCase()
    .replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase())}`;
  return defined({
    nominalCode: str(x.Code),
    name: str(x.Name),
    description: str(x.Description),
    fullyQualifiedCategory: category,
    fullyQualifiedName: `${category}.${String(x.Name ?? '')}`,
    currency: str(x.CurrencyCode),
    type,
    status: STATUS[x.Status] ?? 'Unknown',
    isBankAccount: x.Type === 'BANK',
  });
}

/** Bank accounts (accounts of type BANK) → `bankAccounts`; a credit card is Credit, the rest Debit. */
export function bankAccountRecord(x: XeroRecord): Data {
  return defined({
    accountName: str(x.Name),
    accountType: x.BankAccountType === 'CREDITCARD' ? 'Credit' : 'Debit',
    nominalCode: str(x.Code),
    accountNumber: str(x.BankAccountNumber),
    currency: str(x.CurrencyCode),
    status: STATUS[x.Status] ?? 'Unknown',
  });
}

/** Payment types that settle sales documents (→ `payments`); the others settle purchases (→ `billPayments`). */
export const SALES_PAYMENT_TYPES = new Set(['ACCRECPAYMENT', 'ARCREDITPAYMENT', 'AROVERPAYMENTPAYMENT', 'ARPREPAYMENTPAYMENT']);
export const PURCHASE_PAYMENT_TYPES = new Set(['ACCPAYPAYMENT', 'APCREDITPAYMENT', 'APOVERPAYMENTPAYMENT', 'APPREPAYMENTPAYMENT']);

function paymentLink(x: XeroRecord, sales: boolean): Data {
  const amount = num(x.Amount) ?? 0;
  if (x.Invoice?.InvoiceID) return { type: sales ? 'Invoice' : 'Bill', id: x.Invoice.InvoiceID, amount: -amount };
  if (x.CreditNote?.CreditNoteID) return { type: 'CreditNote', id: x.CreditNote.CreditNoteID, amount };
  return { type: 'Unknown', amount: -amount };
}

function paymentFields(x: XeroRecord, sales: boolean): Data {
  const document = x.Invoice ?? x.CreditNote ?? {};
  return {
    accountRef: x.Account?.AccountID ? { id: x.Account.AccountID } : undefined,
    totalAmount: num(x.Amount),
    currency: str(document.CurrencyCode),
    currencyRate: num(x.CurrencyRate),
    date: xeroDate(x.Date) ?? `${(xeroInstant(x.UpdatedDateUTC) ?? '1970-01-01').slice(0, 10)}T00:00:00`,
    reference: str(x.Reference),
    lines: [{ amount: num(x.Amount) ?? 0, links: [paymentLink(x, sales)] }],
  };
}

/** Payments on sales documents → `payments`. */
export function paymentRecord(x: XeroRecord): Data {
  const contact = (x.Invoice ?? x.CreditNote)?.Contact;
  return defined({
    customerRef: contact?.ContactID ? defined({ id: contact.ContactID, companyName: str(contact.Name) }) : undefined,
    ...paymentFields(x, true),
  });
}

/** Payments on purchase documents → `billPayments`. */
export function billPaymentRecord(x: XeroRecord): Data {
  const contact = (x.Invoice ?? x.CreditNote)?.Contact;
  return defined({
    supplierRef: contact?.ContactID ? defined({ id: contact.ContactID, supplierName: str(contact.Name) }) : undefined,
    ...paymentFields(x, false),
  });
}

/** Items → `items`: sold items carry their sales details, purchased ones their purchase details. */
export function itemRecord(x: XeroRecord): Data {
  const details = (d: XeroRecord | undefined): Data | undefined =>
    d
      ? defined({
          unitPrice: num(d.UnitPrice),
          taxRateRef: str(d.TaxType) ? { id: d.TaxType, name: d.TaxType } : undefined,
        })
      : undefined;
  return defined({
    name: str(x.Name),
    code: str(x.Code),
    itemStatus: 'Active',
    type: x.IsTrackedAsInventory ? 'Inventory' : 'NonInventory',
    isBillItem: x.IsPurchased !== false,
    isInvoiceItem: x.IsSold !== false,
    billItem: x.IsPurchased !== false ? { description: str(x.PurchaseDescription), ...details(x.PurchaseDetails) } : undefined,
    invoiceItem: x.IsSold !== false ? { description: str(x.Description), ...details(x.SalesDetails) } : undefined,
  });
}

/** Tax rates → `taxRates`, keyed by Xero's TaxType (what lines name them by). */
export function taxRateRecord(x: XeroRecord): Data {
  return defined({
    name: str(x.Name),
    code: str(x.TaxType),
    status: x.Status === 'ACTIVE' ? 'Active' : x.Status === 'ARCHIVED' || x.Status === 'DELETED' ? 'Archived' : 'Unknown',
    effectiveTaxRate: num(x.EffectiveRate),
    totalTaxRate: num(x.DisplayTaxRate),
    components: Array.isArray(x.TaxComponents)
      ? x.TaxComponents.map((c: XeroRecord) => defined({ name: str(c.Name), rate: num(c.Rate), isCompound: c.IsCompound === true }))
      : undefined,
  });
}

/** Tracking categories and their options → `trackingCategories`: an option is a child of its category. */
export function trackingCategoryRecords(x: XeroRecord): { id: string; data: Data }[] {
  const options: XeroRecord[] = Array.isArray(x.Options) ? x.Options : [];
  return [
    {
      id: String(x.TrackingCategoryID),
      data: defined({ name: str(x.Name), status: STATUS[x.Status] ?? 'Unknown', hasChildren: options.length > 0 }),
    },
    ...options.map((o) => ({
      id: String(o.TrackingOptionID),
      data: defined({
        name: str(o.Name),
        status: STATUS[o.Status] ?? 'Unknown',
        parentId: String(x.TrackingCategoryID),
        hasChildren: false,
      }),
    })),
  ];
}

/** The organisation → `company`. */
export function companyRecord(x: XeroRecord, tenantId: string): Data {
  const fyDay = num(x.FinancialYearEndDay);
  const fyMonth = num(x.FinancialYearEndMonth);
  return defined({
    companyName: str(x.Name),
    companyLegalName: str(x.LegalName),
    accountingPlatformRef: tenantId,
    addresses: addresses(x),
    registrationNumber: str(x.RegistrationNumber),
    taxNumber: str(x.TaxNumber),
    financialYearStartDate: fyDay && fyMonth ? financialYearStart(fyDay, fyMonth, clockFor({}).now()) : undefined,
    baseCurrency: str(x.BaseCurrency),
    ledgerLockDate: xeroDate(x.PeriodLockDate),
    createdDate: xeroInstant(x.CreatedDateUTC),
    sourceUrls: { organisation: `https://go.xero.com/organisationlogin/default.aspx?shortcode=${String(x.ShortCode ?? '')}` },
  });
}

/**
 * The first day of the financial year under way on `today`, from the day and month it ends on: the day after the
 * latest year end before today (a year end of 29 February falls on the 28th in other years).
 */
export function financialYearStart(endDay: number, endMonth: number, today: Date): string {
  const endIn = (year: number) => {
    const last = new Date(Date.UTC(year, endMonth, 0)).getUTCDate();
    return Date.UTC(year, endMonth - 1, Math.min(endDay, last));
  };
  const year = today.getUTCFullYear();
  // A year that ends today is still under way.
  const startOfToday = Date.UTC(year, today.getUTCMonth(), today.getUTCDate());
  const end = endIn(year) < startOfToday ? endIn(year) : endIn(year - 1);
  return `${new Date(end + 86_400_000).toISOString().slice(0, 10)}T00:00:00`;
}

/** What each of Xero's journal source types is in Codat's data model. */
const JOURNAL_SOURCES: Record<string, string> = {
  ACCREC: 'invoices',
  ACCPAY: 'bills',
  ACCRECCREDIT: 'creditNotes',
  ACCPAYCREDIT: 'billCreditNotes',
  ACCRECPAYMENT: 'payments',
  ARCREDITPAYMENT: 'payments',
  ACCPAYPAYMENT: 'billPayments',
  APCREDITPAYMENT: 'billPayments',
  CASHREC: 'directIncomes',
  CASHPAID: 'directCosts',
  TRANSFER: 'transfers',
  MANJOURNAL: 'journalEntries',
};

/** A journal of Xero's general ledger → `journalEntries`: its lines as posted, debit positive. */
export function journalEntryRecord(x: XeroRecord): Data {
  const lines: XeroRecord[] = Array.isArray(x.JournalLines) ? x.JournalLines : [];
  const dataType = JOURNAL_SOURCES[x.SourceType];
  return defined({
    description: str(x.Reference) ?? str(x.SourceType),
    postedOn: xeroDate(x.JournalDate),
    createdOn: xeroInstant(x.CreatedDateUTC),
    updatedOn: xeroInstant(x.CreatedDateUTC),
    journalRef: { id: 'xero-general-ledger', name: 'General ledger' },
    journalLines: lines.map((l) =>
      defined({
        description: str(l.Description),
        netAmount: num(l.NetAmount) ?? 0,
        accountRef: str(l.AccountID) ? defined({ id: l.AccountID, name: str(l.AccountName) }) : undefined,
      }),
    ),
    recordRef: str(x.SourceID) ? defined({ id: x.SourceID, dataType }) : undefined,
  });
}

/** Bank transactions (spend or receive money) → `directCosts` and `directIncomes`: paid from or into the bank account at once. */
export function directRecord(x: XeroRecord): Data {
  const contactType = String(x.Type).startsWith('SPEND') ? 'suppliers' : 'customers';
  const date = xeroDate(x.Date) ?? `${(xeroInstant(x.UpdatedDateUTC) ?? '1970-01-01').slice(0, 10)}T00:00:00`;
  return defined({
    reference: str(x.Reference),
    contactRef: x.Contact?.ContactID ? { id: x.Contact.ContactID, dataType: contactType } : undefined,
    issueDate: date,
    currency: str(x.CurrencyCode) ?? 'XXX',
    currencyRate: num(x.CurrencyRate),
    lineItems: Array.isArray(x.LineItems) ? x.LineItems.map((l: XeroRecord) => lineItem(l, x.LineAmountTypes)) : [],
    paymentAllocations: [
      {
        payment: defined({
          accountRef: x.BankAccount?.AccountID ? { id: x.BankAccount.AccountID } : undefined,
          paidOnDate: date,
          totalAmount: num(x.Total),
          currency: str(x.CurrencyCode),
        }),
        allocation: defined({ allocatedOnDate: date, totalAmount: num(x.Total), currency: str(x.CurrencyCode) }),
      },
    ],
    subTotal: num(x.SubTotal) ?? 0,
    taxAmount: num(x.TotalTax) ?? 0,
    totalAmount: num(x.Total) ?? 0,
  });
}

/**
 * Payment types that bring money into the bank account: a customer paying an invoice, and a supplier refunding a
 * credit note, an overpayment or a prepayment. (Overpayments and prepayments themselves are bank transactions; their
 * payments are refunds: a customer's go out, a supplier's come in.)
 */
const MONEY_IN_PAYMENTS = new Set(['ACCRECPAYMENT', 'APCREDITPAYMENT', 'APOVERPAYMENTPAYMENT', 'APPREPAYMENTPAYMENT']);

/**
 * One movement of money through a bank account as Codat's account transaction: one line of the whole amount (money in
 * positive), naming the record behind it.
 */
function bankMovement(
  x: XeroRecord,
  movement: {
    id: string;
    bank: XeroRecord | undefined;
    currency: unknown;
    amount: number;
    description: string | undefined;
    recordRef: Data;
  },
): Data {
  return defined({
    transactionId: movement.id,
    note: str(x.Reference),
    bankAccountRef: movement.bank?.AccountID ? defined({ id: movement.bank.AccountID, name: str(movement.bank.Name) }) : undefined,
    date: xeroDate(x.Date) ?? `${(xeroInstant(x.UpdatedDateUTC) ?? '1970-01-01').slice(0, 10)}T00:00:00`,
    status: x.IsReconciled === true ? 'Reconciled' : 'Unreconciled',
    currency: str(movement.currency),
    currencyRate: num(x.CurrencyRate),
    lines: [defined({ description: movement.description, recordRef: movement.recordRef, amount: movement.amount })],
    totalAmount: movement.amount,
  });
}

/**
 * A payment as an account transaction (→ `accountTransactions`): the movement of its amount through the bank account
 * it was paid into or from, money in positive. Its one line names the payment (`payments` or `billPayments`).
 */
export function paymentAccountTransaction(x: XeroRecord): Data {
  const document = x.Invoice ?? x.CreditNote ?? {};
  const amount = num(x.Amount) ?? 0;
  return bankMovement(x, {
    id: String(x.PaymentID),
    bank: x.Account,
    currency: document.CurrencyCode,
    amount: MONEY_IN_PAYMENTS.has(x.PaymentType) ? amount : -amount,
    description: str(x.Reference) ?? str(document.InvoiceNumber) ?? str(document.CreditNoteNumber),
    recordRef: { id: String(x.PaymentID), dataType: SALES_PAYMENT_TYPES.has(x.PaymentType) ? 'payments' : 'billPayments' },
  });
}

/**
 * A bank transaction as an account transaction (→ `accountTransactions`): money received (`RECEIVE…`) positive, spent
 * (`SPEND…`) negative, transfers' two sides included. One line of its total (Xero's line items may exclude tax), named
 * by its reference, else its first line item's description, naming the bank transaction (`directIncomes` or
 * `directCosts`, as those data types serve it).
 */
export function bankTransactionAccountTransaction(x: XeroRecord): Data {
  const inward = String(x.Type).startsWith('RECEIVE');
  const items: XeroRecord[] = Array.isArray(x.LineItems) ? x.LineItems : [];
  return bankMovement(x, {
    id: String(x.BankTransactionID),
    bank: x.BankAccount,
    currency: x.CurrencyCode,
    amount: (inward ? 1 : -1) * (num(x.Total) ?? 0),
    description: str(x.Reference) ?? items.map((l) => str(l.Description)).find((d) => d !== undefined && d.trim() !== ''),
    recordRef: { id: String(x.BankTransactionID), dataType: inward ? 'directIncomes' : 'directCosts' },
  });
}
