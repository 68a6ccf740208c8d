import { defined, num, str, type Data } from '../source-kit.js';
import { qboDate, qboInstant, type QboEntity } from './qbo-api.js';
import { clockFor } from '../../lib/clock.js';

/*
 * QuickBooks Online's entities in Codat's shapes, field by field as docs/connectors/quickbooks.md tables them. Each
 * mapping takes one entity as the v3 API answers it (PascalCase, references as `{ value, name }`, amounts as JSON
 * numbers) and returns Codat's fields; `id` and `sourceModifiedDate` are added by the reader.
 */

const round = (n: number) => Math.round(n * 100) / 100;
const lines = (x: QboEntity, detail: string): QboEntity[] =>
  Array.isArray(x.Line) ? x.Line.filter((l: QboEntity) => l.DetailType === detail) : [];

/** A `{ value, name }` reference as Codat's `{ id, name }` (named by `nameField`), or undefined without a value. */
function ref(reference: unknown, nameField = 'name'): Data | undefined {
  const r = reference as QboEntity | undefined;
  return str(r?.value) ? defined({ id: r!.value, [nameField]: str(r!.name) }) : undefined;
}

/** Whether QuickBooks voided a document: it keeps it with its amounts zeroed and says so (`status`, or the memo it writes). */
export function isVoided(x: QboEntity): boolean {
  return x.status === 'Voided' || ((num(x.TotalAmt) ?? 0) === 0 && /^voided/i.test(String(x.PrivateNote ?? '')));
}

/** Payments QuickBooks links to a document (`LinkedTxn`), as Codat's payment allocations (amounts are on the payment). */
function allocations(x: QboEntity, types: string[]): Data[] | undefined {
  const linked: QboEntity[] = Array.isArray(x.LinkedTxn) ? x.LinkedTxn.filter((t: QboEntity) => types.includes(t.TxnType)) : [];
  if (linked.length === 0) return undefined;
  const currency = str(x.CurrencyRef?.value);
  return linked.map((t) => ({ payment: defined({ id: String(t.TxnId), currency }), allocation: defined({ currency }) }));
}

/** A sales line (SalesItemLineDetail): QuickBooks keeps tax per document, not per line, so lines carry none. */
function salesLine(line: QboEntity): Data {
  const d: QboEntity = line.SalesItemLineDetail ?? {};
  const amount = num(line.Amount) ?? 0;
  return defined({
    description: str(line.Description),
    unitAmount: num(d.UnitPrice) ?? amount,
    quantity: num(d.Qty) ?? 1,
    discountPercentage: num(d.DiscountRate),
    discountAmount: num(d.DiscountAmt),
    subTotal: amount,
    accountRef: ref(d.ItemAccountRef),
    taxRateRef: ref(d.TaxCodeRef),
    itemRef: ref(d.ItemRef),
  });
}

/** What an invoice and a credit memo share: the customer, the day, the currency, the sales lines and their totals. */
function salesDocument(x: QboEntity) {
  const sales = lines(x, 'SalesItemLineDetail');
  return {
    customerRef: ref(x.CustomerRef, 'companyName'),
    issueDate: txnDay(x),
    currency: str(x.CurrencyRef?.value),
    currencyRate: num(x.ExchangeRate),
    lineItems: sales.map(salesLine),
    paymentAllocations: allocations(x, ['Payment']),
    discount: lines(x, 'DiscountLineDetail').reduce((sum, l) => sum + (num(l.Amount) ?? 0), 0),
    subTotal: round(sales.reduce((sum, l) => sum + (num(l.Amount) ?? 0), 0)),
    totalTaxAmount: num(x.TxnTaxDetail?.TotalTax) ?? 0,
  };
}

/**
 * Invoice → `invoices`. Status from the balance: nothing left of a non-zero total is Paid, part of it PartiallyPaid,
 * all of it Submitted (QuickBooks has no drafts); a voided invoice is Void.
 */
