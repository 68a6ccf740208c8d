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
    invoices: { cursor: { field: 'MetaData.LastUpdatedTime' } },
    bills: { cursor: { field: 'MetaData.LastUpdatedTime' } },
    customers: { cursor: { field: 'MetaData.LastUpdatedTime' } },
    suppliers: { cursor: { field: 'MetaData.LastUpdatedTime' } },
    chartOfAccounts: { cursor: { field: 'MetaData.LastUpdatedTime' } },
    payments: { cursor: { field: 'MetaData.LastUpdatedTime' } },
    billPayments: { cursor: { field: 'MetaData.LastUpdatedTime' } },
    journalEntries: { cursor: { field: 'MetaData.LastUpdatedTime' } },
    items: { cursor: { field: 'MetaData.LastUpdatedTime' } },
    taxRates: { cursor: 'none' },
    company: { cursor: 'none' },
    // QuickBooks' own reports (reports/BalanceSheet, reports/ProfitAndLoss), read whole each time.
    balanceSheet: { cursor: 'none' },
    profitAndLoss: { cursor: 'none' },
  },
} as const);
