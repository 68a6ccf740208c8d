import { declarePlatform } from '../platform-declaration.js';

/** Xero as data: identity, OAuth2, how its Accounting API is called. Validated at start (docs/connectors/xero.md). */
export const XERO = declarePlatform({
  key: 'gbol',
  name: 'Xero',
  sourceType: 'Accounting',
  brandColour: '#13b5ea',
  authorization: { kind: 'oauth2' },
  transport: {
    baseUrl: { fixed: 'https://api.xero.com/api.xro/2.0' },
    timeoutMs: 30_000,
    retry: { attempts: 3, backoffMs: 1_000, retryAfterHeader: 'retry-after' },
    // Xero's limits per tenant: 5 calls in flight and 60 a minute (and 5,000 a day, read from X-DayLimit-Remaining).
    politeness: { maxConcurrent: 5, requests: 60, windowMs: 60_000 },
    paging: 'page-number',
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
