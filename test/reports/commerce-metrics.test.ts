import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatLending } from '@codat/lending';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { authorize, companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs } from '../helpers/sandbox.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { expectedMetrics, expectReport, REPORTS, type Unit } from '../helpers/commerce-oracle.js';
import { allRecords } from '../helpers/uploads.js';
import { startStripeFake, type StripeFake } from '../fakes/stripe/stripe-fake.js';
import { startSquareFake, type SquareFake } from '../fakes/square/square-fake.js';

/*
 * Commerce metrics over HTTP, on both stores (docs/lending/commerce-metrics.md): on the Commerce Sandbox, the Stripe
 * fake and the Square fake, every report for day, week, month and year periods equals the metrics worked out in the
 * test from the orders and company info the connection serves (test/helpers/commerce-oracle.ts); display names; the
 * 400s, the 409 before the inputs have synced; `@codat/lending` 4.3 (`sales.metrics`).
 */

type Data = Record<string, any>;
const INPUTS = ['commerce-orders', 'commerce-customers', 'commerce-companyInfo'];
const SHAPES: [Unit, number, number][] = [
  ['Day', 7, 6],
  ['Week', 2, 8],
  ['Month', 1, 12],
  ['Year', 1, 3],
];

let server: TestServer;
let client: TestClient;
let stripe: StripeFake;
let square: SquareFake;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  stripe = await startStripeFake();
  square = await startSquareFake();
  for (const [name, value] of Object.entries({ ...stripe.apiEnv(), ...square.env() })) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  server = await startTestServer();
  client = await server.newClient({ name: 'Commerce metrics' });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await stripe?.close();
  await square?.close();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