export function invoiceRecord(x: QboEntity): Data {
  const total = num(x.TotalAmt) ?? 0;
  const balance = num(x.Balance) ?? 0;
  const status = isVoided(x)
    ? 'Void'
    : total > 0 && balance === 0
      ? 'Paid'
      : balance > 0 && balance < total
        ? 'PartiallyPaid'
        : 'Submitted';
  const sale = salesDocument(x);
  return defined({
    invoiceNumber: str(x.DocNumber),
    customerRef: sale.customerRef,
    issueDate: sale.issueDate,
    dueDate: qboDate(x.DueDate),
    currency: sale.currency,
    currencyRate: sale.currencyRate,
    lineItems: sale.lineItems,
    paymentAllocations: sale.paymentAllocations,
    totalDiscount: sale.discount > 0 ? round(sale.discount) : undefined,
    subTotal: sale.subTotal,
    totalTaxAmount: sale.totalTaxAmount,
    totalAmount: total,
    amountDue: balance,
    status,
    note: str(x.CustomerMemo?.value),
  });
}

/** A bill line: an expense to an account (AccountBasedExpenseLineDetail) or an item bought (ItemBasedExpenseLineDetail). */
function purchaseLine(line: QboEntity): Data {
  const amount = num(line.Amount) ?? 0;
  if (line.DetailType === 'ItemBasedExpenseLineDetail') {
    const d: QboEntity = line.ItemBasedExpenseLineDetail ?? {};
    return defined({
      description: str(line.Description),
      unitAmount: num(d.UnitPrice) ?? amount,
      quantity: num(d.Qty) ?? 1,
      subTotal: amount,
      taxRateRef: ref(d.TaxCodeRef),
      itemRef: ref(d.ItemRef),
    });
  }
  const d: QboEntity = line.AccountBasedExpenseLineDetail ?? {};
  return defined({
    description: str(line.Description),
    unitAmount: amount,
    quantity: 1,
    subTotal: amount,
    accountRef: ref(d.AccountRef),
    taxRateRef: ref(d.TaxCodeRef),
  });
}

/** Bill → `bills`. Open until paid; QuickBooks deletes bills rather than voiding them. */
export function billRecord(x: QboEntity): Data {
  const total = num(x.TotalAmt) ?? 0;
  const balance = num(x.Balance) ?? 0;
  const status = isVoided(x) ? 'Void' : total > 0 && balance === 0 ? 'Paid' : balance > 0 && balance < total ? 'PartiallyPaid' : 'Open';
  const expense = expenseLines(x);
  return defined({
    reference: str(x.DocNumber),
    supplierRef: ref(x.VendorRef, 'supplierName'),
    issueDate: txnDay(x),
    dueDate: qboDate(x.DueDate),
    currency: str(x.CurrencyRef?.value),
    currencyRate: num(x.ExchangeRate),
    lineItems: expense.map(purchaseLine),
    status,
    subTotal: round(expense.reduce((sum: number, l: QboEntity) => sum + (num(l.Amount) ?? 0), 0)),
    taxAmount: num(x.TxnTaxDetail?.TotalTax) ?? 0,
    totalAmount: total,
    amountDue: balance,
    note: str(x.PrivateNote),
    paymentAllocations: allocations(x, ['BillPaymentCheck', 'BillPaymentCreditCard', 'BillPayment']),
  });
}

/** A transaction's business day (`TxnDate`), else the day it was created. */
function txnDay(x: QboEntity): string {
  return qboDate(x.TxnDate) ?? `${(qboInstant(x.MetaData?.CreateTime) ?? '1970-01-01').slice(0, 10)}T00:00:00`;
}

/** A purchase's expense lines: to an account, or of an item bought. */
function expenseLines(x: QboEntity): QboEntity[] {
  return (Array.isArray(x.Line) ? x.Line : []).filter((l: QboEntity) =>
    ['AccountBasedExpenseLineDetail', 'ItemBasedExpenseLineDetail'].includes(l.DetailType),
  );
}

