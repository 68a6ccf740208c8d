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
    invoices: { cursor: { field: 'UpdatedDateUTC' } },
    bills: { cursor: { field: 'UpdatedDateUTC' } },
    creditNotes: { cursor: { field: 'UpdatedDateUTC' } },
    billCreditNotes: { cursor: { field: 'UpdatedDateUTC' } },
    customers: { cursor: { field: 'UpdatedDateUTC' } },
    suppliers: { cursor: { field: 'UpdatedDateUTC' } },
    payments: { cursor: { field: 'UpdatedDateUTC' } },
    billPayments: { cursor: { field: 'UpdatedDateUTC' } },
    items: { cursor: 'none' },
    chartOfAccounts: { cursor: 'none' },
    bankAccounts: { cursor: 'none' },
    taxRates: { cursor: 'none' },
    trackingCategories: { cursor: 'none' },
    company: { cursor: 'none' },
    journalEntries: { cursor: { field: 'JournalNumber' } },
    directCosts: { cursor: { field: 'UpdatedDateUTC' } },
    directIncomes: { cursor: { field: 'UpdatedDateUTC' } },
    balanceSheet: { cursor: 'none' },
    profitAndLoss: { cursor: 'none' },
  },
} as const);
