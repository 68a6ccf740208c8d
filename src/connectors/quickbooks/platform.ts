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
    baseUrl: { fixed: 'https://quickbooks.api.intuit.com/v3', env: 'QBO_API_URL' },
    // Pinned: Intuit changes fields between minor versions, and the mapping is written against this one.
    apiVersion: { value: '73', query: 'minorversion', env: 'QBO_MINOR_VERSION' },
    timeoutMs: 30_000,
    retry: { attempts: 3, backoffMs: 1_000, retryAfterHeader: 'retry-after' },
    // Intuit's limits per company (realm): 10 requests in flight and 500 a minute.
    politeness: { maxConcurrent: 10, requests: 500, windowMs: 60_000 },
    // `STARTPOSITION n MAXRESULTS m`: pages of a query, numbered by their first record (the most a query answers).
    paging: { style: 'start-position', pageSize: 1000 },
  },
  oauth2: {
    env: 'QBO',
    authorizeUrl: 'https://appcenter.intuit.com/connect/oauth2',
    tokenUrl: 'https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer',
    revokeUrl: 'https://developer.api.intuit.com/v2/oauth2/tokens/revoke',
    // The one scope the accounting API needs; refresh tokens come with it (Intuit has no offline_access scope).
    scope: 'com.intuit.quickbooks.accounting',
    // A confidential client: the secret authenticates the exchange, and Intuit's authorize page takes no PKCE.
    pkce: false,
    clientAuthentication: 'basic',
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