/**
 * A credit's status from what QuickBooks keeps of it: voided; all of it used (`Balance` 0); some used; none used.
 * QuickBooks has no draft credit memos or vendor credits.
 */
function creditStatus(x: QboEntity, total: number, remaining: number): string {
  if (isVoided(x)) return 'Void';
  if (total > 0 && remaining === 0) return 'Paid';
  return remaining > 0 && remaining < total ? 'PartiallyPaid' : 'Submitted';
}

/**
 * CreditMemo → `creditNotes`. `RemainingCredit` (else `Balance`) is the credit not yet used; the payments that used
 * it are named in `paymentAllocations` (their amounts are on the payments' `CreditNote` links).
 */
export function creditNoteRecord(x: QboEntity): Data {
  const total = num(x.TotalAmt) ?? 0;
  const remaining = num(x.RemainingCredit) ?? num(x.Balance) ?? 0;
  const sale = salesDocument(x);
  return defined({
    creditNoteNumber: str(x.DocNumber),
    customerRef: sale.customerRef,
    issueDate: sale.issueDate,
    currency: sale.currency,
    currencyRate: sale.currencyRate,
    lineItems: sale.lineItems,
    paymentAllocations: sale.paymentAllocations,
    totalDiscount: round(sale.discount),
    discountPercentage: 0,
    subTotal: sale.subTotal,
    totalTaxAmount: sale.totalTaxAmount,
    totalAmount: total,
    remainingCredit: remaining,
    status: creditStatus(x, total, remaining),
    note: str(x.CustomerMemo?.value) ?? str(x.PrivateNote),
  });
}

/** VendorCredit → `billCreditNotes`: `Balance` is the credit not yet used; lines as a bill's. */
export function billCreditNoteRecord(x: QboEntity): Data {
  const total = num(x.TotalAmt) ?? 0;
  const remaining = num(x.Balance) ?? 0;
  const expense = expenseLines(x);
  return defined({
    billCreditNoteNumber: str(x.DocNumber),
    supplierRef: ref(x.VendorRef, 'supplierName'),
    issueDate: txnDay(x),
    currency: str(x.CurrencyRef?.value),
    currencyRate: num(x.ExchangeRate),
    lineItems: expense.map(purchaseLine),
    paymentAllocations: allocations(x, ['BillPaymentCheck', 'BillPaymentCreditCard', 'BillPayment']),
    totalDiscount: 0,
    discountPercentage: 0,
    subTotal: round(expense.reduce((sum: number, l: QboEntity) => sum + (num(l.Amount) ?? 0), 0)),
    totalTaxAmount: num(x.TxnTaxDetail?.TotalTax) ?? 0,
    totalAmount: total,
    remainingCredit: remaining,
    status: creditStatus(x, total, remaining),
    note: str(x.PrivateNote),
  });
}

/** BillAddr is where invoices go (Billing); ShipAddr where goods go (Delivery). */
function addresses(x: QboEntity, fields: [string, 'Billing' | 'Delivery'][]): Data[] | undefined {
  const found = fields
    .filter(([field]) => x[field] && typeof x[field] === 'object')
    .map(([field, type]) => {
      const a: QboEntity = x[field];
      return defined({
        type,
        line1: str(a.Line1),
        line2: [a.Line2, a.Line3, a.Line4, a.Line5].filter((l) => typeof l === 'string' && l !== '').join(', ') || undefined,
        city: str(a.City),
        region: str(a.CountrySubDivisionCode),
        country: str(a.Country),
        postalCode: str(a.PostalCode),
      });
    });
  return found.length > 0 ? found : undefined;
}

const contactName = (x: QboEntity): string | undefined =>
  [x.GivenName, x.FamilyName].filter((n) => typeof n === 'string' && n !== '').join(' ') || undefined;
