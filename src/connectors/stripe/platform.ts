import { declarePlatform } from '../platform-declaration.js';

/**
 * Stripe as data: identity, the API-key form, how its API is called. Validated at start (docs/connectors/stripe.md).
 * Stripe Connect OAuth is offered beside the form when STRIPE_CLIENT_ID is set (see index.ts).
 */
export const STRIPE = declarePlatform({
  key: 'exgd',
  name: 'Stripe',
  sourceType: 'Commerce',
  brandColour: '#635bff',
  authorization: {
    kind: 'credentials',
    fields: [
      {
        name: 'apiKey',
        label: 'Restricted API key',
        type: 'password',
        required: true,
        hint:
          'A restricted key (rk_live_…) with read access to Customers, Products, Prices, Charges, Balance, Balance ' +
          'transactions, Disputes, Events and Account details; a secret key (sk_live_…) works too',
      },
    ],
  },
  transport: {
    // Read even without a client id: the API-key form always works.
    baseUrl: { fixed: 'https://api.stripe.com/v1', env: 'STRIPE_API_URL' },
    // Pinned to the version of the OpenAPI contract the mapping and the tests are written against.
    apiVersion: { value: '2023-08-16', header: 'stripe-version' },
    timeoutMs: 30_000,
    retry: { attempts: 3, backoffMs: 500, retryAfterHeader: 'retry-after' },
    // Stripe's live-mode read limit: 100 requests a second per account (test mode: 25, see stripe-api.ts).
    politeness: { maxConcurrent: 10, requests: 100, windowMs: 1_000 },
    // `starting_after` the last id of the page before, `has_more` until the end; `limit` at most 100.
    paging: {
      style: 'cursor',
      pageSize: 100,
      sizeParam: 'limit',
      param: 'starting_after',
      next: 'last-id',
      more: 'has_more',
      records: 'data',
    },
  },
  // Stripe Connect (Standard accounts), offered beside the form once STRIPE_CLIENT_ID is set (stripe-connect.ts).
  oauth2: {
    env: 'STRIPE',
    authorizeUrl: 'https://connect.stripe.com/oauth/authorize',
    tokenUrl: 'https://connect.stripe.com/oauth/token',
    revokeUrl: 'https://connect.stripe.com/oauth/deauthorize',
    // Read and write: the connection writes customers back (stripe-writes.ts); a read-only grant could not.
    scope: 'read_write',
    pkce: false,
    clientAuthentication: 'form-secret',
  },
  dataTypes: {
    // New objects by `created[gte]`, changes and deletions from `/v1/events` (kept 30 days).
    'commerce-customers': { features: ['Get', 'Post', 'Put', 'Delete'], cursor: { field: 'created' } },
    'commerce-orders': { features: ['Get'], cursor: { field: 'created' } },
    'commerce-payments': { features: ['Get'], cursor: { field: 'created' } },
    'commerce-disputes': { features: ['Get'], cursor: { field: 'created' } },
    // Balance transactions never change once made: new ones by `created[gte]` only.
    'commerce-transactions': { features: ['Get'], cursor: { field: 'created' } },
    'commerce-products': { features: ['Get'], cursor: 'none' },
    'commerce-companyInfo': { features: ['Get'], cursor: 'none' },
    'commerce-paymentMethods': { features: ['Get'], cursor: 'none' },
  },
} as const);
