import { declarePlatform } from '../platform-declaration.js';

/**
 * QuickBooks Online as data: identity, OAuth2, how its Accounting API is called. Validated at start
 * (docs/connectors/quickbooks.md).
 */
export const QUICKBOOKS = declarePlatform({
  key: 'qhyg',
  name: 'QuickBooks Online',
  sourceType: 'Accounting',
  brandColour: '#2ca01c',
  authorization: { kind: 'oauth2' },
  transport: {
    baseUrl: { fixed: 'https://quickbooks.api.intuit.com/v3' },
    timeoutMs: 30_000,
    retry: { attempts: 3, backoffMs: 1_000, retryAfterHeader: 'retry-after' },
    // Intuit's limits per company (realm): 10 requests in flight and 500 a minute.
    politeness: { maxConcurrent: 10, requests: 500, windowMs: 60_000 },
    // `STARTPOSITION n MAXRESULTS m`: pages of a query, numbered by their first record.
    paging: 'page-number',
  },
  dataTypes: {
    // Change Data Capture covers these entities (30 days back); the others are read in full every time.
    invoices: { features: ['Get', 'Post', 'Put'], cursor: { field: 'MetaData.LastUpdatedTime' } },
    bills: { features: ['Get', 'Post', 'Put'], cursor: { field: 'MetaData.LastUpdatedTime' } },
    customers: { features: ['Get', 'Post', 'Put'], cursor: { field: 'MetaData.LastUpdatedTime' } },
    suppliers: { features: ['Get'], cursor: { field: 'MetaData.LastUpdatedTime' } },
    chartOfAccounts: { features: ['Get'], cursor: { field: 'MetaData.LastUpdatedTime' } },
    payments: { features: ['Get'], cursor: { field: 'MetaData.LastUpdatedTime' } },
    billPayments: { features: ['Get'], cursor: { field: 'MetaData.LastUpdatedTime' } },
    journalEntries: { features: ['Get'], cursor: { field: 'MetaData.LastUpdatedTime' } },
    items: { features: ['Get'], cursor: { field: 'MetaData.LastUpdatedTime' } },
    taxRates: { features: ['Get'], cursor: 'none' },
    // QuickBooks' own reports (reports/BalanceSheet, reports/ProfitAndLoss), read whole each time.
    balanceSheet: { features: ['Get'], cursor: 'none' },
    profitAndLoss: { features: ['Get'], cursor: 'none' },
    company: { features: ['Get'], cursor: 'none' },
  },
} as const);