const activeStatus = (x: QboEntity): string => (x.Active === false ? 'Archived' : 'Active');

/** Customer → `customers`. */
export function customerRecord(x: QboEntity): Data {
  return defined({
    customerName: str(x.DisplayName),
    contactName: contactName(x),
    emailAddress: str(x.PrimaryEmailAddr?.Address),
    phone: str(x.PrimaryPhone?.FreeFormNumber),
    defaultCurrency: str(x.CurrencyRef?.value),
    addresses: addresses(x, [
      ['BillAddr', 'Billing'],
      ['ShipAddr', 'Delivery'],
    ]),
    registrationNumber: str(x.BusinessNumber),
    status: activeStatus(x),
  });
}

/** Vendor → `suppliers`. */
export function supplierRecord(x: QboEntity): Data {
  return defined({
    supplierName: str(x.DisplayName),
    contactName: contactName(x),
    emailAddress: str(x.PrimaryEmailAddr?.Address),
    phone: str(x.PrimaryPhone?.FreeFormNumber),
    addresses: addresses(x, [['BillAddr', 'Billing']]),
    registrationNumber: str(x.BusinessNumber),
    status: activeStatus(x),
    defaultCurrency: str(x.CurrencyRef?.value),
  });
}

const CLASSIFICATION: Record<string, string> = {
  Asset: 'Asset',
  Liability: 'Liability',
  Equity: 'Equity',
  Revenue: 'Income',
  Expense: 'Expense',
};

/** Account → `chartOfAccounts`; the category is the type, QuickBooks' account type and subtype, e.g. `Asset.Bank.Checking`. */
export function accountRecord(x: QboEntity): Data {
  const type = CLASSIFICATION[x.Classification] ?? 'Unknown';
  const category = [type, str(x.AccountType), str(x.AccountSubType)].filter(Boolean).join('.');
  return defined({
    nominalCode: str(x.AcctNum),
    name: str(x.Name),
    description: str(x.Description),
    fullyQualifiedCategory: category,
    fullyQualifiedName: `${category}.${String(x.FullyQualifiedName ?? x.Name ?? '')}`,
    currency: str(x.CurrencyRef?.value),
    currentBalance: num(x.CurrentBalance),
    type,
    status: activeStatus(x),
    isBankAccount: x.AccountType === 'Bank',
  });
}

/** What a payment line pays, in Codat's link types. */
const SALES_LINK: Record<string, string> = { Invoice: 'Invoice', CreditMemo: 'CreditNote', JournalEntry: 'ManualJournal' };
const PURCHASE_LINK: Record<string, string> = { Bill: 'Bill', VendorCredit: 'CreditNote', JournalEntry: 'ManualJournal' };
/** The credits a payment can apply: the customer's credit memos, the vendor's credits. */
const SALES_CREDIT = new Set(['CreditMemo']);
const PURCHASE_CREDIT = new Set(['VendorCredit']);

/**
 * Payment lines: each pays the documents it links (a payment reduces what they are owed, so the link is negative);
 * what is left unapplied is a payment on account. QuickBooks writes a credit applied on the payment (a credit memo,
 * a vendor credit) as a line with a positive `Amount` too, and takes it off `TotalAmt` (invoices − credits): in
 * Codat's terms the line is negative (it is money the payment does not bring) and its credit-note link positive (the
 * credit is used up), so the lines add up to `totalAmount`.
 */
function paymentLines(x: QboEntity, types: Record<string, string>, credits: ReadonlySet<string>): Data[] {
  const out: Data[] = (Array.isArray(x.Line) ? x.Line : []).map((l: QboEntity) => {
    const amount = num(l.Amount) ?? 0;
    const linked: QboEntity[] = Array.isArray(l.LinkedTxn) ? l.LinkedTxn : [];
    const credit = linked.length > 0 && linked.every((t) => credits.has(t.TxnType));
    const lineAmount = credit ? -amount : amount;
    return {
      amount: lineAmount,
      links: linked.map((t) => ({ type: types[t.TxnType] ?? 'Other', id: String(t.TxnId), amount: -lineAmount })),
    };
  });
  const unapplied = num(x.UnappliedAmt) ?? 0;
  if (unapplied > 0) out.push({ amount: unapplied, links: [{ type: 'PaymentOnAccount', amount: -unapplied }] });
  return out;
}

