import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatLending } from '@codat/lending';
import { CodatCommerce } from '@codat/commerce';
import { http, startTestServer, type TestClient, type TestServer } from '../../helpers/test-server.js';
import { companyWithConnection, fetchOnFirstLinkOnly, waitForOperation, waitForSyncs, type LinkedCompany } from '../../helpers/sandbox.js';
import { createConsumer, expectEnvelope, startReceiver, verifySigned } from '../../webhooks/receiver.js';
import { startStripeFake, type StripeFake } from '../../fakes/stripe/stripe-fake.js';
import type { StripeAccount } from '../../fakes/stripe/stripe-account.js';
import { connectionCalls } from '../../helpers/connection-calls.js';
import { readsEveryClaimedType } from '../../helpers/claimed-reads.js';
import { exercised } from '../../helpers/capabilities.js';
import { ownServerLinked, withDeclared } from '../../helpers/declared.js';
import { STRIPE } from '../../../src/connectors/stripe/platform.js';

/**
 * Stripe (`exgd`) against the stateful fake of test/fakes/stripe/, whose every API answer is checked against Stripe's
 * own OpenAPI document: linked with an API key through `PUT …/authorization`, and through Stripe Connect from the
 * Link page's button; a full sync of every type, incremental syncs that read only what changed, events past their 30
 * days, a 429 storm, a rolled key, and reads through Codat's Lending SDK (`@codat/lending`, whose `sales` covers the
 * commerce data: there is no commerce SDK in node_modules).
 */
const TYPES = [
  'commerce-customers',
  'commerce-orders',
  'commerce-payments',
  'commerce-transactions',
  'commerce-disputes',
  'commerce-products',
  'commerce-companyInfo',
  'commerce-paymentMethods',
];
const STRIPE_ENV = [
  'STRIPE_CLIENT_ID',
  'STRIPE_CLIENT_SECRET',
  'STRIPE_AUTHORIZE_URL',
  'STRIPE_TOKEN_URL',
  'STRIPE_REVOKE_URL',
  'STRIPE_API_URL',
];

let fake: StripeFake;
let shop: StripeAccount;
let key: string;
let server: TestServer;
let client: TestClient;
let linked: LinkedCompany;
const saved: Record<string, string | undefined> = {};

function setEnv(values: Record<string, string>) {
  for (const name of STRIPE_ENV) {
    if (values[name] === undefined) delete process.env[name];
    else process.env[name] = values[name];
  }
}

beforeAll(async () => {
  fake = await startStripeFake();
  shop = fake.addAccount('Harbour Goods');
  shop.seed({ customers: 30, products: 12, charges: 250 });
  shop.dispute(shop.all('charges')[3].id);
  key = shop.newKey();
  for (const name of STRIPE_ENV) saved[name] = process.env[name];
  // No client id: the API-key form only.
  setEnv(fake.apiEnv());
  // Versions written on this thread: writer threads copy the environment when they start, and this test configures
  // Stripe Connect only later (as an operator restarting with STRIPE_CLIENT_ID set would).
  server = await startTestServer({ jobs: { writerThreads: 0 } });
  client = await server.newClient();
}, 60_000);

afterAll(async () => {
  await server?.close();
  await fake?.close();
  setEnv(saved as Record<string, string>);
});

const api = (method: string, path: string, body?: unknown) => http(server, method, path, { auth: client.auth, body });
const queue = async (dataType: string, companyId = linked.companyId) => {
  const res = await api('POST', `/companies/${companyId}/data/queue/${dataType}`);
  expect(res.status, res.text).toBe(200);
  return waitForOperation(server, client, companyId, res.body.id);
};
const dataPath = (dataType: string, target = linked) =>
  `/companies/${target.companyId}/connections/${target.connectionId}/data/${dataType === 'commerce-companyInfo' ? 'commerce-info' : dataType}`;
async function allRecords(dataType: string, target = linked): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  for (let page = 1; ; page++) {
    const res = await api('GET', `${dataPath(dataType, target)}?page=${page}&pageSize=500`);
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.results);
    if (out.length >= res.body.totalResults) return out;
  }
}
const calls = connectionCalls(
  () => server,
  () => client,
  () => linked,
);
const startUrl = async (target: LinkedCompany) =>
  (await api('GET', `/companies/${target.companyId}/connections/${target.connectionId}`)).body.linkUrl as string;

