import type { DataType } from '../codat-model/data-types.js';
import type { CellKind } from './portal-format.js';

/** One column of a data type's table: a (dotted) field of its records, named for people. */
export interface Column {
  path: string;
  label: string;
  kind?: CellKind;
}

/** How the portal shows a data type's records when the reader has not said otherwise. */
export interface RecordView {
  columns: readonly Column[];
  /** The type's natural order (`orderBy` syntax): newest first for documents and transactions, by name for lists. */
  orderBy: string;
  /** The order in words, for the form's hint. */
  orderWords: string;
}

const col = (path: string, label: string, kind?: CellKind): Column => ({ path, label, ...(kind ? { kind } : {}) });
const newest = (field: string): Pick<RecordView, 'orderBy' | 'orderWords'> => ({ orderBy: `-${field}`, orderWords: 'newest first' });
const byName = (field: string): Pick<RecordView, 'orderBy' | 'orderWords'> => ({ orderBy: field, orderWords: `by ${field}` });

const total = col('totalAmount', 'Total', 'amount');
const currency = col('currency', 'Currency');
const status = col('status', 'Status');
const customer = col('customerRef.companyName', 'Customer');
const supplier = col('supplierRef.supplierName', 'Supplier');

const issueDate = col('issueDate', 'Issue date', 'date');

/** A document that is paid in time (an invoice, a bill): its number, the other party, its dates and what is still owed. */
const owed = (number: Column, party: Column): RecordView => ({
  columns: [
    number,
    party,
    issueDate,
    col('dueDate', 'Due date', 'date'),
    status,
    total,
    col('amountDue', 'Amount due', 'amount'),
    currency,
  ],
  ...newest('issueDate'),
});

/** A credit note, from a customer or to a supplier: what of it is still to be used. */
const credit = (number: Column, party: Column): RecordView => ({
  columns: [number, party, issueDate, status, total, col('remainingCredit', 'Remaining credit', 'amount'), currency],
  ...newest('issueDate'),
});

/** A payment from a customer or to a supplier. */
const payment = (party: Column): RecordView => ({
  columns: [col('date', 'Date', 'date'), party, col('reference', 'Reference'), col('paymentMethodRef.name', 'Method'), total, currency],
  ...newest('date'),
});

/** A direct cost or income: money out or in with no document before it. */
const direct = (): RecordView => ({
  columns: [issueDate, col('reference', 'Reference'), col('subTotal', 'Net', 'amount'), total, currency],
  ...newest('issueDate'),
});

/**
 * Columns chosen for people, per data type (the fields of Codat's schemas, which every platform's records follow):
 * what a reader looks for first, such as an invoice's number, customer, dates, status and amounts, rather than the
 * first fields a record happens to hold.
 */
