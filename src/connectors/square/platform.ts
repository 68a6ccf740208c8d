import { declarePlatform } from '../platform-declaration.js';

/** Square as data: identity, OAuth2, how its Connect API (v2) is called. Validated at start (docs/connectors/square.md). */
export const SQUARE = declarePlatform({
  key: 'zsth',
  name: 'Square',
  sourceType: 'Commerce',
  brandColour: '#006aff',
  authorization: { kind: 'oauth2' },
  transport: {
    baseUrl: { fixed: 'https://connect.squareup.com/v2' },
    timeoutMs: 30_000,
    retry: { attempts: 3, backoffMs: 1_000, retryAfterHeader: 'retry-after' },
    // Square publishes no fixed limits (it answers 429 RATE_LIMITED when an application sends too much): a
    // conservative budget per merchant, 4 requests in flight and 300 a minute (5 a second), well under what its
    // guidance treats as normal use, so one merchant's sync never crowds out the seller's own apps.
    politeness: { maxConcurrent: 4, requests: 300, windowMs: 60_000 },
    // Every list and search answers an opaque `cursor` for the next page.
    paging: 'cursor',
  },
  dataTypes: {
    'commerce-companyInfo': { features: ['Get'], cursor: 'none' },
    'commerce-locations': { features: ['Get'], cursor: 'none' },
    // Square filters these by `updated_at`; the others are read whole every time (they are small).
    'commerce-orders': { features: ['Get'], cursor: { field: 'updated_at' } },
    'commerce-payments': { features: ['Get'], cursor: { field: 'updated_at' } },
    'commerce-transactions': { features: ['Get'], cursor: { field: 'updated_at' } },
    'commerce-customers': { features: ['Get', 'Post', 'Put'], cursor: { field: 'updated_at' } },
    'commerce-products': { features: ['Get'], cursor: { field: 'updated_at' } },
    'commerce-productCategories': { features: ['Get'], cursor: { field: 'updated_at' } },
  },
} as const);