describe('Stripe', () => {
  it('is offered without a client id, with an API-key form and no Connect button', async () => {
    const res = await api('GET', '/integrations/exgd');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ key: 'exgd', name: 'Stripe', sourceType: 'Commerce', enabled: true });
    linked = await companyWithConnection(server, client, 'exgd');
    const page = await fetch(await startUrl(linked));
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toMatch(/<input id="field-apiKey" name="apiKey" type="password"/);
    expect(html).not.toContain('value="oauth"');
  });

  it('refuses a bad key naming apiKey, links with a good one, and syncs every type', async () => {
    await fetchOnFirstLinkOnly(server, client, linked.companyId, TYPES);
    const authorization = `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`;
    const bad = await api('PUT', authorization, { apiKey: 'rk_test_notakeyofthisaccount' });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.text).toContain('apiKey');
    expect(bad.text).not.toContain('notakeyofthisaccount');
    const good = await api('PUT', authorization, { apiKey: key });
    expect(good.status, good.text).toBe(200);
    expect(good.body.status).toBe('Linked');
    expect(good.text).not.toContain(key);
    const status = await waitForSyncs(server, client, linked.companyId, 120_000);
    for (const type of TYPES) expect(status[type]?.currentStatus, `${type}: ${JSON.stringify(status[type])}`).toBe('Complete');
    // Every call names the API version the mapping is written against, and reads the linked account.
    const calls = fake.apiRequests();
    expect(calls.length).toBeGreaterThan(0);
    expect(new Set(calls.map((r) => r.stripeVersion))).toEqual(new Set(['2023-08-16']));
    expect(fake.apiRequests((r) => r.status === 200 && r.account !== shop.id)).toEqual([]);
    expect(fake.violations).toEqual([]);
  });

  it('serves every data type it claims to Get, valid against its own OpenAPI document', async () => {
    await readsEveryClaimedType(server, client, linked, 'exgd');
  });

  it('maps charges to orders and payments, balance transactions with their fees, customers, products, disputes and the account', async () => {
    const charges = shop.all('charges');
    const orders = await allRecords('commerce-orders');
    expect(orders).toHaveLength(charges.filter((c) => c.status !== 'failed').length);
    const refunded = charges.find((c) => c.amount_refunded > 0)!;
    expect(orders.find((o) => o.id === refunded.id)).toMatchObject({
      currency: 'USD',
      totalAmount: refunded.amount / 100,
      // Money given back: negative, as Codat's Commerce spec and the sandbox have it.
      totalRefund: -5,
      customerRef: { id: refunded.customer },
      payments: [{ id: refunded.id, amount: refunded.amount / 100, status: 'Paid', type: 'OnlineCard', paymentProvider: 'Stripe' }],
      metadata: { isDeleted: false },
    });
    expect(orders[0].createdDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    const payments = await allRecords('commerce-payments');
    expect(payments).toHaveLength(charges.length);
    expect(payments.find((p) => p.id === charges.find((c) => c.status === 'failed')!.id)).toMatchObject({ status: 'Failed' });

    const balance = shop.all('balance_transactions');
    const transactions = await allRecords('commerce-transactions');
    expect(transactions).toHaveLength(balance.length + balance.filter((t) => t.fee !== 0).length);
    const sale = balance.find((t) => t.type === 'charge')!;
    expect(transactions.find((t) => t.id === sale.id)).toMatchObject({
      totalAmount: sale.amount / 100,
      type: 'Payment',
      subType: 'charge',
      transactionSourceRef: { id: sale.source, type: 'Payment' },
    });
    expect(transactions.find((t) => t.id === `${sale.id}-fee`)).toMatchObject({ totalAmount: -sale.fee / 100, type: 'PaymentFee' });
    // What reached the balance: the transactions and their fees add up to the account's available balance.
    const sum = transactions.reduce((s, t) => s + Math.round(t.totalAmount * 100), 0);
    expect(sum).toBe(shop.balance().available[0].amount);

    const customers = await allRecords('commerce-customers');
    expect(customers).toHaveLength(30);
    const first = shop.all('customers')[0];
    expect(customers.find((c) => c.id === first.id)).toMatchObject({
      customerName: first.name,
      emailAddress: first.email,
      defaultCurrency: 'USD',
      addresses: [{ type: 'Billing', line1: first.address.line1, city: 'London', country: 'GB' }],
    });
    const products = await allRecords('commerce-products');
    expect(products).toHaveLength(12);
    const monthly = products.find((p) => p.name === 'Product 1')!;
    expect(monthly.variants).toEqual([
      expect.objectContaining({ unitOfMeasure: 'per month', prices: [{ currency: 'USD', unitPrice: 15 }] }),
    ]);
    expect(products.find((p) => p.name === 'Product 2')!.variants).toHaveLength(2);
    const disputes = await allRecords('commerce-disputes');
    expect(disputes).toEqual([
      expect.objectContaining({
        status: 'EvidenceRequired',
        reason: 'fraudulent',
        disputedTransactions: [{ id: shop.all('charges')[3].id, type: 'Payment' }],
      }),
    ]);
    const info = await api('GET', dataPath('commerce-companyInfo'));
    expect(info.status, info.text).toBe(200);
    expect(info.body).toMatchObject({ companyName: 'Harbour Goods', commercePlatformRef: shop.id, baseCurrency: 'USD' });
    expect(info.body.accountBalances).toEqual([{ currency: 'USD', available: sum / 100, pending: 0, reserved: 0 }]);
    const methods = await allRecords('commerce-paymentMethods');
    expect(methods).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'card_payments', name: 'Card', status: 'Active' }),
        expect.objectContaining({ id: 'us_bank_account_ach_payments', status: 'Archived' }),
      ]),
    );
  });

  it('reads through the official SDK (@codat/lending, sales)', async () => {
    const sdk = new CodatLending({ serverURL: server.url, security: { authHeader: client.auth } });
    const target = { companyId: linked.companyId, connectionId: linked.connectionId };
    const orders = await sdk.sales.orders.list({ ...target, page: 1, pageSize: 10 });
    expect(orders.statusCode).toBe(200);
    expect(orders.commerceOrders?.results).toHaveLength(10);
    const customers = await sdk.sales.customers.list({ ...target, page: 1, pageSize: 5 });
    expect(customers.commerceCustomers?.totalResults).toBe(30);
    const transactions = await sdk.sales.transactions.list({ ...target, page: 1, pageSize: 5, query: 'type=PaymentFee' });
    expect(transactions.commerceTransactions?.results?.[0]?.type).toBe('PaymentFee');
  });

  it("reads through Codat's commerce SDK (@codat/commerce)", async () => {
    const sdk = new CodatCommerce({ serverURL: server.url, security: { authHeader: client.auth } });
    const target = { companyId: linked.companyId, connectionId: linked.connectionId };
    const orders = await sdk.orders.list({ ...target, page: 1, pageSize: 10 });
    expect(orders.statusCode).toBe(200);
    expect(orders.orders?.results).toHaveLength(10);
    const customers = await sdk.customers.list({ ...target, page: 1, pageSize: 5 });
    expect(customers.customers?.totalResults).toBe(30);
    const info = await sdk.companyInfo.get(target);
    expect(info.statusCode).toBe(200);
  });

  it('syncs incrementally: a new charge, a refund, a customer changed and one deleted, without reading unchanged pages', async () => {
    const [newest, , older] = shop.all('customers');
    const fresh = shop.createCharge(4200, { customer: newest.id });
    // Created half a minute ago and refunded now: listed as created since the cursor, and changed by an event since.
    const late = shop.createCharge(1500, { created: shop.now() - 30 });
    shop.refund(late.id, 100);
    const lateRefund = shop.eventList().find((e) => e.type === 'charge.refunded' && e.data.object.id === late.id)!;
    const refunded = shop.refund(shop.all('charges').find((c) => c.status === 'succeeded' && c.amount_refunded === 0)!.id);
    shop.updateCustomer(newest.id, { name: 'Renamed in Stripe' });
    shop.deleteCustomer(older.id);
    const before = fake.requests.length;
    for (const type of ['commerce-orders', 'commerce-customers', 'commerce-transactions']) {
      const op = await queue(type);
      expect(op.status, JSON.stringify(op)).toBe('Complete');
    }
    const reads = fake.requests.slice(before).filter((r) => r.path.startsWith('/v1/'));
    // Per type: one page of events and one of what was created since; not the three pages of 250 charges.
    const lists = reads.map((r) => `${r.path}${r.query.has('created[gte]') ? ' since' : ''}`);
    expect(lists.sort()).toEqual([
      '/v1/balance_transactions since',
      '/v1/charges since',
      '/v1/customers since',
      '/v1/events since',
      '/v1/events since',
    ]);
    const orders = await allRecords('commerce-orders');
    expect(orders.find((o) => o.id === fresh.id)).toMatchObject({ totalAmount: 42, customerRef: { id: newest.id } });
    expect(orders.find((o) => o.id === refunded.id)?.totalRefund).toBe(-refunded.amount / 100);
    // The newer of the refund's time and the creation's: the list's creation time does not send the record back.
    const lateOrder = orders.find((o) => o.id === late.id)!;
    expect(lateOrder.totalRefund).toBe(-1);
    expect(Date.parse(lateOrder.sourceModifiedDate)).toBe(lateRefund.created * 1000);
    expect(lateRefund.created).toBeGreaterThan(late.created);
    const customers = await allRecords('commerce-customers');
    expect(customers.find((c) => c.id === newest.id)?.customerName).toBe('Renamed in Stripe');
    expect(customers.find((c) => c.id === older.id)?.metadata).toEqual({ isDeleted: true });
    const transactions = await allRecords('commerce-transactions');
    expect(transactions.find((t) => t.id === fresh.balance_transaction)).toMatchObject({ totalAmount: 42, type: 'Payment' });
    expect(transactions.filter((t) => t.type === 'Refund' && t.totalAmount === -refunded.amount / 100)).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });

  it('cancels an authorisation that expired uncaptured', async () => {
    const hold = shop.authorize(2500);
    expect((await queue('commerce-payments')).status).toBe('Complete');
    expect((await allRecords('commerce-payments')).find((p) => p.id === hold.id)?.status).toBe('Authorized');
    shop.expireAuthorization(hold.id);
    expect((await queue('commerce-payments')).status).toBe('Complete');
    expect((await queue('commerce-orders')).status).toBe('Complete');
    expect((await allRecords('commerce-payments')).find((p) => p.id === hold.id)?.status).toBe('Cancelled');
    expect((await allRecords('commerce-orders')).find((o) => o.id === hold.id)).toMatchObject({
      totalRefund: -25,
      payments: [{ id: hold.id, status: 'Cancelled' }],
    });
    expect(fake.violations).toEqual([]);
  });

  it('reads in full when the cursor is older than the 30 days Stripe keeps events, by Stripe’s clock', async () => {
    fake.clockSkewSeconds = 31 * 86_400;
    try {
      const before = fake.requests.length;
      expect((await queue('commerce-customers')).status).toBe('Complete');
      const reads = fake.requests.slice(before).filter((r) => r.path === '/v1/customers');
      expect(reads.map((r) => r.query.has('created[gte]'))).toEqual([false]);
      expect(await allRecords('commerce-customers')).toHaveLength(30);
    } finally {
      fake.clockSkewSeconds = 0;
    }
    // The cursor is now 31 days ahead of Stripe's clock (back to this machine's): the next read is in full again.
    const before = fake.requests.length;
    expect((await queue('commerce-customers')).status).toBe('Complete');
    const reads = fake.requests.slice(before).filter((r) => r.path === '/v1/customers');
    expect(reads.map((r) => r.query.has('created[gte]'))).toEqual([false]);
  });

  it("catches a fake answer that breaks Stripe's contract", async () => {
    fake.tamper = (path, body) => {
      if (path === '/v1/account') body.charges_enabled = 'yes';
    };
    try {
      await queue('commerce-paymentMethods');
      expect(fake.violations).toEqual([expect.stringMatching(/^Stripe API GET \/v1\/account 200: .*charges_enabled must be boolean/)]);
    } finally {
      fake.tamper = undefined;
      fake.violations.length = 0;
    }
  });

  it('catches a write the contract does not take, as Stripe refuses it', async () => {
    try {
      const res = await fetch(`${fake.url}/v1/customers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ name: 'Ada', nickname: 'Countess' }),
      });
      expect(res.status).toBe(400);
      expect(fake.violations).toEqual([expect.stringMatching(/^Stripe API POST \/v1\/customers request: .*additionalProperty.*nickname/)]);
      expect(shop.all('customers').find((c) => c.name === 'Ada')).toBeUndefined();
    } finally {
      fake.violations.length = 0;
    }
  });

  it('writes a customer back, once for its Idempotency-Key though its answer is lost; it is in Stripe and in the next sync', async () => {
    // Stripe makes the customer, and its answer is lost: the connector sends the same request again, and Stripe
    // answers the first one's customer rather than making a second.
    fake.inject({ status: 503, count: 1, path: /^\/v1\/customers$/, method: 'POST', afterProcessing: true });
    const customersBefore = shop.all('customers').length;
    const before = fake.requests.length;
    const op = await calls.push('commerce-customers', {
      customerName: 'Mara Quinn',
      emailAddress: 'mara@quinn.example',
      phone: '+442079460123',
      note: 'Wholesale',
      addresses: [
        { type: 'Billing', line1: '7 Quay Street', city: 'Bristol', postalCode: 'BS1 4DB', country: 'GB' },
        { type: 'Delivery', line1: 'Dock 4', line2: 'Gate B', city: 'Bristol', country: 'GB' },
      ],
    });
    expect(op.status, JSON.stringify(op)).toBe('Success');
    const integration = (await calls.api('GET', '/integrations/exgd')).body;
    const features = integration.datatypeFeatures.find((f: { dataType: string }) => f.dataType === 'commerce-customers');
    expect(features.supportedFeatures.map((f: { featureType: string }) => f.featureType)).toEqual(['Get', 'Post', 'Put', 'Delete']);
    const writes = fake.apiRequests((r) => r.method === 'POST').filter((r) => fake.requests.indexOf(r) >= before);
    expect(writes.map((r) => r.status)).toEqual([503, 200]);
    expect(new Set(writes.map((r) => r.idempotencyKey))).toEqual(new Set([op.pushOperationKey]));
    expect(shop.all('customers')).toHaveLength(customersBefore + 1);
    const made = shop.get('customers', op.changes[0].recordRef.id)!;
    expect(op.changes).toEqual([{ type: 'Created', recordRef: { id: made.id, dataType: 'commerce-customers' }, attachmentId: null }]);
    expect(made).toMatchObject({
      name: 'Mara Quinn',
      email: 'mara@quinn.example',
      phone: '+442079460123',
      description: 'Wholesale',
      address: { line1: '7 Quay Street', line2: null, city: 'Bristol', postal_code: 'BS1 4DB', country: 'GB', state: null },
      shipping: { name: 'Mara Quinn', address: { line1: 'Dock 4', line2: 'Gate B', city: 'Bristol' } },
    });
    // The write queued a sync of customers, which picked it up.
    const synced = (await calls.allRecords('commerce-customers')).find((c) => c.id === made.id);
    expect(synced).toMatchObject({
      customerName: 'Mara Quinn',
      emailAddress: 'mara@quinn.example',
      note: 'Wholesale',
      addresses: [
        { type: 'Billing', line1: '7 Quay Street', postalCode: 'BS1 4DB' },
        { type: 'Delivery', line1: 'Dock 4', line2: 'Gate B' },
      ],
    });
    expect(fake.violations).toEqual([]);
    exercised('exgd', 'commerce-customers', 'Post');
  });

  it('replaces a customer (what the record leaves out is unset at Stripe) and deletes one; the next syncs say so', async () => {
    const target = shop.all('customers')[1];
    // Everything a replacement may have to unset, set beforehand (Stripe merges an address's fields on update).
    shop.updateCustomer(target.id, {
      description: 'Old note',
      shipping: {
        name: 'Old',
        phone: null,
        address: { city: 'Leeds', country: 'GB', line1: '2 Mill Lane', line2: null, postal_code: 'LS1 1AA', state: null },
      },
    });
    expect(target.address).toMatchObject({ city: 'London', postal_code: 'EC4Y 1AA' });
    const replaced = await calls.push(
      'commerce-customers',
      { customerName: 'Grace B. Hopper', emailAddress: 'grace@navy.example', addresses: [{ type: 'Billing', line1: '1 New Road' }] },
      { recordId: target.id },
    );
    expect(replaced.status, JSON.stringify(replaced)).toBe('Success');
    expect(shop.get('customers', target.id)).toMatchObject({
      name: 'Grace B. Hopper',
      email: 'grace@navy.example',
      phone: null,
      description: null,
      address: { line1: '1 New Road', line2: null, city: null, state: null, postal_code: null, country: null },
      shipping: null,
    });
    const after = (await calls.allRecords('commerce-customers')).find((c) => c.id === target.id)!;
    expect(after.customerName).toBe('Grace B. Hopper');
    expect(after.addresses).toEqual([{ type: 'Billing', line1: '1 New Road' }]);
    expect(after.phone ?? null).toBeNull();
    expect(after.note).toBeUndefined();
    exercised('exgd', 'commerce-customers', 'Put');

    // Stripe deletes the customer and the answer is lost: the DELETE, sent again (Stripe takes no idempotency key on
    // it), meets 404, and Stripe's answer for the id says it was deleted.
    fake.inject({ status: 503, count: 1, path: /^\/v1\/customers\//, method: 'DELETE', afterProcessing: true });
    const deleted = await calls.pushDelete('commerce-customers', target.id);
    expect(deleted.status, JSON.stringify(deleted)).toBe('Success');
    expect(fake.apiRequests((r) => r.method === 'DELETE').map((r) => r.status)).toEqual([503, 404]);
    expect(shop.get('customers', target.id)).toBeUndefined();
    expect((await calls.allRecords('commerce-customers')).find((c) => c.id === target.id)?.metadata).toEqual({ isDeleted: true });
    exercised('exgd', 'commerce-customers', 'Delete');

    // A customer Stripe never had: refused with Stripe's own words.
    const missing = await calls.pushDelete('commerce-customers', 'cus_neverexisted');
    expect(missing.status).toBe('Failed');
    expect(missing.errorMessage).toContain("No such customer: 'cus_neverexisted'");
    expect(fake.violations).toEqual([]);
  });

  it('takes back a customer as it was read, its currency included, and refuses another currency', async () => {
    const target = shop.all('customers')[2];
    const { id, modifiedDate, sourceModifiedDate, metadata, ...read } = (await calls.allRecords('commerce-customers')).find(
      (c) => c.id === target.id,
    )!;
    expect(read.defaultCurrency).toBe('USD');
    const same = await calls.push('commerce-customers', { ...read, note: 'Read, changed, written back' }, { recordId: id });
    expect(same.status, JSON.stringify(same)).toBe('Success');
    expect(shop.get('customers', id)).toMatchObject({ description: 'Read, changed, written back', currency: 'usd', name: target.name });
    const other = await calls.push('commerce-customers', { ...read, defaultCurrency: 'EUR' }, { recordId: id });
    expect(other.status).toBe('Failed');
    expect(other.errorMessage).toContain("Stripe sets a customer's currency from its first charge or subscription (the customer's is USD)");
    expect(fake.violations).toEqual([]);
  });

  it('fails a write Stripe keeps limiting, saying when to send it again; sent again, it is made once', async () => {
    // More 429s than a write waits out (Retry-After: 0 keeps the test quick): the write fails, and says when.
    fake.inject({ status: 429, count: 6, retryAfterSeconds: 0, path: /^\/v1\/customers$/, method: 'POST' });
    const before = fake.requests.length;
    const limited = await calls.push('commerce-customers', { customerName: 'Patient Customer' });
    expect(limited.status, JSON.stringify(limited)).toBe('Failed');
    expect(limited.errorMessage).toBe('The platform did not take the write: it is limiting requests (HTTP 429); send it again in 1 s.');
    const writes = fake.apiRequests((r) => r.method === 'POST').filter((r) => fake.requests.indexOf(r) >= before);
    expect(writes.map((r) => r.status)).toEqual(Array(6).fill(429));
    expect(shop.all('customers').filter((c) => c.name === 'Patient Customer')).toEqual([]);
    const again = await calls.push('commerce-customers', { customerName: 'Patient Customer' });
    expect(again.status, JSON.stringify(again)).toBe('Success');
    expect(shop.all('customers').filter((c) => c.name === 'Patient Customer')).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });

  it('refuses before sending what Stripe cannot keep; a key that may not write fails the write, not the connection', async () => {
    const { companyId, connectionId } = linked;
    const path = `/companies/${companyId}/connections/${connectionId}/push/commerce-customers`;
    const before = fake.requests.length;
    const refused = await calls.api('POST', path, {
      customerName: 'Too Much',
      defaultCurrency: 'GBP',
      phone: '+44 20 7946 0123 ext. 4567',
      addresses: [
        { type: 'Billing', line1: '1 Fleet Street' },
        { type: 'Unknown', line1: '2 Fleet Street' },
      ],
    });
    expect(refused.status, refused.text).toBe(400);
    const fields = (refused.body.validation?.errors ?? []).map((e: { itemId: string }) => e.itemId).sort();
    expect(fields).toEqual(['addresses', 'defaultCurrency', 'phone']);
    expect(fake.requests.length).toBe(before);

    // The merchant takes the write permission off the connection's key in Stripe's Dashboard.
    shop.setReadOnly(key, true);
    let op;
    try {
      op = await calls.push('commerce-customers', { customerName: 'Not Allowed' });
    } finally {
      shop.setReadOnly(key, false);
    }
    expect(op.status).toBe('Failed');
    expect(op.errorMessage).toMatch(/^The platform refused the write: .*rak_customer_write/);
    expect(JSON.stringify(op)).not.toContain(key);
    expect(shop.all('customers').find((c) => c.name === 'Not Allowed')).toBeUndefined();

    // Stripe answers 5xx to every attempt: the write fails, saying it may have been made.
    fake.inject({ status: 503, count: STRIPE.transport.retry.attempts, path: /^\/v1\/customers$/, method: 'POST' });
    const unanswered = await calls.push('commerce-customers', { customerName: 'Unanswered' });
    expect(unanswered.status).toBe('Failed');
    expect(unanswered.errorMessage).toMatch(
      /^The platform did not complete the write: .*HTTP 503.*It may have been made: read commerce-customers/,
    );
    expect((await calls.api('GET', `/companies/${companyId}/connections/${connectionId}`)).body.status).toBe('Linked');
    expect(fake.violations).toEqual([]);
  });

  it('retries a 5xx within a read; a Stripe still failing ends the sync FetchError and keeps the connection Linked', async () => {
    await calls.queueThroughServerErrors(fake, 'commerce-disputes', /^\/v1\/disputes/, STRIPE.transport.retry.attempts);
    expect(fake.violations).toEqual([]);
  });

  it('waits out a storm of 429s and completes the sync later, without failing', async () => {
    // More 429s than a read waits out: the sync goes back to the queue and finishes on a later run.
    fake.inject({ status: 429, count: 8, retryAfterSeconds: 1, path: /^\/v1\/disputes/ });
    const before = fake.requests.length;
    const op = await queue('commerce-disputes');
    expect(op.status, JSON.stringify(op)).toBe('Complete');
    expect(fake.requests.slice(before).filter((r) => r.status === 429)).toHaveLength(8);
    expect(fake.violations).toEqual([]);
  });

  it('links through Stripe Connect from the Link page once configured, reads on the account’s behalf, and deauthorizes it when deleted', async () => {
    setEnv(fake.connectEnv());
    try {
      const merchant = fake.addAccount('Quay Street Bakery');
      merchant.seed({ customers: 3, products: 1, charges: 5 });
      const target = await companyWithConnection(server, client, 'exgd');
      const url = await startUrl(target);
      const html = await (await fetch(url)).text();
      expect(html).toContain(
        '<button type="submit" class="button secondary" name="action" value="oauth" formnovalidate>Connect with Stripe</button>',
      );

      // Refused on Stripe's page: nothing linked.
      const refused = await fetch(url, { method: 'POST', body: new URLSearchParams({ action: 'oauth' }), redirect: 'follow' });
      expect(await refused.text()).toContain('You cancelled connecting Stripe');

      await fetchOnFirstLinkOnly(server, client, target.companyId, ['commerce-customers']);
      fake.consent = { grant: true, account: merchant };
      const before = fake.requests.length;
      const end = await fetch(url, { method: 'POST', body: new URLSearchParams({ action: 'oauth' }), redirect: 'follow' });
      expect(end.status).toBe(200);
      expect(await end.text()).toContain('Stripe is now connected');
      const connection = (await api('GET', `/companies/${target.companyId}/connections/${target.connectionId}`)).body;
      expect(connection.status).toBe('Linked');
      expect(fake.isConnected(merchant)).toBe(true);

      const status = await waitForSyncs(server, client, target.companyId, 60_000);
      expect(status['commerce-customers']?.currentStatus).toBe('Complete');
      const reads = fake.requests.slice(before).filter((r) => r.path.startsWith('/v1/'));
      // The account read at the link, then the first sync: each on the merchant's behalf, with the platform's key.
      expect(reads.map((r) => `${r.path} ${r.account}`)).toEqual([`/v1/account ${merchant.id}`, `/v1/customers ${merchant.id}`]);
      expect(await allRecords('commerce-customers', target)).toHaveLength(3);
      // The consent was read_write: a customer is written on the account's behalf, with the platform's key.
      const written = await connectionCalls(
        () => server,
        () => client,
        () => target,
      ).push('commerce-customers', { customerName: 'Written Through Connect' });
      expect(written.status, JSON.stringify(written)).toBe('Success');
      expect(merchant.get('customers', written.changes[0].recordRef.id)?.name).toBe('Written Through Connect');
      expect(fake.apiRequests((r) => r.method === 'POST').at(-1)?.account).toBe(merchant.id);
      expect(await allRecords('commerce-customers', target)).toHaveLength(4);

      const removed = await api('DELETE', `/companies/${target.companyId}/connections/${target.connectionId}`);
      expect(removed.status, removed.text).toBe(200);
      for (let i = 0; i < 100 && fake.isConnected(merchant); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(fake.isConnected(merchant)).toBe(false);
      expect(fake.violations).toEqual([]);
    } finally {
      setEnv(fake.apiEnv());
    }
  });

  it('turns a Connect connection Deauthorized, with an event, when the merchant disconnects the app in Stripe', async () => {
    setEnv(fake.connectEnv());
    const receiver = await startReceiver();
    try {
      const merchant = fake.addAccount('Pier Road Cycles');
      merchant.seed({ customers: 2, products: 1, charges: 2 });
      const target = await companyWithConnection(server, client, 'exgd');
      await fetchOnFirstLinkOnly(server, client, target.companyId, []);
      fake.consent = { grant: true, account: merchant };
      const end = await fetch(await startUrl(target), {
        method: 'POST',
        body: new URLSearchParams({ action: 'oauth' }),
        redirect: 'follow',
      });
      expect(await end.text()).toContain('Stripe is now connected');
      expect((await queue('commerce-customers', target.companyId)).status).toBe('Complete');

      const consumer = await createConsumer(server, client, { url: receiver.url, eventTypes: ['connection.disconnected'] });
      fake.disconnectFromDashboard(merchant);
      const op = await queue('commerce-customers', target.companyId);
      expect(op.status).toBe('AuthError');
      const connection = (await api('GET', `/companies/${target.companyId}/connections/${target.connectionId}`)).body;
      expect(connection.status).toBe('Deauthorized');
      const [delivery] = await receiver.waitFor(1);
      const payload = expectEnvelope(verifySigned(consumer.secret, delivery), 'connection.disconnected');
      expect(payload.connection).toMatchObject({ id: target.connectionId, status: 'Deauthorized' });
      expect(JSON.stringify(op)).not.toContain(fake.platformSecret);
      expect(fake.violations).toEqual([]);
    } finally {
      await receiver.close();
      setEnv(fake.apiEnv());
    }
  });

  it('reads its declaration when it runs: a changed API version and page size are what Stripe is asked', async () => {
    // Linked to the same account from a server whose syncs read where the declaration is changed.
    const { server: own, calls: ownCalls } = await ownServerLinked('exgd', ['commerce-customers'], async (calls, linked) => {
      const authorization = `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`;
      expect((await calls.api('PUT', authorization, { apiKey: key })).status).toBe(200);
    });
    try {
      const before = fake.requests.length;
      await withDeclared(STRIPE, { 'transport.apiVersion.value': '2024-06-20', 'transport.paging.pageSize': 1 }, async () => {
        expect((await ownCalls.queue('commerce-customers')).status).toBe('Complete');
      });
      const lists = fake
        .apiRequests((r) => r.path === '/v1/customers' && r.method === 'GET')
        .filter((r) => fake.requests.indexOf(r) >= before);
      expect(lists.length).toBeGreaterThan(1);
      expect(lists.every((r) => r.query.get('limit') === '1' && r.stripeVersion === '2024-06-20')).toBe(true);

      // Customers declared without a cursor: every sync reads the whole list (no `created[gte]`, no events); declared
      // again, the next read in full hands on a cursor and the one after asks for what changed since.
      const asked = (from: number) => fake.requests.slice(from).filter((r) => r.method === 'GET');
      let from = fake.requests.length;
      await withDeclared(STRIPE, { 'dataTypes.commerce-customers.cursor': 'none' }, async () => {
        expect((await ownCalls.queue('commerce-customers')).status).toBe('Complete');
      });
      expect(asked(from).map((r) => r.path)).not.toContain('/v1/events');
      expect(asked(from).every((r) => !r.query.has('created[gte]'))).toBe(true);
      from = fake.requests.length;
      expect((await ownCalls.queue('commerce-customers')).status).toBe('Complete');
      expect(asked(from).map((r) => r.path)).not.toContain('/v1/events');
      from = fake.requests.length;
      expect((await ownCalls.queue('commerce-customers')).status).toBe('Complete');
      expect(
        asked(from)
          .filter((r) => r.path === '/v1/customers')
          .every((r) => r.query.has('created[gte]')),
      ).toBe(true);
      expect(asked(from).map((r) => r.path)).toContain('/v1/events');
      expect(fake.violations).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('refuses a restricted key missing a permission at link time, naming apiKey and each permission', async () => {
    const target = await companyWithConnection(server, client, 'exgd');
    const partial = shop.newKey({ without: ['disputes', 'events'] });
    const before = fake.requests.length;
    const res = await api('PUT', `/companies/${target.companyId}/connections/${target.connectionId}/authorization`, { apiKey: partial });
    expect(res.status, res.text).toBe(400);
    expect(res.text).toContain('apiKey');
    expect(res.text).toContain('rak_dispute_read');
    expect(res.text).toContain('rak_event_read');
    expect(res.text).not.toContain('rak_charge_read');
    expect(res.text).not.toContain(partial);
    // One object of every list the data types read (and the balance), each asked for with limit=1.
    const asked = fake.requests.slice(before).filter((r) => r.path.startsWith('/v1/'));
    expect(asked.filter((r) => r.path !== '/v1/account' && r.path !== '/v1/balance').map((r) => r.query.get('limit'))).toEqual(
      Array(7).fill('1'),
    );
    expect(new Set(asked.map((r) => r.path))).toEqual(
      new Set(
        ['customers', 'charges', 'disputes', 'balance_transactions', 'products', 'prices', 'events', 'balance', 'account'].map(
          (p) => `/v1/${p}`,
        ),
      ),
    );
    const connection = (await api('GET', `/companies/${target.companyId}/connections/${target.connectionId}`)).body;
    expect(connection.status).not.toBe('Linked');
    expect(fake.violations).toEqual([]);
  });

  it('fails only the data type a 403 refuses, naming the missing permission, and keeps the connection Linked', async () => {
    // The merchant takes one permission off the linked key in Stripe's Dashboard.
    shop.restrictKey(key, ['disputes']);
    try {
      const op = await queue('commerce-disputes');
      expect(op.status, JSON.stringify(op)).toBe('FetchError');
      expect(JSON.stringify(op)).toContain('rak_dispute_read');
      expect(JSON.stringify(op)).not.toContain(key);
      const connection = await api('GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`);
      expect(connection.body.status).toBe('Linked');
      expect((await queue('commerce-customers')).status).toBe('Complete');
    } finally {
      shop.restrictKey(key, []);
    }
    expect((await queue('commerce-disputes')).status).toBe('Complete');
    expect(fake.violations).toEqual([]);
  });

  it('turns the connection Deauthorized when the key is rolled, with a signed event, and never shows the key', async () => {
    const receiver = await startReceiver();
    try {
      const consumer = await createConsumer(server, client, { url: receiver.url, eventTypes: ['connection.disconnected'] });
      shop.revokeKeys();
      const op = await queue('commerce-products');
      expect(op.status).toBe('AuthError');
      expect(JSON.stringify(op)).not.toContain(key);
      const connection = await api('GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`);
      expect(connection.body.status).toBe('Deauthorized');
      expect(connection.text).not.toContain(key);
      const [delivery] = await receiver.waitFor(1);
      const payload = expectEnvelope(verifySigned(consumer.secret, delivery), 'connection.disconnected');
      expect(payload.connection).toMatchObject({ id: linked.connectionId, status: 'Deauthorized' });
      expect(fake.violations).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