/** Payment (received from a customer) → `payments`. */
export function paymentRecord(x: QboEntity): Data {
  return defined({
    customerRef: ref(x.CustomerRef, 'companyName'),
    accountRef: ref(x.DepositToAccountRef),
    paymentMethodRef: ref(x.PaymentMethodRef),
    totalAmount: num(x.TotalAmt),
    currency: str(x.CurrencyRef?.value),
    currencyRate: num(x.ExchangeRate),
    date: txnDay(x),
    note: str(x.PrivateNote),
    reference: str(x.PaymentRefNum),
    lines: paymentLines(x, SALES_LINK, SALES_CREDIT),
  });
}

/** BillPayment (by cheque or credit card) → `billPayments`. */
export function billPaymentRecord(x: QboEntity): Data {
  return defined({
    supplierRef: ref(x.VendorRef, 'supplierName'),
    accountRef: ref(x.CheckPayment?.BankAccountRef ?? x.CreditCardPayment?.CCAccountRef),
    totalAmount: num(x.TotalAmt),
    currency: str(x.CurrencyRef?.value),
    currencyRate: num(x.ExchangeRate),
    date: txnDay(x),
    note: str(x.PrivateNote),
    reference: str(x.DocNumber),
    lines: paymentLines(x, PURCHASE_LINK, PURCHASE_CREDIT),
  });
}

const ENTITY_CONTACT: Record<string, string> = { Customer: 'customers', Vendor: 'suppliers' };

/** JournalEntry → `journalEntries`: one line per posting, debits positive and credits negative. */
export function journalEntryRecord(x: QboEntity, id: string): Data {
  const currency = str(x.CurrencyRef?.value);
  return defined({
    description: str(x.PrivateNote),
    postedOn: qboDate(x.TxnDate),
    createdOn: qboInstant(x.MetaData?.CreateTime),
    updatedOn: qboInstant(x.MetaData?.LastUpdatedTime),
    journalLines: lines(x, 'JournalEntryLineDetail').map((l) => {
      const d: QboEntity = l.JournalEntryLineDetail ?? {};
      const amount = num(l.Amount) ?? 0;
      const contact = d.Entity?.EntityRef?.value;
      return defined({
        description: str(l.Description),
        netAmount: d.PostingType === 'Credit' ? -amount : amount,
        currency,
        accountRef: ref(d.AccountRef),
        contactRef:
          contact && ENTITY_CONTACT[d.Entity?.Type] ? { id: String(contact), dataType: ENTITY_CONTACT[d.Entity.Type] } : undefined,
      });
    }),
    recordRef: { id, dataType: 'journalEntries' },
  });
}

const ITEM_TYPE: Record<string, string> = { Inventory: 'Inventory', NonInventory: 'NonInventory', Service: 'Service' };

/** Item → `items`: sold items (with an income account) carry their sales details, bought ones their purchase details. */
export function itemRecord(x: QboEntity): Data {
  const sold = Boolean(x.IncomeAccountRef?.value);
  const bought = Boolean(x.ExpenseAccountRef?.value);
  return defined({
    name: str(x.Name),
    code: str(x.Sku),
    itemStatus: activeStatus(x),
    type: ITEM_TYPE[x.Type] ?? 'Unknown',
    isBillItem: bought,
    isInvoiceItem: sold,
    invoiceItem: sold
      ? defined({
          description: str(x.Description),
          unitPrice: num(x.UnitPrice),
          accountRef: ref(x.IncomeAccountRef),
          taxRateRef: ref(x.SalesTaxCodeRef),
        })
      : undefined,
    billItem: bought
      ? defined({
          description: str(x.PurchaseDesc),
          unitPrice: num(x.PurchaseCost),
          accountRef: ref(x.ExpenseAccountRef),
          taxRateRef: ref(x.PurchaseTaxCodeRef),
        })
      : undefined,
  });
}

