import type { DataTypeSource, LinkResult } from '../connector.js';
import { ConnectorError, isConnectorError } from '../connector-error.js';
import {
  CommerceCompanyInfo,
  CommerceCustomer,
  CommercePaymentMethod,
  CommerceProduct,
} from '../../codat-model/commerce/catalog-schemas.js';
import { CommerceDispute, CommerceOrder, CommercePayment, CommerceTransaction } from '../../codat-model/commerce/schemas.js';
import { endpointOf, listAll, listPages, stripeGet, StripeForbidden, stripeInstant, type StripeObject } from './stripe-api.js';
import { deauthorize, stripeConnect } from './stripe-connect.js';
import * as map from './stripe-records.js';
import { documentSource, listSource, sourceRecord } from './stripe-sources.js';
import { STRIPE } from './platform.js';
import { platformConnector } from '../platform-connector.js';
import { stripeWrites } from './stripe-writes.js';

/**
 * Stripe (`exgd`): one Stripe account per connection, read with a restricted API key typed into the Link form, or
 * through Stripe Connect OAuth when the server is a Connect platform (STRIPE_CLIENT_ID). Full reads page through
 * Stripe's lists; later reads ask for what was created since the cursor and what Stripe's events (kept 30 days)
 * say changed or was deleted. Customers are written back (stripe-writes.ts). See docs/connectors/stripe.md for the
 * mapping, field by field.
 */

/** A charge changes when captured, refunded, disputed or settled; its events carry the charge as it now is. */
const CHARGE_CHANGES = [
  'charge.captured',
  'charge.expired',
  'charge.failed',
  'charge.pending',
  'charge.refunded',
  'charge.succeeded',
  'charge.updated',
] as const;

const single = (x: StripeObject, data: Record<string, unknown>) => [{ id: String(x.id), data }];

const sources: DataTypeSource[] = [
  listSource({
    dataType: 'commerce-customers',
    typeName: 'Customer',
    schema: CommerceCustomer,
    resource: 'customers',
    changes: ['customer.updated'],
    deletions: ['customer.deleted'],
    map: (x) => single(x, map.customerRecord(x)),
  }),
  listSource({
    dataType: 'commerce-orders',
    typeName: 'Order',
    schema: CommerceOrder,
    resource: 'charges',
    changes: CHARGE_CHANGES,
    map: (x) => (map.isSale(x) ? single(x, map.orderRecord(x)) : []),
  }),
  listSource({
    dataType: 'commerce-payments',
    typeName: 'Payment',
    schema: CommercePayment,
    resource: 'charges',
    changes: CHARGE_CHANGES,
    map: (x) => single(x, map.paymentRecord(x)),
  }),
  listSource({
    dataType: 'commerce-disputes',
    typeName: 'Dispute',
    schema: CommerceDispute,
    resource: 'disputes',
    changes: [
      'charge.dispute.created',
      'charge.dispute.updated',
      'charge.dispute.closed',
      'charge.dispute.funds_reinstated',
      'charge.dispute.funds_withdrawn',
    ],
    map: (x) => single(x, map.disputeRecord(x)),
  }),
  listSource({
    dataType: 'commerce-transactions',
    typeName: 'Transaction',
    schema: CommerceTransaction,
    resource: 'balance_transactions',
    map: (x) => map.transactionRecords(x),
  }),
  // A catalogue is small, and a price's events name its product only by id: read whole every time.
  documentSource({
    dataType: 'commerce-products',
    typeName: 'Product',
    schema: CommerceProduct,
    async records(endpoint) {
      const prices = new Map<string, StripeObject[]>();
      for (const price of await listAll(endpoint, 'prices')) {
        const product = map.idOf(price.product);
        if (product) prices.set(product, [...(prices.get(product) ?? []), price]);
      }
      const out = [];
      for await (const page of listPages(endpoint, 'products')) {
        for (const p of page.body) {
          const modified = stripeInstant(p.updated ?? p.created) ?? null;
          out.push(sourceRecord(String(p.id), modified, map.productRecord(p, prices.get(String(p.id)) ?? [])));
        }
      }
      return out;
    },
  }),
  documentSource({
    dataType: 'commerce-companyInfo',
    typeName: 'CompanyInfo',
    schema: CommerceCompanyInfo,
    async records(endpoint) {
      const account = (await stripeGet<StripeObject>(endpoint, 'account')).body;
      const balance = (await stripeGet<StripeObject>(endpoint, 'balance')).body;
      return [sourceRecord(String(account.id), null, map.companyRecord(account, balance))];
    },
  }),
  documentSource({
    dataType: 'commerce-paymentMethods',
    typeName: 'PaymentMethod',
    schema: CommercePaymentMethod,
    async records(endpoint) {
      const account = (await stripeGet<StripeObject>(endpoint, 'account')).body;
      return map.paymentMethodRecords(account).map((r) => sourceRecord(r.id, null, r.data));
    },
  }),
];