const VIEWS: Partial<Record<DataType, RecordView>> = {
  invoices: owed(col('invoiceNumber', 'Number'), customer),
  bills: owed(col('reference', 'Reference'), supplier),
  creditNotes: credit(col('creditNoteNumber', 'Number'), customer),
  billCreditNotes: credit(col('billCreditNoteNumber', 'Number'), supplier),
  payments: payment(customer),
  billPayments: payment(supplier),
  purchaseOrders: {
    columns: [
      col('purchaseOrderNumber', 'Number'),
      supplier,
      col('issueDate', 'Issue date', 'date'),
      col('expectedDeliveryDate', 'Expected delivery', 'date'),
      status,
      total,
      currency,
    ],
    ...newest('issueDate'),
  },
  salesOrders: {
    columns: [
      col('salesOrderNumber', 'Number'),
      customer,
      col('issueDate', 'Issue date', 'date'),
      status,
      col('invoicingStatus', 'Invoicing'),
      total,
      currency,
    ],
    ...newest('issueDate'),
  },
  itemReceipts: {
    columns: [col('reference', 'Reference'), supplier, col('receivedDate', 'Received', 'date'), status, total, currency],
    ...newest('receivedDate'),
  },
  directCosts: direct(),
  directIncomes: direct(),
  journalEntries: {
    columns: [
      col('postedOn', 'Posted', 'date'),
      col('description', 'Description'),
      col('journalRef.name', 'Journal'),
      col('recordRef.dataType', 'From'),
    ],
    ...newest('postedOn'),
  },
  accountTransactions: {
    columns: [col('date', 'Date', 'date'), col('bankAccountRef.name', 'Bank account'), status, total, currency],
    ...newest('date'),
  },
  transfers: {
    columns: [
      col('date', 'Date', 'date'),
      col('description', 'Description'),
      col('from.accountRef.name', 'From'),
      col('from.amount', 'Amount out', 'amount'),
      col('from.currency', 'Currency out'),
      col('to.accountRef.name', 'To'),
      col('to.amount', 'Amount in', 'amount'),
      col('to.currency', 'Currency in'),
    ],
    ...newest('date'),
  },
  chartOfAccounts: {
    columns: [
      col('nominalCode', 'Code'),
      col('name', 'Name'),
      col('type', 'Type'),
      col('fullyQualifiedCategory', 'Category'),
      col('currentBalance', 'Balance', 'amount'),
      currency,
      status,
    ],
    ...byName('nominalCode'),
  },
  bankAccounts: {
    columns: [
      col('accountName', 'Name'),
      col('institution', 'Bank'),
      col('accountNumber', 'Account number'),
      col('balance', 'Balance', 'amount'),
      col('availableBalance', 'Available', 'amount'),
      currency,
      status,
    ],
    ...byName('accountName'),
  },
  customers: {
    columns: [
      col('customerName', 'Name'),
      col('contactName', 'Contact'),
      col('emailAddress', 'Email'),
      col('phone', 'Phone'),
      col('defaultCurrency', 'Currency'),
      status,
    ],
    ...byName('customerName'),
  },
  suppliers: {
    columns: [
      col('supplierName', 'Name'),
      col('contactName', 'Contact'),
      col('emailAddress', 'Email'),
      col('phone', 'Phone'),
      col('defaultCurrency', 'Currency'),
      status,
    ],
    ...byName('supplierName'),
  },
  items: {
    columns: [
      col('code', 'Code'),
      col('name', 'Name'),
      col('type', 'Type'),
      col('itemStatus', 'Status'),
      col('invoiceItem.unitPrice', 'Sale price', 'amount'),
      col('billItem.unitPrice', 'Purchase price', 'amount'),
    ],
    ...byName('code'),
  },
  taxRates: {
    columns: [col('code', 'Code'), col('name', 'Name'), col('effectiveTaxRate', 'Effective rate (%)', 'number'), status],
    ...byName('name'),
  },
  trackingCategories: {
    columns: [col('name', 'Name'), col('parentId', 'Parent'), col('hasChildren', 'Has children'), status],
    ...byName('name'),
  },
  journals: { columns: [col('journalCode', 'Code'), col('name', 'Name'), col('type', 'Type'), status], ...byName('name') },
  paymentMethods: { columns: [col('name', 'Name'), col('type', 'Type'), status], ...byName('name') },

  bankTransactions: {
    // `balance` is the account's running balance where the platform gives one (the Sandbox's generated books do not).
    columns: [
      col('clearedOnDate', 'Date', 'date'),
      col('description', 'Description'),
      col('amount', 'Amount', 'amount'),
      col('balance', 'Balance', 'amount'),
      col('transactionType', 'Type'),
      col('reconciled', 'Reconciled'),
    ],
    ...newest('clearedOnDate'),
  },
  'banking-transactions': {
    columns: [
      col('postedDate', 'Date', 'date'),
      col('description', 'Description'),
      col('amount', 'Amount', 'amount'),
      currency,
      col('merchantName', 'Merchant'),
      col('transactionCategoryRef.name', 'Category'),
    ],
    ...newest('postedDate'),
  },
  'banking-accounts': {
    columns: [
      col('name', 'Name'),
      col('institution.name', 'Bank'),
      col('type', 'Type'),
      col('balance.current', 'Balance', 'amount'),
      col('balance.available', 'Available', 'amount'),
      currency,
    ],
    ...byName('name'),
  },
  'banking-accountBalances': {
    columns: [
      col('date', 'Date', 'date'),
      col('accountId', 'Account'),
      col('balance.current', 'Balance', 'amount'),
      col('balance.available', 'Available', 'amount'),
    ],
    ...newest('date'),
  },
  'banking-transactionCategories': {
    columns: [col('name', 'Name'), col('parentId', 'Parent'), col('hasChildren', 'Has children'), status],
    ...byName('name'),
  },

  'commerce-orders': {
    columns: [
      col('createdDate', 'Created', 'date'),
      col('orderNumber', 'Number'),
      col('locationRef.name', 'Location'),
      total,
      col('totalRefund', 'Refunded', 'amount'),
      currency,
    ],
    ...newest('createdDate'),
  },
  'commerce-payments': {
    columns: [
      col('createdDate', 'Created', 'date'),
      status,
      col('paymentMethodRef.name', 'Method'),
      col('amount', 'Amount', 'amount'),
      currency,
      col('paymentProvider', 'Provider'),
    ],
    ...newest('createdDate'),
  },
  'commerce-transactions': {
    columns: [col('createdDate', 'Created', 'date'), col('type', 'Type'), col('subType', 'Kind'), total, currency],
    ...newest('createdDate'),
  },
  'commerce-disputes': {
    columns: [
      col('createdDate', 'Created', 'date'),
      status,
      col('reason', 'Reason'),
      total,
      currency,
      col('dueDate', 'Respond by', 'date'),
    ],
    ...newest('createdDate'),
  },
  'commerce-customers': {
    columns: [
      col('customerName', 'Name'),
      col('emailAddress', 'Email'),
      col('phone', 'Phone'),
      col('defaultCurrency', 'Currency'),
      col('createdDate', 'Created', 'date'),
    ],
    ...byName('customerName'),
  },
  'commerce-products': {
    columns: [col('name', 'Name'), col('categorization', 'Category'), col('isGiftCard', 'Gift card')],
    ...byName('name'),
  },
  'commerce-productCategories': { columns: [col('name', 'Name'), col('hasChildren', 'Has children')], ...byName('name') },
  'commerce-locations': {
    columns: [col('name', 'Name'), col('address.city', 'City'), col('address.country', 'Country')],
    ...byName('name'),
  },
  'commerce-paymentMethods': { columns: [col('name', 'Name'), status], ...byName('name') },
  'commerce-taxComponents': {
    columns: [col('name', 'Name'), col('rate', 'Rate', 'number'), col('isCompound', 'Compound')],
    ...byName('name'),
  },
};

