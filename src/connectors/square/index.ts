import type { DataTypeSource } from '../connector.js';
import { oauthCodeFlow, oauthConfig } from '../oauth/oauth-client.js';
import { CommerceOrder, CommercePayment, CommerceTransaction } from '../../codat-model/commerce/schemas.js';
import {
  CommerceCompanyInfo,
  CommerceCustomer,
  CommerceLocation,
  CommerceProduct,
  CommerceProductCategory,
} from '../../codat-model/commerce/catalog-schemas.js';
import { SQUARE } from './platform.js';
import { platformConnector } from '../platform-connector.js';
import { cursorPages, merchantOf, revokeSquareAccess, squareCall, squareInstant } from './square-api.js';
import * as map from './square-records.js';
import { squareWrites } from './square-writes.js';
import { changeSource, documentSource, SQUARE_EPOCH, sourceRecord, type MerchantScope } from './square-sources.js';

/**
 * Square (`zsth`): one seller (merchant) per connection through the Connect API (v2), behind Square's OAuth2 (tokens
 * of 30 days, refreshed ahead of expiry). Orders, payments, refunds, customers and the catalog are read in full
 * once, then by `updated_at` since Square's clock at the previous read. Customers are written back
 * (square-writes.ts). See docs/connectors/square.md for the mapping, field by field.
 */

/** Square searches orders of at most 10 locations at once. */
const LOCATIONS_PER_SEARCH = 10;
/** Orders in a completed sale's life; DRAFT orders are carts not yet placed, not sales. */
const ORDER_STATES = ['OPEN', 'COMPLETED', 'CANCELED'];
/** Customers are read in full every this many syncs: Square's search never reports a deleted customer. */
const CUSTOMERS_FULL_EVERY = 7;

const orders = changeSource({
  dataType: 'commerce-orders',
  typeName: 'Order',
  schema: CommerceOrder,
  streams(scope, since) {
    const chunks: string[][] = [];
    for (let i = 0; i < scope.locationIds.length; i += LOCATIONS_PER_SEARCH)
      chunks.push(scope.locationIds.slice(i, i + LOCATIONS_PER_SEARCH));
    return chunks.map((locationIds) => ({
      // In full by creation, which never changes (as payments and customers): a change made while the pages are read
      // moves nothing, whether Square's opaque cursor remembers a position or the last key, and is in the next read.
      // A delta read sorts by UPDATED_AT because the updated_at filter requires it; it relies on the cursor
      // continuing after the last key answered (docs/connectors/square.md, "No skipped record").
      pages: cursorPages(scope.endpoint, 'POST', 'orders/search', 'orders', {
        location_ids: locationIds,
        limit: 500,
        query: {
          filter: {
            state_filter: { states: ORDER_STATES },
            ...(since ? { date_time_filter: { updated_at: { start_at: since } } } : {}),
          },
          sort: { sort_field: since ? 'UPDATED_AT' : 'CREATED_AT', sort_order: 'ASC' },
        },
      }),
      records: (x) => [{ id: String(x.id), data: map.orderRecord(x, scope.locations) }],
    }));
  },
});

/** Payments of one location (Square lists the main location's unless told), oldest first by the field filtered on. */
function paymentPages(scope: MerchantScope, locationId: string, since: string | undefined) {
  return cursorPages(scope.endpoint, 'GET', 'payments', 'payments', {
    location_id: locationId,
    begin_time: SQUARE_EPOCH,
    updated_at_begin_time: since,
    // In full, by creation, which never changes: a payment updated during the read keeps its place.
    sort_field: since ? 'UPDATED_AT' : 'CREATED_AT',
    sort_order: 'ASC',
    limit: '100',
  });
}

const payments = changeSource({
  dataType: 'commerce-payments',
  typeName: 'Payment',
  schema: CommercePayment,
  streams: (scope, since) =>
    scope.locationIds.map((locationId) => ({
      pages: paymentPages(scope, locationId, since),
      records: (x) => [{ id: String(x.id), data: map.paymentRecord(x, scope.locations) }],
    })),
});

/**
 * Money that moved: completed payments (and Square's fees on them) and completed refunds. A payment or refund not
 * completed is not a transaction yet; when it completes, its `updated_at` brings it into the next read.
 */