/**
 * TaxCode → `taxRates`: documents name a tax code on each line (`TaxCodeRef`), so a Codat tax rate is a tax code,
 * and QuickBooks' TaxRates are its components: the sales rates where it has any, otherwise the purchase rates.
 * A component applied to tax already charged (TaxOnTaxOrder) compounds.
 */
export function taxRateRecord(x: QboEntity, rates: ReadonlyMap<string, QboEntity>): Data {
  const details = (list: QboEntity | undefined): QboEntity[] => (Array.isArray(list?.TaxRateDetail) ? list!.TaxRateDetail : []);
  const chosen = details(x.SalesTaxRateList).length > 0 ? details(x.SalesTaxRateList) : details(x.PurchaseTaxRateList);
  const components = chosen.map((d) => {
    const rate = rates.get(String(d.TaxRateRef?.value));
    return defined({
      name: str(rate?.Name) ?? str(d.TaxRateRef?.name),
      rate: num(rate?.RateValue),
      isCompound: (num(d.TaxOnTaxOrder) ?? 0) > 0,
    });
  });
  const total = components.reduce((sum, c) => sum + ((c.rate as number | undefined) ?? 0), 0);
  // Compound components apply to the price plus the simple ones: (1 + simple)(1 + compound) - 1.
  const simple = components.filter((c) => !c.isCompound).reduce((sum, c) => sum + ((c.rate as number | undefined) ?? 0), 0);
  const effective = components
    .filter((c) => c.isCompound)
    .reduce((factor, c) => factor * (1 + ((c.rate as number | undefined) ?? 0) / 100), 1 + simple / 100);
  return defined({
    name: str(x.Name),
    code: str(x.Name),
    status: activeStatus(x),
    effectiveTaxRate: Math.round((effective - 1) * 1_000_000) / 10_000,
    totalTaxRate: total,
    components,
  });
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** CompanyInfo (and the home currency, which QuickBooks keeps in Preferences) → `company`. */
export function companyRecord(x: QboEntity, realmId: string, homeCurrency: string | undefined, now = clockFor({}).now()): Data {
  const month = MONTHS.indexOf(String(x.FiscalYearStartMonth));
  // The current financial year's first day: this year's start month, or last year's if it is still to come.
  const startYear = month < 0 ? undefined : month <= now.getUTCMonth() ? now.getUTCFullYear() : now.getUTCFullYear() - 1;
  return defined({
    companyName: str(x.CompanyName),
    companyLegalName: str(x.LegalName),
    accountingPlatformRef: realmId,
    addresses: addresses(x, [
      ['CompanyAddr', 'Billing'],
      ['LegalAddr', 'Billing'],
    ]),
    phoneNumbers: str(x.PrimaryPhone?.FreeFormNumber) ? [{ number: x.PrimaryPhone.FreeFormNumber, type: 'Primary' }] : undefined,
    webLinks: str(x.WebAddr?.URI) ? [{ type: 'Website', url: x.WebAddr.URI }] : undefined,
    financialYearStartDate: startYear === undefined ? undefined : `${startYear}-${String(month + 1).padStart(2, '0')}-01T00:00:00`,
    baseCurrency: homeCurrency,
    createdDate:
      qboInstant(x.MetaData?.CreateTime) ?? (qboDate(x.CompanyStartDate) ? `${x.CompanyStartDate.slice(0, 10)}T00:00:00Z` : undefined),
    sourceUrls: { company: `https://app.qbo.intuit.com/app/homepage?realmId=${encodeURIComponent(realmId)}` },
  });
}
