import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatLending } from '@codat/lending';
import { CodatCommerce } from '@codat/commerce';
import { startTestServer, type TestClient, type TestServer } from '../../helpers/test-server.js';
import { companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs, type LinkedCompany } from '../../helpers/sandbox.js';
import { oasValidator } from '../../helpers/oas.js';
import { connectionCalls } from '../../helpers/connection-calls.js';
import { readsEveryClaimedType } from '../../helpers/claimed-reads.js';
import { exercised } from '../../helpers/capabilities.js';
import { ownServerLinked, withDeclared } from '../../helpers/declared.js';
import { SQUARE } from '../../../src/connectors/square/platform.js';
import { createConsumer, expectEnvelope, startReceiver, verifySigned } from '../../webhooks/receiver.js';
import { startSquareFake, type SquareFake } from '../../fakes/square/square-fake.js';
import type { SquareMerchant } from '../../fakes/square/square-merchant.js';

/**
 * Square (`zsth`) against the stateful fake of test/fakes/square/, whose every answer is checked against Square's own
 * OpenAPI document: link by following the linkUrl, a full sync of every type, incremental syncs that read only what
 * changed (by Square's clock, which the fake keeps two hours off this one), an expired token, a revoked consent, a
 * 429 storm, and reads through Codat's SDK (`@codat/lending`: no commerce SDK is installed; Lending serves the same
 * commerce paths).
 */
const TYPES = [
  'commerce-companyInfo',
  'commerce-locations',
  'commerce-orders',
  'commerce-payments',
  'commerce-transactions',
  'commerce-customers',
  'commerce-products',
  'commerce-productCategories',
];
/** Codat's OAS schema of each served record. */
const OAS_SCHEMA: Record<string, string> = {
  'commerce-companyInfo': 'CompanyInfo',
  'commerce-locations': 'Location',
  'commerce-orders': 'Order',
  'commerce-payments': 'Payment',
  'commerce-transactions': 'Transaction',
  'commerce-customers': 'Customer',
  'commerce-products': 'Product',
  'commerce-productCategories': 'ProductCategory',
};

let fake: SquareFake;
let merchant: SquareMerchant;
let server: TestServer;
let client: TestClient;
let linked: LinkedCompany;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  fake = await startSquareFake();
  // Pages of 20 so the reads are several pages long.
  fake.maxPageSize = 20;
  fake.addMerchant('Another Seller').seedCatalog(3);
  merchant = fake.addMerchant('Blue Bottle Corner');
  fake.consent = { grant: true, merchant };
  merchant.seedCatalog(30);
  merchant.seedCustomers(45);
  merchant.seedOrders(120);
  for (const [name, value] of Object.entries(fake.env())) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  server = await startTestServer();
  client = await server.newClient();
}, 60_000);