/** Test-mode keys (`sk_test_…`, `rk_test_…`) read the account's test data, under test mode's lower limits. */
const isLiveKey = (key: string) => !/^(sk|rk)_test_/.test(key);

/**
 * What every read needs besides the account: the lists the data types page through and the balance. A restricted
 * key is asked for one object of each at link time, so a key missing a permission is refused then, naming it, rather
 * than failing one data type's syncs later.
 */
const READ_AT_LINK = ['customers', 'charges', 'disputes', 'balance_transactions', 'products', 'prices', 'events', 'balance'] as const;

/** Stripe's words for each permission the key lacks (`…Having the 'rak_charge_read' permission would allow…`). */
async function missingPermissions(endpoint: ReturnType<typeof endpointOf>): Promise<string[]> {
  const answers = await Promise.allSettled(
    READ_AT_LINK.map((resource) => stripeGet(endpoint, resource === 'balance' ? resource : `${resource}?limit=1`)),
  );
  const missing: string[] = [];
  for (const answer of answers) {
    if (answer.status === 'fulfilled') continue;
    if (answer.reason instanceof StripeForbidden)
      missing.push(`GET /v1/${answer.reason.path}${answer.reason.stripeMessage ? ` (${answer.reason.stripeMessage})` : ''}`);
    else throw answer.reason;
  }
  return missing;
}

/**
 * `{"apiKey": "rk_live_…"}`: the key must read the account (`GET /v1/account`) and everything the data types read
 * (one object of each list, and the balance).
 */
async function link(input: Record<string, unknown>): Promise<LinkResult> {
  const apiKey = typeof input.apiKey === 'string' ? input.apiKey.trim() : '';
  if (!/^(sk|rk)_(live|test)_\w+$/.test(apiKey))
    throw new ConnectorError('invalid', 'apiKey is required: a restricted key (rk_live_…) or a secret key (sk_live_…)', 'apiKey');
  const credentials = { apiKey };
  const endpoint = { ...endpointOf({ livemode: isLiveKey(apiKey) }, credentials), attempts: 1, timeoutMs: 10_000 };
  try {
    const account = (await stripeGet<StripeObject>(endpoint, 'account')).body;
    if (typeof account.id !== 'string') throw new ConnectorError('invalid', 'Stripe answered /v1/account without an account', 'apiKey');
    const missing = await missingPermissions(endpoint);
    if (missing.length > 0)
      throw new ConnectorError(
        'invalid',
        `the API key lacks permissions Ledgerport reads with; give the restricted key read access for: ${missing.join('; ')}`,
        'apiKey',
      );
    return { settings: { ...map.settingsOf(account, isLiveKey(apiKey)) }, credentials };
  } catch (err) {
    if (!isConnectorError(err)) throw err;
    // Stripe refuses an unknown or revoked key (401); a restricted key without read access to the account is a 403.
    if (err instanceof StripeForbidden)
      throw new ConnectorError('invalid', `the API key cannot read the account (GET /v1/account): ${err.stripeMessage}`, 'apiKey');
    const message = err.kind === 'unauthorized' ? 'Stripe refused the API key' : err.message;
    throw new ConnectorError(err.kind === 'unauthorized' ? 'invalid' : err.kind, message, 'apiKey');
  }
}

export const stripe = platformConnector(STRIPE, {
  link,
  oauth2: stripeConnect,
  async revoke({ credentials }) {
    // An API key is the merchant's to roll; a Connect account is disconnected from the platform.
    if (typeof credentials.stripeUserId === 'string') await deauthorize(credentials.stripeUserId);
  },
  dataTypes: new Map(sources.map((s) => [s.dataType, s])),
  writes: stripeWrites,
});
