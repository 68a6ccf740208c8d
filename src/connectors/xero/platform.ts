import { declarePlatform } from '../platform-declaration.js';

/** Xero as data: identity, OAuth2, how its Accounting API is called. Validated at start (docs/connectors/xero.md). */
export const XERO = declarePlatform({
  key: 'gbol',
  name: 'Xero',
  sourceType: 'Accounting',
  brandColour: '#13b5ea',
  authorization: { kind: 'oauth2' },
  transport: {
    baseUrl: { fixed: 'https://api.xero.com/api.xro/2.0', env: 'XERO_API_URL' },
    timeoutMs: 30_000,
    retry: { attempts: 3, backoffMs: 1_000, retryAfterHeader: 'retry-after' },
    // Xero's limits per tenant: 5 calls in flight and 60 a minute (and 5,000 a day, read from X-DayLimit-Remaining).
    politeness: { maxConcurrent: 5, requests: 60, windowMs: 60_000 },
    // What Xero says is left on every answer: the tenant's minute, the app's minute (across tenants), the tenant's day.
    remainingLimits: [
      { header: 'x-minlimit-remaining', scope: 'account' },
      { header: 'x-appminlimit-remaining', scope: 'application' },
      { header: 'x-daylimit-remaining', scope: 'day' },
    ],
    // `?page=n&pageSize=m`, ordered by id; page 1 says how many pages there are.
    paging: { style: 'page-number', pageSize: 100 },
  },
  oauth2: {
    env: 'XERO',
    authorizeUrl: 'https://login.xero.com/identity/connect/authorize',
    tokenUrl: 'https://identity.xero.com/connect/token',
    revokeUrl: 'https://identity.xero.com/connect/revocation',
    // Read everything synced, write invoices, contacts and payments, and refresh without the user.
    scope:
      'offline_access accounting.transactions accounting.contacts accounting.settings.read accounting.reports.read accounting.journals.read',
    pkce: true,
    clientAuthentication: 'basic',
    // The tenants a consent covers; and the minute of Xero's per-minute limit (shorter only where a test stands in for
    // Xero with a faster clock).
    more: { CONNECTIONS_URL: 'https://api.xero.com/connections', LIMIT_WINDOW_MS: '60000' },
  },
  dataTypes: {
    invoices: { features: ['Get', 'Post', 'Put'], cursor: { field: 'UpdatedDateUTC' } },
    bills: { features: ['Get'], cursor: { field: 'UpdatedDateUTC' } },
    creditNotes: { features: ['Get'], cursor: { field: 'UpdatedDateUTC' } },
    billCreditNotes: { features: ['Get'], cursor: { field: 'UpdatedDateUTC' } },
    customers: { features: ['Get', 'Post', 'Put'], cursor: { field: 'UpdatedDateUTC' } },
    suppliers: { features: ['Get', 'Post', 'Put'], cursor: { field: 'UpdatedDateUTC' } },
    payments: { features: ['Get', 'Post'], cursor: { field: 'UpdatedDateUTC' } },
    billPayments: { features: ['Get'], cursor: { field: 'UpdatedDateUTC' } },
    chartOfAccounts: { features: ['Get'], cursor: 'none' },
    bankAccounts: { features: ['Get'], cursor: 'none' },
    // Xero deletes items outright (no DELETED status to see in a changed-since read): always read whole.
    items: { features: ['Get'], cursor: 'none' },
    taxRates: { features: ['Get'], cursor: 'none' },
    trackingCategories: { features: ['Get'], cursor: 'none' },
    journalEntries: { features: ['Get'], cursor: { field: 'JournalNumber' } },
    directCosts: { features: ['Get'], cursor: { field: 'UpdatedDateUTC' } },
    directIncomes: { features: ['Get'], cursor: { field: 'UpdatedDateUTC' } },
    balanceSheet: { features: ['Get'], cursor: 'none' },
    profitAndLoss: { features: ['Get'], cursor: 'none' },
    company: { features: ['Get'], cursor: 'none' },
  },
} as const);
