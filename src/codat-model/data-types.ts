/** Every data type of Codat's DataType enum (facts 1.7), by source type. */
export const ACCOUNTING_DATA_TYPES = [
  'accountTransactions',
  'balanceSheet',
  'bankAccounts',
  'bankTransactions',
  'billCreditNotes',
  'billPayments',
  'bills',
  'cashFlowStatement',
  'chartOfAccounts',
  'company',
  'creditNotes',
  'customers',
  'directCosts',
  'directIncomes',
  'invoices',
  'itemReceipts',
  'items',
  'journalEntries',
  'journals',
  'paymentMethods',
  'payments',
  'profitAndLoss',
  'purchaseOrders',
  'salesOrders',
  'suppliers',
  'taxRates',
  'trackingCategories',
  'transfers',
] as const;

export const BANKING_DATA_TYPES = [
  'banking-accountBalances',
  'banking-accounts',
  'banking-transactionCategories',
  'banking-transactions',
] as const;

export const COMMERCE_DATA_TYPES = [
  'commerce-companyInfo',
  'commerce-customers',
  'commerce-disputes',
  'commerce-locations',
  'commerce-orders',
  'commerce-paymentMethods',
  'commerce-payments',
  'commerce-productCategories',
  'commerce-products',
  'commerce-taxComponents',
  'commerce-transactions',
] as const;

export const DATA_TYPES = [...ACCOUNTING_DATA_TYPES, ...BANKING_DATA_TYPES, ...COMMERCE_DATA_TYPES] as const;
export type DataType = (typeof DATA_TYPES)[number];

export function isDataType(value: string): value is DataType {
  return (DATA_TYPES as readonly string[]).includes(value);
}
