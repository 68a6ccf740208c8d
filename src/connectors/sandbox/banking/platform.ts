import { declarePlatform } from '../../platform-declaration.js';

/**
 * The built-in banking Sandbox as data: identity, and the data types it reads (generated from the connection's seed;
 * no API to call).
 */
export const BANKING_SANDBOX = declarePlatform({
  key: 'bsbx',
  name: 'Banking Sandbox',
  sourceType: 'Banking',
  brandColour: '#0e8a6d',
  authorization: { kind: 'none' },
  dataTypes: {
    'banking-accountBalances': { features: ['Get'] },
    'banking-accounts': { features: ['Get'] },
    'banking-transactionCategories': { features: ['Get'] },
    'banking-transactions': { features: ['Get'] },
  },
} as const);
