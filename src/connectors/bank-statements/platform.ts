import { declarePlatform } from '../platform-declaration.js';

/**
 * Bank statement files as data: identity, and the data types read from the files a company uploads (no API to call).
 */
export const BANK_STATEMENT_FILES = declarePlatform({
  key: 'fstm',
  name: 'Bank statement files',
  sourceType: 'Banking',
  brandColour: '#5b6770',
  authorization: { kind: 'files' },
  dataTypes: {
    'banking-accounts': { features: ['Get'] },
    'banking-transactions': { features: ['Get'] },
    'banking-accountBalances': { features: ['Get'] },
    'banking-transactionCategories': { features: ['Get'] },
  },
} as const);