const transactions = changeSource({
  dataType: 'commerce-transactions',
  typeName: 'Transaction',
  schema: CommerceTransaction,
  streams: (scope, since) => [
    ...scope.locationIds.map((locationId) => ({
      pages: paymentPages(scope, locationId, since),
      records: (x: Record<string, any>) => (x.status === 'COMPLETED' ? map.paymentTransactions(x, scope.locations) : []),
    })),
    {
      pages: cursorPages(scope.endpoint, 'GET', 'refunds', 'refunds', {
        begin_time: SQUARE_EPOCH,
        updated_at_begin_time: since,
        sort_field: since ? 'UPDATED_AT' : 'CREATED_AT',
        sort_order: 'ASC',
        limit: '100',
      }),
      records: (x: Record<string, any>) => (x.status === 'COMPLETED' ? map.refundTransactions(x, scope.locations) : []),
    },
  ],
});

const customers = changeSource({
  dataType: 'commerce-customers',
  typeName: 'Customer',
  schema: CommerceCustomer,
  fullEvery: CUSTOMERS_FULL_EVERY,
  streams: (scope, since) => [
    {
      // By creation, which never changes (Square sorts customers by name or creation only).
      pages: cursorPages(scope.endpoint, 'POST', 'customers/search', 'customers', {
        limit: 100,
        query: { ...(since ? { filter: { updated_at: { start_at: since } } } : {}), sort: { field: 'CREATED_AT', order: 'ASC' } },
      }),
      records: (x) => [{ id: String(x.id), data: map.customerRecord(x) }],
    },
  ],
});

/** Catalog objects of one type; a delta read asks for deleted ones too (`is_deleted`), a full read leaves them out. */
function catalogStream(
  scope: MerchantScope,
  since: string | undefined,
  type: 'ITEM' | 'CATEGORY',
  record: (x: Record<string, any>) => Record<string, unknown>,
) {
  return {
    pages: cursorPages(scope.endpoint, 'POST', 'catalog/search', 'objects', {
      object_types: [type],
      include_deleted_objects: since !== undefined,
      ...(since ? { begin_time: since } : {}),
      limit: 1000,
    }),
    records: (x: Record<string, any>) => [{ id: String(x.id), data: record(x) }],
    deleted: (x: Record<string, any>) => x.is_deleted === true,
  };
}

const products = changeSource({
  dataType: 'commerce-products',
  typeName: 'Product',
  schema: CommerceProduct,
  streams: (scope, since) => [catalogStream(scope, since, 'ITEM', map.productRecord)],
});

const productCategories = changeSource({
  dataType: 'commerce-productCategories',
  typeName: 'ProductCategory',
  schema: CommerceProductCategory,
  streams: (scope, since) => [catalogStream(scope, since, 'CATEGORY', map.categoryRecord)],
});

const locations = documentSource({
  dataType: 'commerce-locations',
  typeName: 'Location',
  schema: CommerceLocation,
  // Square keeps no update time on a location.
  records: async (scope) => scope.raw.map((l) => sourceRecord(String(l.id), null, map.locationRecord(l))),
});

const companyInfo = documentSource({
  dataType: 'commerce-companyInfo',
  typeName: 'CompanyInfo',
  schema: CommerceCompanyInfo,
  async records(scope) {
    const { body } = await squareCall(scope.endpoint, 'GET', `merchants/${encodeURIComponent(scope.settings.merchantId)}`);
    const merchant = body.merchant ?? {};
    const main = scope.raw.find((l) => l.id === merchant.main_location_id);
    return [
      sourceRecord(
        String(merchant.id ?? scope.settings.merchantId),
        squareInstant(merchant.created_at) ?? null,
        map.companyRecord(merchant, main),
      ),
    ];
  },
});

const sources: DataTypeSource[] = [companyInfo, locations, orders, payments, transactions, customers, products, productCategories];

export const square = platformConnector(SQUARE, {
  oauth2: oauthCodeFlow({
    declaration: SQUARE,
    async link(tokens, _query, config) {
      const merchant = await merchantOf(config, tokens.accessToken);
      const businessName = typeof merchant.business_name === 'string' ? merchant.business_name : undefined;
      return { settings: { merchantId: String(merchant.id), ...(businessName ? { businessName } : {}) }, credentials: tokens };
    },
  }),
  async revoke({ settings, credentials }) {
    const config = oauthConfig(SQUARE);
    if (!config) return;
    // By the merchant: the stored access token may have expired long ago (a connection idle past its 30 days).
    const merchantId = typeof settings.merchantId === 'string' && settings.merchantId !== '' ? settings.merchantId : undefined;
    const accessToken = typeof credentials.accessToken === 'string' ? credentials.accessToken : undefined;
    if (merchantId) await revokeSquareAccess(config, { merchantId });
    else if (accessToken) await revokeSquareAccess(config, { accessToken });
  },
  dataTypes: new Map(sources.map((s) => [s.dataType, s])),
  writes: squareWrites,
});
