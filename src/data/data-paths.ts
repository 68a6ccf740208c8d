import type { DataType } from '../codat-model/data-types.js';

/** One readable path of a data type. */
export interface DataPath {
  /** Path segment(s) after `data/`, e.g. `invoices` or `banking-accounts`. */
  segment: string;
  dataType: DataType;
  /** Company-scoped (`/companies/{companyId}/data/...`) or connection-scoped (`.../connections/{connectionId}/data/...`). */
  scope: 'company' | 'connection';
  /** `list` has a paged list and `/{id}`; `single` is one object (company info). */
  kind: 'list' | 'single';
  /** Name of the `{id}` path parameter in Codat's API, for the OpenAPI document. */
  idParam?: string;
}

const list = (segment: string, dataType: DataType, scope: DataPath['scope'], idParam: string): DataPath => ({
  segment,
  dataType,
  scope,
  kind: 'list',
  idParam,
});

/** Every data-set path, as in Codat's API (facts section 2.1 and the banking and commerce OpenAPI files). */
export const DATA_PATHS: readonly DataPath[] = [
  list('accounts', 'chartOfAccounts', 'company', 'accountId'),
  list('invoices', 'invoices', 'company', 'invoiceId'),
  list('bills', 'bills', 'company', 'billId'),
  list('billPayments', 'billPayments', 'company', 'billPaymentId'),
  list('billCreditNotes', 'billCreditNotes', 'company', 'billCreditNoteId'),
  list('creditNotes', 'creditNotes', 'company', 'creditNoteId'),
  list('customers', 'customers', 'company', 'customerId'),
  list('suppliers', 'suppliers', 'company', 'supplierId'),
  list('items', 'items', 'company', 'itemId'),
  list('itemReceipts', 'itemReceipts', 'company', 'itemReceiptId'),
  list('taxRates', 'taxRates', 'company', 'taxRateId'),
  list('trackingCategories', 'trackingCategories', 'company', 'trackingCategoryId'),
  list('journalEntries', 'journalEntries', 'company', 'journalEntryId'),
  list('journals', 'journals', 'company', 'journalId'),
  list('payments', 'payments', 'company', 'paymentId'),
  list('paymentMethods', 'paymentMethods', 'company', 'paymentMethodId'),
  list('purchaseOrders', 'purchaseOrders', 'company', 'purchaseOrderId'),
  list('salesOrders', 'salesOrders', 'company', 'salesOrderId'),
  { segment: 'info', dataType: 'company', scope: 'company', kind: 'single' },
  list('banking-transactions', 'banking-transactions', 'company', 'transactionId'),

  list('bankAccounts', 'bankAccounts', 'connection', 'accountId'),
  list('accountTransactions', 'accountTransactions', 'connection', 'accountTransactionId'),
  list('directCosts', 'directCosts', 'connection', 'directCostId'),
  list('directIncomes', 'directIncomes', 'connection', 'directIncomeId'),
  list('transfers', 'transfers', 'connection', 'transferId'),
  list('banking-accounts', 'banking-accounts', 'connection', 'accountId'),
  list('banking-accountBalances', 'banking-accountBalances', 'connection', 'accountBalanceId'),
  list('banking-transactions', 'banking-transactions', 'connection', 'transactionId'),
  list('banking-transactionCategories', 'banking-transactionCategories', 'connection', 'transactionCategoryId'),
  list('commerce-customers', 'commerce-customers', 'connection', 'customerId'),
  list('commerce-disputes', 'commerce-disputes', 'connection', 'disputeId'),
  list('commerce-locations', 'commerce-locations', 'connection', 'locationId'),
  list('commerce-orders', 'commerce-orders', 'connection', 'orderId'),
  list('commerce-payments', 'commerce-payments', 'connection', 'paymentId'),
  list('commerce-paymentMethods', 'commerce-paymentMethods', 'connection', 'paymentMethodId'),
  list('commerce-products', 'commerce-products', 'connection', 'productId'),
  list('commerce-productCategories', 'commerce-productCategories', 'connection', 'productCategoryId'),
  list('commerce-taxComponents', 'commerce-taxComponents', 'connection', 'taxComponentId'),
  list('commerce-transactions', 'commerce-transactions', 'connection', 'transactionId'),
  { segment: 'commerce-info', dataType: 'commerce-companyInfo', scope: 'connection', kind: 'single' },
];

/** The source type a data type comes from. */
export function sourceTypeOf(dataType: string): 'Accounting' | 'Banking' | 'Commerce' {
  if (dataType.startsWith('banking-')) return 'Banking';
  if (dataType.startsWith('commerce-')) return 'Commerce';
  return 'Accounting';
}