export function recordViewOf(dataType: DataType): RecordView | undefined {
  return VIEWS[dataType];
}

/** Every data type that has a view of its own (the rest fall back to their records' first fields). */
export function viewedDataTypes(): DataType[] {
  return Object.keys(VIEWS) as DataType[];
}

const SKIPPED = new Set(['id', 'modifiedDate', 'sourceModifiedDate', 'metadata', 'supplementalData']);

/**
 * The table's columns: the type's own (or, for a type without one, the first top-level scalar fields of its records,
 * six at most), then any field the query or the ordering names that is not among them (what a reader filtered or
 * sorted by is what they want to see, nested fields included).
 */
export function columnsFor(dataType: DataType, docs: readonly Record<string, unknown>[], named: readonly string[]): Column[] {
  const out: Column[] = [...(VIEWS[dataType]?.columns ?? fallbackColumns(docs))];
  for (const path of named) if (!SKIPPED.has(path) && !out.some((c) => c.path === path)) out.push({ path, label: path });
  return out;
}

function fallbackColumns(docs: readonly Record<string, unknown>[]): Column[] {
  const out: Column[] = [];
  for (const doc of docs.slice(0, 5)) {
    for (const [key, value] of Object.entries(doc)) {
      if (out.length < 6 && !SKIPPED.has(key) && !out.some((c) => c.path === key) && (value === null || typeof value !== 'object'))
        out.push({ path: key, label: key });
    }
  }
  return out;
}

/** The value at a dotted path (`customerRef.companyName`), for a column. */
export function valueAt(doc: Record<string, unknown>, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.'))
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}
