import { declarePlatform } from '../../platform-declaration.js';

/**
 * The built-in accounting Sandbox as data: identity, and what it does with each data type. It has no API to call: its data
 * is generated from the connection's seed, and what is written to it is kept by the service (docs/sandbox.md).
 */
export const ACCOUNTING_SANDBOX = declarePlatform({
  key: 'mqjo',
  name: 'Sandbox',
  sourceType: 'Accounting',
  brandColour: '#1f6feb',
  authorization: { kind: 'none' },
  dataTypes: {
    accountTransactions: { features: ['Get'] },
    balanceSheet: { features: ['Get'] },
    bankAccounts: { features: ['Get', 'Post', 'Put'] },
    bankTransactions: { features: ['Get', 'Post'] },
    billCreditNotes: { features: ['Get', 'Post', 'Put'] },
    billPayments: { features: ['Get', 'Post', 'Delete'] },
    bills: { features: ['Get', 'Post', 'Put', 'Delete'] },
    cashFlowStatement: { features: ['Get'] },
    chartOfAccounts: { features: ['Get', 'Post'] },
    company: { features: ['Get'] },
    creditNotes: { features: ['Get', 'Post', 'Put'] },
    customers: { features: ['Get', 'Post', 'Put'] },
    directCosts: { features: ['Get', 'Post', 'Delete'] },
    directIncomes: { features: ['Get', 'Post'] },
    invoices: { features: ['Get', 'Post', 'Put', 'Delete'] },
    itemReceipts: { features: ['Get'] },
    items: { features: ['Get', 'Post'] },
    journalEntries: { features: ['Get', 'Post', 'Delete'] },
    journals: { features: ['Get', 'Post'] },
    paymentMethods: { features: ['Get'] },
    payments: { features: ['Get', 'Post'] },
    profitAndLoss: { features: ['Get'] },
    purchaseOrders: { features: ['Get', 'Post', 'Put'] },
    salesOrders: { features: ['Get'] },
    suppliers: { features: ['Get', 'Post', 'Put'] },
    taxRates: { features: ['Get'] },
    trackingCategories: { features: ['Get'] },
    transfers: { features: ['Get', 'Post'] },
  },
} as const);
