import { declarePlatform } from '../platform-declaration.js';

/** hledger as data: identity, the credentials form, how hledger-web is called. Validated at start. */
export const HLEDGER = declarePlatform({
  key: 'hldg',
  name: 'hledger',
  sourceType: 'Accounting',
  brandColour: '#3b5998',
  authorization: {
    kind: 'credentials',
    fields: [
      {
        name: 'url',
        label: 'hledger-web address',
        type: 'url',
        required: true,
        hint: 'Where `hledger-web --serve-api` answers, e.g. http://127.0.0.1:5000',
      },
      {
        name: 'username',
        label: 'Username',
        type: 'text',
        required: false,
        hint: 'Only for a proxy with HTTP Basic authentication in front of it',
      },
      { name: 'password', label: 'Password', type: 'password', required: false },
    ],
  },
  transport: {
    baseUrl: { setting: 'url' },
    timeoutMs: 15_000,
    retry: { attempts: 3, backoffMs: 500, retryAfterHeader: 'retry-after' },
    // hledger-web is one process serving one journal: a few requests at a time, and no flood.
    politeness: { maxConcurrent: 2, requests: 120, windowMs: 60_000 },
    paging: { style: 'none' },
  },
  dataTypes: {
    chartOfAccounts: { features: ['Get'], cursor: 'none' },
    journalEntries: { features: ['Get', 'Post'], cursor: 'none' },
    journals: { features: ['Get'], cursor: 'none' },
    accountTransactions: { features: ['Get'], cursor: 'none' },
    company: { features: ['Get'], cursor: 'none' },
    balanceSheet: { features: ['Get'], cursor: 'none' },
    profitAndLoss: { features: ['Get'], cursor: 'none' },
    cashFlowStatement: { features: ['Get'], cursor: 'none' },
  },
} as const);
