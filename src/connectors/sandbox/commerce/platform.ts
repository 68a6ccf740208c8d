import { declarePlatform } from '../../platform-declaration.js';

/**
 * The built-in commerce Sandbox as data: identity, and the data types it reads (generated from the connection's seed;
 * no API to call).
 */
export const COMMERCE_SANDBOX = declarePlatform({
  key: 'aiwb',
  name: 'Commerce Sandbox',
  sourceType: 'Commerce',
  brandColour: '#7b3fe4',
  authorization: { kind: 'none' },
  dataTypes: {
    'commerce-companyInfo': { features: ['Get'] },
    'commerce-customers': { features: ['Get'] },
    'commerce-disputes': { features: ['Get'] },
    'commerce-locations': { features: ['Get'] },
    'commerce-orders': { features: ['Get'] },
    'commerce-paymentMethods': { features: ['Get'] },
    'commerce-payments': { features: ['Get'] },
    'commerce-productCategories': { features: ['Get'] },
    'commerce-products': { features: ['Get'] },
    'commerce-taxComponents': { features: ['Get'] },
    'commerce-transactions': { features: ['Get'] },
  },
} as const);
