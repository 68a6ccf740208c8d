import { declarePlatform } from '../platform-declaration.js';

/** Square as data: identity, OAuth2, how its Connect API (v2) is called. Validated at start (docs/connectors/square.md). */
export const SQUARE = declarePlatform({
  key: 'zsth',
  name: 'Square',
  sourceType: 'Commerce',
  brandColour: '#006aff',
  authorization: { kind: 'oauth2' },
  transport: {
    baseUrl: { fixed: 'https://connect.squareup.com/v2', env: 'SQUARE_API_URL' },
    // `Square-Version`: the version of the contract the mapping and the tests are written against (test/contracts/square/).
    // Square keeps each version's behaviour, so a newer one is a deliberate change here, not a surprise.
    apiVersion: { value: '2025-08-20', header: 'square-version' },
    timeoutMs: 30_000,
    retry: { attempts: 3, backoffMs: 1_000, retryAfterHeader: 'retry-after' },
    // Square publishes no fixed limits (it answers 429 RATE_LIMITED when an application sends too much): a
    // conservative budget per merchant, 4 requests in flight and 300 a minute (5 a second), well under what its
    // guidance treats as normal use, so one merchant's sync never crowds out the seller's own apps.
    politeness: { maxConcurrent: 4, requests: 300, windowMs: 60_000 },
    // Every list and search answers an opaque `cursor` for the next page; each endpoint has its own largest page.
    paging: { style: 'cursor' },
  },
  oauth2: {
    env: 'SQUARE',
    authorizeUrl: 'https://connect.squareup.com/oauth2/authorize',
    tokenUrl: 'https://connect.squareup.com/oauth2/token',
    revokeUrl: 'https://connect.squareup.com/oauth2/revoke',
    // Read what the connector reads (the business and its locations, sales, customers, catalog); write customers back.
    scope: 'MERCHANT_PROFILE_READ PAYMENTS_READ ORDERS_READ CUSTOMERS_READ CUSTOMERS_WRITE ITEMS_READ',
    // Square's code flow for a server that keeps its secret: the secret authenticates the exchange and the refresh
    // token is long-lived and reusable, so a refresh whose answer is lost costs nothing. (With PKCE Square switches
    // to its public-client flow, whose refresh tokens are single-use and last 90 days.)
    pkce: false,
    clientAuthentication: 'json-body',
    // `session=false`: the seller signs in on Square's page rather than reusing a browser session of another account.
    authorizeParams: { session: 'false' },
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