afterAll(async () => {
  await server?.close();
  await fake?.close();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

// The calls every platform's tests make (test/helpers/connection-calls.ts).
const { api, pathOf, queue, queueThroughStorm, queueThroughServerErrors, allRecords, push } = connectionCalls(
  () => server,
  () => client,
  () => linked,
);
const searches = (path: string, since: number) =>
  fake
    .apiRequests()
    .slice(since)
    .filter((r) => r.path === path);

describe('Square', () => {
  it('is offered once configured, as a commerce platform', async () => {
    const res = await api('GET', '/integrations/zsth');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ key: 'zsth', name: 'Square', sourceType: 'Commerce', enabled: true });
  });

  it('links by following the linkUrl through Square consent, with no page to click through, and syncs every type', async () => {
    linked = await companyWithConnection(server, client, 'zsth');
    await fetchOnFirstLinkOnly(server, client, linked.companyId, TYPES);
    const connection = (await api('GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`)).body;
    const end = await fetch(connection.linkUrl, { redirect: 'follow' });
    expect(end.status).toBe(200);
    expect(await end.text()).toContain('Square is now connected');
    const after = (await api('GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`)).body;
    expect(after.status).toBe('Linked');
    const authorize = new URLSearchParams(fake.requests.find((r) => r.path === '/oauth2/authorize')?.query);
    expect(authorize.get('session')).toBe('false');
    expect(authorize.get('scope')?.split(' ')).toEqual(
      expect.arrayContaining(['MERCHANT_PROFILE_READ', 'PAYMENTS_READ', 'ORDERS_READ', 'CUSTOMERS_READ', 'CUSTOMERS_WRITE', 'ITEMS_READ']),
    );
    const row = await server.store.db
      .selectFrom('connections')
      .select('settings')
      .where('id', '=', linked.connectionId)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.settings ?? '{}')).toEqual({ merchantId: merchant.id, businessName: 'Blue Bottle Corner' });
    const status = await waitForSyncs(server, client, linked.companyId, 120_000);
    for (const type of TYPES) expect(status[type]?.currentStatus, `${type}: ${JSON.stringify(status[type])}`).toBe('Complete');
    expect(fake.violations).toEqual([]);
  });

  it('serves every data type it claims to Get, valid against its own OpenAPI document', async () => {
    await readsEveryClaimedType(server, client, linked, 'zsth');
  });

  it("maps every type to Codat's shapes, each record valid against Codat's commerce OAS", async () => {
    for (const type of TYPES) {
      const records = type === 'commerce-companyInfo' ? [(await api('GET', pathOf(type))).body] : await allRecords(type);
      const validate = oasValidator('Codat-Commerce.json', OAS_SCHEMA[type]);
      for (const record of records) expect(validate(record), `${type} ${record.id}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    const orders = await allRecords('commerce-orders');
    const squareOrders = [...merchant.collection('orders').values()];
    // Drafts are carts, not sales.
    expect(orders).toHaveLength(squareOrders.filter((o) => o.state !== 'DRAFT').length);
    const paid = squareOrders.find((o) => o.state === 'COMPLETED' && o.refunds && o.line_items.length === 2)!;
    const order = orders.find((o) => o.id === paid.id)!;
    const location = merchant.locations.find((l) => l.id === paid.location_id)!;
    expect(order).toMatchObject({
      orderNumber: paid.reference_id,
      currency: 'USD',
      country: 'US',
      totalAmount: paid.total_money.amount / 100,
      totalTaxAmount: paid.total_tax_money.amount / 100,
      // Money given back: negative, as Codat's Commerce spec and the sandbox have it.
      totalRefund: -paid.refunds[0].amount_money.amount / 100,
      locationRef: { id: location.id, name: location.name },
      payments: [
        { id: paid.tenders[0].payment_id, amount: paid.total_money.amount / 100, type: 'Card', status: 'Paid', paymentProvider: 'Square' },
      ],
      metadata: { isDeleted: false },
    });
    // Codat's dates are the shop's: Square's UTC instant in the location's time zone.
    const local = new Date(paid.created_at).toLocaleString('sv-SE', { timeZone: location.timezone }).replace(' ', 'T');
    expect(order.createdDate).toBe(local);
    expect(order.orderLineItems[1]).toMatchObject({
      id: 'line-1',
      quantity: Number(paid.line_items[1].quantity),
      unitPrice: paid.line_items[1].base_price_money.amount / 100,
      taxPercentage: 8.75,
      productVariantRef: { id: paid.line_items[1].catalog_object_id },
      taxes: [{ taxComponentRef: { id: 'TAXSALES8750', name: 'Sales tax' }, rate: paid.line_items[1].total_tax_money.amount / 100 }],
    });

    const payments = await allRecords('commerce-payments');
    // Every location's payments, not only the main location's (Square's default).
    expect(payments).toHaveLength(merchant.collection('payments').size);
    expect(payments.find((p) => p.id === paid.tenders[0].payment_id)).toMatchObject({
      amount: paid.total_money.amount / 100,
      status: 'Paid',
      paymentMethodRef: { id: 'CARD', name: 'VISA' },
    });
    const transactions = await allRecords('commerce-transactions');
    const refund = [...merchant.collection('refunds').values()][0];
    expect(transactions.find((t) => t.id === refund.id)).toMatchObject({
      type: 'Refund',
      totalAmount: -refund.amount_money.amount / 100,
      transactionSourceRef: { id: refund.payment_id, type: 'Payment' },
    });
    expect(transactions.filter((t) => t.type === 'Payment')).toHaveLength(merchant.collection('payments').size);
    expect(transactions.filter((t) => t.type === 'PaymentFee')).toHaveLength(merchant.collection('payments').size);
    expect(transactions.find((t) => t.type === 'PaymentFee')?.totalAmount).toBeLessThan(0);
    // A refund's fee adjustment (Square giving back part of the payment's fee) is a transaction of its own.
    expect(transactions.find((t) => t.id === `${refund.id}-fee`)).toMatchObject({
      type: 'PaymentFeeRefund',
      totalAmount: -refund.processing_fee[0].amount_money.amount / 100,
      transactionSourceRef: { id: refund.payment_id, type: 'Payment' },
    });
    // So the transactions add up to what reached the seller: payments less their fees, less refunds net of theirs.
    const fees = (x: Record<string, any>) => (x.processing_fee ?? []).reduce((sum: number, f: any) => sum + f.amount_money.amount, 0);
    const completed = (c: 'payments' | 'refunds') => [...merchant.collection(c).values()].filter((x) => x.status === 'COMPLETED');
    const net =
      completed('payments').reduce((sum, p) => sum + p.total_money.amount - fees(p), 0) +
      completed('refunds').reduce((sum, r) => sum - r.amount_money.amount - fees(r), 0);
    expect(transactions.reduce((sum, t) => sum + Math.round(t.totalAmount * 100), 0)).toBe(net);

    const customers = await allRecords('commerce-customers');
    expect(customers).toHaveLength(45);
    const first = [...merchant.collection('customers').values()][0];
    expect(customers.find((c) => c.id === first.id)).toMatchObject({
      customerName: `${first.given_name} ${first.family_name}`,
      emailAddress: first.email_address,
      addresses: [{ type: 'Billing', line1: first.address.address_line_1, city: 'San Francisco', country: 'US' }],
    });
    const products = await allRecords('commerce-products');
    expect(products).toHaveLength(30);
    const giftCard = products.find((p) => p.name === 'Item 1')!;
    expect(giftCard).toMatchObject({
      isGiftCard: true,
      variants: [{ name: 'Regular', sku: 'SKU-0-0', prices: [{ currency: 'USD', unitPrice: 3.5 }], status: 'Published' }],
    });
    expect(await allRecords('commerce-productCategories')).toHaveLength(3);
    expect((await allRecords('commerce-locations')).map((l) => l.name).sort()).toEqual(['Broadway', 'Mission Street']);
    const info = (await api('GET', pathOf('commerce-companyInfo'))).body;
    expect(info).toMatchObject({
      id: merchant.id,
      companyName: 'Blue Bottle Corner',
      baseCurrency: 'USD',
      commercePlatformRef: merchant.id,
    });
  });

  it('reads through the official SDK (Codat Lending, whose commerce paths these are)', async () => {
    const sdk = new CodatLending({ serverURL: server.url, security: { authHeader: client.auth } });
    const page = await sdk.sales.orders.list({ companyId: linked.companyId, connectionId: linked.connectionId, page: 1, pageSize: 10 });
    expect(page.statusCode).toBe(200);
    expect(page.commerceOrders?.results?.length).toBe(10);
    const customers = await sdk.sales.customers.list({
      companyId: linked.companyId,
      connectionId: linked.connectionId,
      page: 1,
      pageSize: 5,
    });
    expect(customers.commerceCustomers?.totalResults).toBe(45);
  });

  it("reads through Codat's commerce SDK (@codat/commerce)", async () => {
    const sdk = new CodatCommerce({ serverURL: server.url, security: { authHeader: client.auth } });
    const target = { companyId: linked.companyId, connectionId: linked.connectionId };
    const orders = await sdk.orders.list({ ...target, page: 1, pageSize: 10 });
    expect(orders.statusCode).toBe(200);
    expect(orders.orders?.results?.length).toBe(10);
    const locations = await sdk.locations.list(target);
    expect(locations.statusCode).toBe(200);
    expect(locations.locations?.totalResults).toBeGreaterThan(0);
    expect((await sdk.companyInfo.get(target)).statusCode).toBe(200);
  });

  it('syncs incrementally by Square clock: a change and a deletion, without reading unchanged pages again', async () => {
    const orders = [...merchant.collection('orders').values()].filter((o) => o.state === 'COMPLETED');
    merchant.update('orders', orders[3].id, { reference_id: 'Changed in Square' });
    const item = [...merchant.collection('catalog').values()].filter((o) => o.type === 'ITEM');
    merchant.update('catalog', item[4].id, { item_data: { ...item[4].item_data, name: 'Renamed in Square' } });
    merchant.deleteCatalogObject(item[5].id);

    const before = fake.apiRequests().length;
    expect((await queue('commerce-orders')).status).toBe('Complete');
    const orderSearches = searches('/v2/orders/search', before);
    // One page of changes, asked for by updated_at: not the seven pages of 120 orders.
    expect(orderSearches, JSON.stringify(orderSearches)).toHaveLength(1);
    expect(orderSearches[0].body?.query).toMatchObject({
      filter: { date_time_filter: { updated_at: { start_at: expect.any(String) } } },
      sort: { sort_field: 'UPDATED_AT', sort_order: 'ASC' },
    });
    expect((await allRecords('commerce-orders')).find((o) => o.id === orders[3].id)?.orderNumber).toBe('Changed in Square');

    const catalogBefore = fake.apiRequests().length;
    const productsOp = await queue('commerce-products');
    expect(productsOp.status, JSON.stringify(fake.violations)).toBe('Complete');
    const catalogSearches = searches('/v2/catalog/search', catalogBefore);
    expect(catalogSearches).toHaveLength(1);
    expect(catalogSearches[0].body).toMatchObject({ include_deleted_objects: true, begin_time: expect.any(String) });
    const products = await allRecords('commerce-products');
    expect(products.find((p) => p.id === item[4].id)?.name).toBe('Renamed in Square');
    expect(products.find((p) => p.id === item[5].id)?.metadata).toEqual({ isDeleted: true });
    expect(fake.violations).toEqual([]);
  });

  it('never skips an order changed while its pages are read', async () => {
    // Fifty orders change, so the next read is three pages of changes; after the first page is answered, an order
    // on it changes again. Oldest change first, it moves behind Square's cursor and is read on a later page.
    const orders = [...merchant.collection('orders').values()].filter((o) => o.state !== 'DRAFT');
    for (const o of orders.slice(0, 50)) merchant.update('orders', o.id, { ticket_name: 'batch' });
    let changed = false;
    fake.afterAnswer = (log) => {
      if (!changed && log.path === '/v2/orders/search') {
        changed = true;
        merchant.update('orders', orders[0].id, { reference_id: 'Changed mid-read' });
      }
    };
    try {
      expect((await queue('commerce-orders')).status).toBe('Complete');
    } finally {
      fake.afterAnswer = undefined;
    }
    expect(changed).toBe(true);
    const records = await allRecords('commerce-orders');
    expect(records.find((o) => o.id === orders[0].id)?.orderNumber).toBe('Changed mid-read');
    expect(records.filter((o) => orders.slice(0, 50).some((x) => x.id === o.id))).toHaveLength(50);
  });

  it('never skips an order changed during a full read, even if Square’s cursor is a position', async () => {
    // A full read sorted by CREATED_AT: an order changed after the first page keeps its place, so a cursor that
    // continues at a position skips nothing (sorted by UPDATED_AT, the change would move it to the end and shift the
    // next page's first order onto the page already read).
    const seller = fake.addMerchant('Positional Cursor Cafe');
    seller.seedOrders(60);
    fake.consent = { grant: true, merchant: seller };
    const target = await companyWithConnection(server, client, 'zsth');
    await fetchOnFirstLinkOnly(server, client, target.companyId, ['commerce-orders']);
    const sales = [...seller.collection('orders').values()].filter((o) => o.state !== 'DRAFT');
    const oldest = sales.reduce((a, b) => (a.created_at <= b.created_at ? a : b));
    let changed = false;
    fake.positionalCursors = true;
    fake.afterAnswer = (log) => {
      if (!changed && log.path === '/v2/orders/search' && log.merchantId === seller.id) {
        changed = true;
        seller.update('orders', oldest.id, { reference_id: 'Changed mid-read' });
      }
    };
    const before = fake.apiRequests().length;
    try {
      const connection = (await api('GET', `/companies/${target.companyId}/connections/${target.connectionId}`)).body;
      expect((await fetch(connection.linkUrl, { redirect: 'follow' })).status).toBe(200);
      const status = await waitForSyncs(server, client, target.companyId, 60_000);
      expect(status['commerce-orders']?.currentStatus, JSON.stringify(status)).toBe('Complete');
    } finally {
      fake.positionalCursors = false;
      fake.afterAnswer = undefined;
      fake.consent = { grant: true, merchant };
    }
    expect(changed).toBe(true);
    const read = searches('/v2/orders/search', before);
    expect(read.length).toBeGreaterThan(1);
    expect(read.map((r) => r.body?.query?.sort)).toEqual(read.map(() => ({ sort_field: 'CREATED_AT', sort_order: 'ASC' })));
    const res = await api(
      'GET',
      `/companies/${target.companyId}/connections/${target.connectionId}/data/commerce-orders?page=1&pageSize=500`,
    );
    expect(res.status, res.text).toBe(200);
    expect(new Set(res.body.results.map((o: { id: string }) => o.id))).toEqual(new Set(sales.map((o) => o.id)));
    expect(fake.violations).toEqual([]);
  });

  it("catches a fake answer that breaks Square's contract", async () => {
    fake.tamper = (path, body) => {
      if (path === '/v2/locations') body.locations[0].capabilities = 'CREDIT_CARD_PROCESSING';
    };
    try {
      const op = await queue('commerce-locations');
      expect(fake.violations, JSON.stringify(op)).toEqual([
        expect.stringMatching(/^Square API GET \/v2\/locations 200: .*capabilities must be array/),
      ]);
    } finally {
      fake.tamper = undefined;
      fake.violations.length = 0;
    }
  });

  it('writes a customer back, once for its idempotency_key though its answer is lost; it is in Square and in the next sync', async () => {
    // Square makes the customer, and its answer is lost: the connector sends the same request again, and Square
    // answers the first one's customer rather than making a second.
    fake.inject({ status: 500, count: 1, path: /^\/v2\/customers$/, method: 'POST', afterProcessing: true });
    const customersBefore = merchant.collection('customers').size;
    const before = fake.apiRequests().length;
    const op = await push('commerce-customers', {
      customerName: 'Mara Quinn',
      emailAddress: 'mara@quinn.example',
      phone: '+14155550123',
      note: 'Wholesale',
      addresses: [{ type: 'Billing', line1: '7 Quay Street', city: 'Bristol', region: 'Avon', postalCode: 'BS1 4DB', country: 'GB' }],
    });
    expect(op.status, JSON.stringify(op)).toBe('Success');
    const writes = fake
      .apiRequests()
      .slice(before)
      .filter((r) => r.method === 'POST' && r.path === '/v2/customers');
    expect(writes.map((r) => r.status)).toEqual([500, 200]);
    expect(new Set(writes.map((r) => r.body?.idempotency_key))).toEqual(new Set([op.pushOperationKey]));
    expect(merchant.collection('customers').size).toBe(customersBefore + 1);
    const made = merchant.collection('customers').get(op.changes[0].recordRef.id)!;
    expect(made).toMatchObject({
      given_name: 'Mara',
      family_name: 'Quinn',
      email_address: 'mara@quinn.example',
      phone_number: '+14155550123',
      note: 'Wholesale',
      address: {
        address_line_1: '7 Quay Street',
        locality: 'Bristol',
        administrative_district_level_1: 'Avon',
        postal_code: 'BS1 4DB',
        country: 'GB',
      },
    });
    // The write queued a sync of customers, which read it back (a delta by Square's clock).
    const synced = (await allRecords('commerce-customers')).find((c) => c.id === made.id);
    expect(synced).toMatchObject({
      customerName: 'Mara Quinn',
      emailAddress: 'mara@quinn.example',
      phone: '+14155550123',
      note: 'Wholesale',
      addresses: [{ type: 'Billing', line1: '7 Quay Street', city: 'Bristol', postalCode: 'BS1 4DB', country: 'GB' }],
    });
    expect(fake.violations).toEqual([]);
    exercised('zsth', 'commerce-customers', 'Post');
  });

  it('replaces a customer (what the record leaves out is cleared at Square, within the address too); the next sync says so', async () => {
    const target = [...merchant.collection('customers').values()].find((c) => c.note === 'Regular' && c.address)!;
    merchant.update('customers', target.id, { address: { ...target.address, address_line_2: 'Suite 4', address_line_3: 'Back door' } });
    const op = await push(
      'commerce-customers',
      { customerName: 'Ada King Lovelace', emailAddress: 'ada@example.com', addresses: [{ type: 'Billing', line1: '1 New Road' }] },
      { recordId: target.id },
    );
    expect(op.status, JSON.stringify(op)).toBe('Success');
    const now = merchant.collection('customers').get(target.id)!;
    expect(now).toMatchObject({ given_name: 'Ada', family_name: 'King Lovelace', email_address: 'ada@example.com' });
    expect([now.phone_number, now.note]).toEqual([undefined, undefined]);
    expect(now.address).toEqual({ address_line_1: '1 New Road' });
    const synced = (await allRecords('commerce-customers')).find((c) => c.id === target.id)!;
    expect(synced.customerName).toBe('Ada King Lovelace');
    expect(synced.addresses).toEqual([{ type: 'Billing', line1: '1 New Road' }]);
    expect([synced.note, synced.phone]).toEqual([undefined, undefined]);
    exercised('zsth', 'commerce-customers', 'Put');

    // A customer Square knows by its company name alone keeps its name there: read back, it is the same.
    const company = [...merchant.collection('customers').values()].find((c) => c.id !== target.id && c.note !== 'Regular')!;
    merchant.update('customers', company.id, { company_name: 'Quay Traders Ltd' });
    delete company.given_name;
    delete company.family_name;
    const renamed = await push('commerce-customers', { customerName: 'Quay Traders Group Ltd' }, { recordId: company.id });
    expect(renamed.status, JSON.stringify(renamed)).toBe('Success');
    const companyNow = merchant.collection('customers').get(company.id)!;
    expect([companyNow.company_name, companyNow.given_name, companyNow.family_name]).toEqual([
      'Quay Traders Group Ltd',
      undefined,
      undefined,
    ]);
    expect((await allRecords('commerce-customers')).find((c) => c.id === company.id)?.customerName).toBe('Quay Traders Group Ltd');

    // A customer Square does not have: refused in Square's words.
    const missing = await push('commerce-customers', { customerName: 'Nobody' }, { recordId: 'NOSUCHCUSTOMER' });
    expect(missing.status).toBe('Failed');
    expect(missing.errorMessage).toContain('NOSUCHCUSTOMER` not found');
    expect(fake.violations).toEqual([]);
  });

  it('refuses before sending what Square cannot keep; a grant without CUSTOMERS_WRITE fails the write, not the connection', async () => {
    const path = `/companies/${linked.companyId}/connections/${linked.connectionId}/push/commerce-customers`;
    const before = fake.apiRequests().length;
    const refused = await api('POST', path, {
      defaultCurrency: 'USD',
      addresses: [
        { type: 'Billing', country: 'United Kingdom' },
        { type: 'Delivery', line1: '9 Dock Road' },
      ],
    });
    expect(refused.status, refused.text).toBe(400);
    const fields = refused.body.validation.errors.map((e: { itemId: string }) => e.itemId).sort();
    expect(fields).toEqual(['addresses', 'addresses[0].country', 'customerName', 'defaultCurrency']);
    // Square keeps customers it cannot delete through this API: deletion is not offered.
    const deletion = await api('DELETE', `${path}/${[...merchant.collection('customers').keys()][0]}`);
    expect(deletion.status, deletion.text).toBe(405);
    expect(fake.apiRequests().length).toBe(before);

    // The seller's grant predates write-back: it lacks CUSTOMERS_WRITE.
    const giveBack = fake.withdrawScope('CUSTOMERS_WRITE');
    let op;
    try {
      op = await push('commerce-customers', { customerName: 'Not Allowed' });
    } finally {
      giveBack();
    }
    expect(op.status).toBe('Failed');
    expect(op.errorMessage).toContain('CUSTOMERS_WRITE');
    expect((await api('GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`)).body.status).toBe('Linked');
    expect([...merchant.collection('customers').values()].find((c) => c.given_name === 'Not')).toBeUndefined();
    expect((await queue('commerce-customers')).status).toBe('Complete');
    expect(fake.violations).toEqual([]);
  });

  it('catches a write the contract does not take: a field Square does not declare, or one of the wrong type', async () => {
    const token = [...fake.issued].filter((t) => t.startsWith('EAAA')).at(-1)!;
    const send = (body: unknown) =>
      fetch(`${fake.url}/v2/customers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'square-version': '2025-08-20', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    try {
      expect((await send({ given_name: 'Ada', birth_place: 'London' })).status).toBe(400);
      expect((await send({ given_name: 42 })).status).toBe(400);
      expect(fake.violations).toEqual([
        expect.stringMatching(/^Square API POST \/v2\/customers request: fields the contract does not declare: birth_place/),
        expect.stringMatching(/^Square API POST \/v2\/customers request: .*given_name must be string/),
      ]);
    } finally {
      fake.violations.length = 0;
    }
  });

  it('retries a 5xx within a read; a Square still failing ends the sync FetchError and keeps the connection Linked', async () => {
    await queueThroughServerErrors(fake, 'commerce-payments', /^\/v2\/payments/, SQUARE.transport.retry.attempts);
    expect(fake.violations).toEqual([]);
  });

  it('waits out a storm of 429s and completes the sync later, without failing', async () => {
    // More 429s than a read waits out: the sync goes back to the queue and finishes on a later run.
    fake.inject({ status: 429, count: 8, retryAfterSeconds: 1, path: /^\/v2\/customers/ });
    await queueThroughStorm(fake, 'commerce-customers', 8);
    expect(fake.violations).toEqual([]);
  }, 90_000);

  it('reads its declaration when it runs: a changed API version and authorize parameter are what Square is asked', async () => {
    // Linked from a server whose syncs read where the declaration is changed; the authorize address carries the
    // declared parameters.
    const { server: own, calls } = await ownServerLinked('zsth', ['commerce-customers'], (calls) =>
      withDeclared(SQUARE, { 'oauth2.authorizeParams': { session: 'false', locale: 'en-GB' } }, () => calls.linkByFollowing('Square')),
    );
    try {
      const authorize = new URLSearchParams(fake.requests.filter((r) => r.path === '/oauth2/authorize').at(-1)?.query);
      expect([authorize.get('session'), authorize.get('locale')]).toEqual(['false', 'en-GB']);
      // Another API version declared: Square is asked with it (which the fake, holding Square's contract of the
      // pinned version, reports as a departure from it).
      const violations = fake.violations.length;
      await withDeclared(SQUARE, { 'transport.apiVersion.value': '2024-01-18' }, async () => {
        expect((await calls.queue('commerce-customers')).status).toBe('Complete');
      });
      const departures = fake.violations.splice(violations);
      expect(departures.length).toBeGreaterThan(0);
      expect(departures.every((v) => v.includes('sent Square-Version 2024-01-18'))).toBe(true);
      expect((await calls.queue('commerce-customers')).status).toBe('Complete');

      // Customers declared without a cursor: every sync searches them all (no `updated_at` filter); declared again,
      // the next read in full hands on a cursor and the one after filters by it.
      const searches = (from: number) =>
        fake
          .apiRequests()
          .slice(from)
          .filter((r) => r.path === '/v2/customers/search');
      let from = fake.apiRequests().length;
      await withDeclared(SQUARE, { 'dataTypes.commerce-customers.cursor': 'none' }, async () => {
        expect((await calls.queue('commerce-customers')).status).toBe('Complete');
        expect((await calls.queue('commerce-customers')).status).toBe('Complete');
      });
      expect(searches(from).length).toBeGreaterThan(0);
      expect(searches(from).every((r) => r.body?.query?.filter?.updated_at === undefined)).toBe(true);
      from = fake.apiRequests().length;
      expect((await calls.queue('commerce-customers')).status).toBe('Complete');
      expect(searches(from).every((r) => r.body?.query?.filter?.updated_at === undefined)).toBe(true);
      from = fake.apiRequests().length;
      expect((await calls.queue('commerce-customers')).status).toBe('Complete');
      expect(searches(from).every((r) => typeof r.body?.query?.filter?.updated_at?.start_at === 'string')).toBe(true);
      expect(fake.violations).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('refreshes an expired token and carries on; a revoked consent turns the connection Deauthorized, with an event', async () => {
    fake.expireTokens();
    const refreshesBefore = fake.grants.filter((g) => g.type === 'refresh_token').length;
    expect((await queue('commerce-locations')).status).toBe('Complete');
    expect(fake.grants.filter((g) => g.type === 'refresh_token' && g.status === 200).length).toBe(refreshesBefore + 1);

    const receiver = await startReceiver();
    try {
      const consumer = await createConsumer(server, client, { url: receiver.url, eventTypes: ['connection.disconnected'] });
      fake.revokeConsents();
      const op = await queue('commerce-payments');
      expect(op.status).toBe('AuthError');
      const connection = (await api('GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`)).body;
      expect(connection.status).toBe('Deauthorized');
      const [delivery] = await receiver.waitFor(1);
      const payload = expectEnvelope(verifySigned(consumer.secret, delivery), 'connection.disconnected');
      expect(payload.connection).toMatchObject({ id: linked.connectionId, status: 'Deauthorized' });
      expect(JSON.stringify(connection)).not.toMatch(/EAAA|EQAA|access_token|refresh/i);
      expect(JSON.stringify(op)).not.toMatch(/EAAA|EQAA/);
    } finally {
      await receiver.close();
    }
    expect(fake.violations).toEqual([]);
  });

  it("revokes the application's access at Square when a connection is deleted", async () => {
    const other = fake.addMerchant('Deleted Later');
    other.seedCatalog(1);
    fake.consent = { grant: true, merchant: other };
    const second = await companyWithConnection(server, client, 'zsth');
    await fetchOnFirstLinkOnly(server, client, second.companyId, []);
    const connection = (await api('GET', `/companies/${second.companyId}/connections/${second.connectionId}`)).body;
    expect((await fetch(connection.linkUrl, { redirect: 'follow' })).status).toBe(200);
    // Idle past the access token's 30 days: the revocation names the merchant, which does not expire.
    fake.expireTokens();
    const res = await api('DELETE', `/companies/${second.companyId}/connections/${second.connectionId}`);
    expect(res.status, res.text).toBeLessThan(300);
    for (let i = 0; i < 100 && fake.revocations.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.revocations).toEqual([{ authorization: 'Client', body: { client_id: fake.clientId, merchant_id: other.id }, status: 200 }]);
    expect(fake.violations).toEqual([]);
  });
});