async function metric(companyId: string, connectionId: string, name: string, query: string) {
  const res = await http(
    server,
    'GET',
    `/data/companies/${companyId}/connections/${connectionId}/assess/commerceMetrics/${name}?${query}`,
    {
      auth: client.auth,
    },
  );
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Every report, every period shape, against the oracle, ending on the day of the connection's latest order. */
async function expectAllShapes(companyId: string, connectionId: string) {
  const orders = await allRecords(server, client.auth, { companyId, connectionId }, 'commerce-orders');
  expect(orders.length).toBeGreaterThan(20);
  const info = await http(server, 'GET', `/companies/${companyId}/connections/${connectionId}/data/commerce-info`, { auth: client.auth });
  expect(info.status, info.text).toBe(200);
  const base = info.body.baseCurrency as string;
  const latest = orders
    .map((o) => String(o.createdDate).slice(0, 10))
    .sort()
    .at(-1)!;
  for (const [unit, length, n] of SHAPES) {
    const expected = expectedMetrics(orders, base, latest, unit, length, n);
    for (const name of REPORTS) {
      const body = await metric(
        companyId,
        connectionId,
        name,
        `reportDate=${latest}&periodUnit=${unit}&periodLength=${length}&numberOfPeriods=${n}`,
      );
      expectReport(body, name, expected);
    }
  }
  // Somewhere in the year there is something to measure.
  const year = expectedMetrics(orders, base, latest, 'Year', 1, 1);
  expect(year.orders[0][0]).toBeGreaterThan(0);
  return { orders, base, latest };
}

describe('commerce metrics on the Commerce Sandbox', () => {
  let sandbox: { companyId: string; connectionId: string };

  beforeAll(async () => {
    sandbox = await companyWithConnection(server, client, 'aiwb');
    await fetchOnFirstLinkOnly(server, client, sandbox.companyId, INPUTS);
    await authorize(server, client, sandbox);
    await waitForSyncs(server, client, sandbox.companyId);
  }, 120_000);

  it('equals the metrics worked out from the served orders, for day, week, month and year periods', async () => {
    await expectAllShapes(sandbox.companyId, sandbox.connectionId);
  });

  it('writes Codat’s report shape, with display names when asked, and reads through the Lending SDK', async () => {
    const { companyId, connectionId } = sandbox;
    const plain = await metric(
      companyId,
      connectionId,
      'orders',
      'reportDate=15-05-2024&periodUnit=Month&periodLength=1&numberOfPeriods=2',
    );
    expect(plain.reportInfo).toEqual({ name: 'orders', displayName: 'Orders' });
    expect(plain.dimensions[1]).toEqual({
      index: 1,
      displayName: 'Order metrics',
      type: 'string',
      items: [
        { index: 0, value: 'Number of orders' },
        { index: 1, value: 'Total value' },
        { index: 2, value: 'Average order value' },
      ],
    });
    expect(plain.measures).toEqual([
      { index: 0, displayName: 'Count', type: 'int' },
      { index: 1, displayName: 'Value', type: 'currency', units: 'GBP' },
    ]);
    expect(plain.reportData[0].dimensionDisplayName).toBeUndefined();
    const named = await metric(
      companyId,
      connectionId,
      'customerRetention',
      'reportDate=2024-05-15&periodUnit=Week&periodLength=1&numberOfPeriods=2&includeDisplayNames=true',
    );
    expect(named.reportInfo).toEqual({ name: 'customer_retention', displayName: 'Customer Retention' });
    expect(named.reportData[1]).toMatchObject({ dimension: 0, dimensionDisplayName: 'Period', item: 1, itemDisplayName: 'Period 1' });
    expect(named.reportData[1].components[3]).toMatchObject({
      dimension: 1,
      dimensionDisplayName: 'Customer retention metrics',
      item: 3,
      itemDisplayName: 'Retention rate',
      measures: [{ index: 1, measureDisplayName: 'Percentage' }],
    });

    const sdk = new CodatLending({ serverURL: server.url, security: { authHeader: client.auth } });
    const revenue = await sdk.sales.metrics.getRevenue({
      companyId,
      connectionId,
      reportDate: '15-05-2024',
      periodUnit: 'Month' as never,
      periodLength: 1,
      numberOfPeriods: 3,
    });
    expect(revenue.statusCode).toBe(200);
    expect(revenue.commerceReport?.reportData).toHaveLength(3);
  });

  it('answers bad parameters, an unknown connection and inputs not synced with the error body', async () => {
    const { companyId, connectionId } = sandbox;
    const base = `/data/companies/${companyId}/connections/${connectionId}/assess/commerceMetrics/revenue`;
    for (const query of [
      'reportDate=31-02-2024&periodUnit=Month&periodLength=1&numberOfPeriods=3',
      'reportDate=2024-05-15&periodUnit=Fortnight&periodLength=1&numberOfPeriods=3',
      'reportDate=2024-05-15&periodUnit=Month&periodLength=0&numberOfPeriods=3',
      'reportDate=2024-05-15&periodUnit=Day&periodLength=1&numberOfPeriods=3661',
      'reportDate=2024-05-15&periodUnit=Year&periodLength=5&numberOfPeriods=3',
      'reportDate=2024-05-15&periodUnit=Month&periodLength=1&numberOfPeriods=3&includeDisplayNames=maybe',
    ]) {
      const res = await http(server, 'GET', `${base}?${query}`, { auth: client.auth });
      expectErrorBody(res, 400, { validation: true });
    }
    const unknown = await http(
      server,
      'GET',
      `/data/companies/${companyId}/connections/${crypto.randomUUID()}/assess/commerceMetrics/orders?reportDate=2024-05-15&periodUnit=Month&periodLength=1&numberOfPeriods=3`,
      { auth: client.auth },
    );
    expectErrorBody(unknown, 404);
    const fresh = await companyWithConnection(server, client, 'aiwb');
    await fetchOnFirstLinkOnly(server, client, fresh.companyId, []);
    await authorize(server, client, fresh);
    const notYet = await http(
      server,
      'GET',
      `/data/companies/${fresh.companyId}/connections/${fresh.connectionId}/assess/commerceMetrics/lifetimeValue?reportDate=2024-05-15&periodUnit=Month&periodLength=1&numberOfPeriods=3`,
      { auth: client.auth },
    );
    expectErrorBody(notYet, 409, {
      error: 'DataNotSyncedException: lifetimeValue needs commerce-orders, commerce-customers, commerce-companyInfo synced first',
    });
  });
});

describe('commerce metrics on Stripe and Square', () => {
  it('equal the metrics worked out from a Stripe account’s served orders', async () => {
    const shop = stripe.addAccount('Harbour Goods');
    shop.seed({ customers: 25, products: 10, charges: 200 });
    const linked = await companyWithConnection(server, client, 'exgd');
    await fetchOnFirstLinkOnly(server, client, linked.companyId, INPUTS);
    const res = await http(server, 'PUT', `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`, {
      auth: client.auth,
      body: { apiKey: shop.newKey() },
    });
    expect(res.status, res.text).toBe(200);
    await waitForSyncs(server, client, linked.companyId);
    const { orders } = await expectAllShapes(linked.companyId, linked.connectionId);
    // Refunds and failed charges are part of the story Stripe tells.
    expect(orders.some((o: Data) => o.totalRefund)).toBe(true);
  }, 120_000);

  it('equal the metrics worked out from a Square seller’s served orders', async () => {
    const merchant = square.addMerchant('Blue Bottle Corner');
    square.consent = { grant: true, merchant };
    merchant.seedCatalog(20);
    merchant.seedCustomers(30);
    merchant.seedOrders(150);
    const linked = await companyWithConnection(server, client, 'zsth');
    await fetchOnFirstLinkOnly(server, client, linked.companyId, INPUTS);
    const connection = (
      await http(server, 'GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`, { auth: client.auth })
    ).body;
    expect((await fetch(connection.linkUrl, { redirect: 'follow' })).status).toBe(200);
    await waitForSyncs(server, client, linked.companyId);
    await expectAllShapes(linked.companyId, linked.connectionId);
  }, 120_000);
});
