import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatLending } from '@codat/lending';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import {
  authorize,
  companyWithConnection,
  fetchOnFirstLinkOnly,
  linkedSandbox,
  waitForSyncs,
  type LinkedCompany,
} from '../helpers/sandbox.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { createConsumer, startReceiver, verifySigned, type Receiver } from '../webhooks/receiver.js';
import { expectEnhancedLikeStatements, monthShift } from '../helpers/enhanced-oracle.js';

/*
 * The enhanced profit and loss and balance sheet over HTTP, on both stores (docs/lending/enhanced-financials.md):
 * every item is a line of the monthly statement the API serves for the same month, its balance that line's value in
 * the category's normal direction, and per month the items of each top category sum to the statement's own parts;
 * reportDate's two formats, the defaults and bounds, 409 before the inputs have synced, 404 and 403; a confirmed
 * category shows in later reports and sends `accountCategories.updated`; the official SDK reads both.
 */

type Data = Record<string, any>;
const TYPES = ['profitAndLoss', 'balanceSheet', 'chartOfAccounts', 'company'];

let server: TestServer;
let client: TestClient;
let linked: LinkedCompany;
let receiver: Receiver;
let secret: string;

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient({ name: 'Enhanced financials' });
  receiver = await startReceiver();
  secret = (await createConsumer(server, client, { url: receiver.url, eventTypes: ['accountCategories.updated'] })).secret;
  linked = await companyWithConnection(server, client);
  await fetchOnFirstLinkOnly(server, client, linked.companyId, TYPES);
  await authorize(server, client, linked);
  await waitForSyncs(server, client, linked.companyId);
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

async function get(path: string) {
  const res = await http(server, 'GET', `/companies/${linked.companyId}${path}`, { auth: client.auth });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe.each([
  ['enhancedProfitAndLoss', 'profitAndLoss'],
  ['enhancedBalanceSheet', 'balanceSheet'],
] as const)('%s over the Sandbox', (report, statement) => {
  it('lists every account line of each month of the served statements, categorised, with balances and totals that equal them', async () => {
    const latest = (await get(`/data/financials/${statement}?periodLength=1&periodsToCompare=1`)).mostRecentAvailableMonth.slice(0, 7);
    const items = await expectEnhancedLikeStatements(server, client, linked.companyId, report, monthShift(latest, -1), 6);
    expect(items.length).toBeGreaterThan(6);
    for (const item of items) {
      expect(item.accountCategory.status).toBe('Suggested');
      expect(typeof item.accountCategory.ruleId).toBe('string');
      for (const level of item.accountCategory.levels) expect(level.confidence).toBeGreaterThanOrEqual(0);
    }
    const body = await get(`/reports/${report}/accounts?reportDate=01-${latest.slice(5, 7)}-${latest.slice(0, 4)}&numberOfPeriods=1`);
    expect(body.reportInfo).toMatchObject({
      reportName: report === 'enhancedProfitAndLoss' ? 'EnhancedProfitAndLossAccounts' : 'EnhancedBalanceSheetAccounts',
      companyName: expect.any(String),
      currency: expect.stringMatching(/^[A-Z]{3}$/),
    });
    expect(Date.parse(body.reportInfo.generatedDate)).not.toBeNaN();
  });

  it('reads reportDate as dd-MM-yyyy or yyyy-MM-dd alike, any day of the month', async () => {
    const a = await get(`/reports/${report}/accounts?reportDate=03-02-2026&numberOfPeriods=2`);
    const b = await get(`/reports/${report}/accounts?reportDate=2026-02-28&numberOfPeriods=2`);
    const c = await get(`/reports/${report}/accounts?reportDate=2026-02-01T13:45:00Z&numberOfPeriods=2`);
    expect(b.reportItems).toEqual(a.reportItems);
    expect(c.reportItems).toEqual(a.reportItems);
    expect(new Set(a.reportItems.map((i: Data) => i.date))).toEqual(new Set(['2026-01-31T00:00:00', '2026-02-28T00:00:00']));
  });

  it('answers 400 naming a bad parameter', async () => {
    for (const [query, parameter] of [
      ['reportDate=31-02-2026', 'reportDate'],
      ['reportDate=2026/01/31', 'reportDate'],
      ['reportDate=tomorrow', 'reportDate'],
      ['reportDate=01-01-2026&numberOfPeriods=0', 'numberOfPeriods'],
      ['reportDate=01-01-2026&numberOfPeriods=121', 'numberOfPeriods'],
      ['reportDate=01-01-2026&numberOfPeriods=1.5', 'numberOfPeriods'],
      ['reportDate=01-01-2026&numberOfPeriods=abc', 'numberOfPeriods'],
    ]) {
      const res = await http(server, 'GET', `/companies/${linked.companyId}/reports/${report}/accounts?${query}`, { auth: client.auth });
      const body = expectErrorBody(res, 400, { validation: true });
      expect(JSON.stringify(body.validation), query).toContain(parameter);
    }
  });
});

describe('defaults', () => {
  it('the P&L without reportDate ends with the last month with data, 12 months; the balance sheet requires reportDate', async () => {
    const latest = (await get('/data/financials/profitAndLoss?periodLength=1&periodsToCompare=1')).mostRecentAvailableMonth.slice(0, 7);
    const body = await get('/reports/enhancedProfitAndLoss/accounts');
    const months = [...new Set(body.reportItems.map((i: Data) => i.date.slice(0, 7)))];
    expect(months.at(-1)).toBe(latest);
    expect(months.length).toBe(12);
    const res = await http(server, 'GET', `/companies/${linked.companyId}/reports/enhancedBalanceSheet/accounts`, { auth: client.auth });
    const error = expectErrorBody(res, 400, { validation: true });
    expect(JSON.stringify(error)).toContain('reportDate');
  });

  it('a month with no statement has no items', async () => {
    const body = await get('/reports/enhancedBalanceSheet/accounts?reportDate=01-01-1990&numberOfPeriods=3');
    expect(body.reportItems).toEqual([]);
  });
});

describe('recategorising an account', () => {
  it('PUT confirms a category for every month, turns the balance to its direction, sends accountCategories.updated; DELETE undoes it', async () => {
    const path = '/reports/enhancedProfitAndLoss/accounts?reportDate=01-03-2026&numberOfPeriods=3';
    const before: Data[] = (await get(path)).reportItems;
    const income = before.find((i) => i.accountCategory.levels[0].levelName === 'Income' && i.balance !== 0)!;
    expect(income).toBeDefined();
    const url = `/companies/${linked.companyId}/connections/${linked.connectionId}/accounts/${encodeURIComponent(income.accountId)}/category`;
    const put = await http(server, 'PUT', url, { auth: client.auth, body: { category: 'Expense.Operating.Travel' } });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toEqual({
      accountId: income.accountId,
      accountCategory: {
        status: 'Confirmed',
        levels: [{ levelName: 'Expense' }, { levelName: 'Operating' }, { levelName: 'Travel' }],
      },
    });
    const after: Data[] = (await get(path)).reportItems;
    const moved = after.filter((i) => i.accountId === income.accountId);
    expect(moved.length).toBe(before.filter((i) => i.accountId === income.accountId).length);
    for (const item of moved) {
      expect(item.accountCategory).toEqual(put.body.accountCategory);
      const was = before.find((i) => i.accountId === item.accountId && i.date === item.date)!;
      // An income line read as an expense is positive the other way round.
      expect(item.balance).toBe(-was.balance || 0);
    }
    // Others are untouched.
    expect(after.filter((i) => i.accountId !== income.accountId)).toEqual(
      expect.arrayContaining(before.filter((i) => i.accountId !== income.accountId)),
    );

    const deadline = Date.now() + 10_000;
    let event: Data | undefined;
    while (!event && Date.now() < deadline) {
      event = receiver.received.map((d) => verifySigned(secret, d)).find((e) => e.eventType === 'accountCategories.updated');
      if (!event) await new Promise((r) => setTimeout(r, 25));
    }
    expect(event?.payload).toMatchObject({
      referenceCompany: { id: linked.companyId },
      connectionId: linked.connectionId,
      accounts: [{ accountId: income.accountId, accountCategory: put.body.accountCategory }],
    });

    const del = await http(server, 'DELETE', url, { auth: client.auth });
    expect(del.status, del.text).toBe(200);
    // The suggestion, exactly as the reports show it.
    expect(del.body).toEqual({ accountId: income.accountId, accountCategory: income.accountCategory });
    expect((await get(path)).reportItems).toEqual(before);

    // Dropping a confirmation that is not there changes nothing and sends nothing.
    const events = () => receiver.received.map((d) => verifySigned(secret, d)).filter((e) => e.eventType === 'accountCategories.updated');
    const deadlineTwo = Date.now() + 10_000;
    while (events().length < 2 && Date.now() < deadlineTwo) await new Promise((r) => setTimeout(r, 25));
    expect(events()).toHaveLength(2);
    const again = await http(server, 'DELETE', url, { auth: client.auth });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(del.body);
    await new Promise((r) => setTimeout(r, 300));
    expect(events()).toHaveLength(2);
  });

  it('answers 400 for a path not in the taxonomy, 404 for an unknown account or connection', async () => {
    const base = `/companies/${linked.companyId}/connections/${linked.connectionId}/accounts`;
    const accounts = await get('/data/accounts?pageSize=1');
    const accountId = encodeURIComponent(accounts.results[0].id);
    for (const category of ['Expense.Operating.Teleportation', 'expense.operating', '', 'Expense..Operating']) {
      const res = await http(server, 'PUT', `${base}/${accountId}/category`, { auth: client.auth, body: { category } });
      const body = expectErrorBody(res, 400, { validation: true });
      expect(JSON.stringify(body)).toContain('category');
    }
    const missing = await http(server, 'PUT', `${base}/no-such-account/category`, { auth: client.auth, body: { category: 'Expense' } });
    expectErrorBody(missing, 404);
    const otherConnection = `/companies/${linked.companyId}/connections/${crypto.randomUUID()}/accounts/${accountId}/category`;
    expectErrorBody(await http(server, 'PUT', otherConnection, { auth: client.auth, body: { category: 'Expense' } }), 404);
    expectErrorBody(await http(server, 'DELETE', otherConnection, { auth: client.auth }), 404);
  });
});

describe('before the inputs have synced, and for companies not the caller’s', () => {
  it('answers 409 naming what must sync first', async () => {
    const other = await companyWithConnection(server, client);
    await fetchOnFirstLinkOnly(server, client, other.companyId, ['profitAndLoss']);
    await authorize(server, client, other);
    await waitForSyncs(server, client, other.companyId);
    const res = await http(server, 'GET', `/companies/${other.companyId}/reports/enhancedBalanceSheet/accounts?reportDate=01-01-2026`, {
      auth: client.auth,
    });
    expectErrorBody(res, 409);
    expect(res.body.error).toBe('DataNotSyncedException: enhancedBalanceSheet needs balanceSheet, chartOfAccounts synced first');
    const pl = await http(server, 'GET', `/companies/${other.companyId}/reports/enhancedProfitAndLoss/accounts`, { auth: client.auth });
    expect(pl.body.error).toBe('DataNotSyncedException: enhancedProfitAndLoss needs chartOfAccounts synced first');
  });

  it("answers 404 for an unknown company and 403 for another client's", async () => {
    const other = await server.newClient({ name: 'Another client' });
    const theirs = await linkedSandbox(server, other);
    for (const path of ['enhancedProfitAndLoss/accounts', 'enhancedBalanceSheet/accounts?reportDate=01-01-2026']) {
      expectErrorBody(await http(server, 'GET', `/companies/${crypto.randomUUID()}/reports/${path}`, { auth: client.auth }), 404);
      expectErrorBody(await http(server, 'GET', `/companies/${theirs.companyId}/reports/${path}`, { auth: client.auth }), 403);
    }
    const category = `/companies/${theirs.companyId}/connections/${theirs.connectionId}/accounts/x/category`;
    expectErrorBody(await http(server, 'PUT', category, { auth: client.auth, body: { category: 'Expense' } }), 403);
    // Ownership is checked before the body: another client's company is 403 whatever the category.
    expectErrorBody(await http(server, 'PUT', category, { auth: client.auth, body: { category: 'Nonsense' } }), 403);
    expectErrorBody(await http(server, 'DELETE', category, { auth: client.auth }), 403);
  });
});

describe('through the official SDK (@codat/lending 4.3), unchanged but for its server URL', () => {
  it('reads both enhanced statements with the items served over HTTP', async () => {
    const sdk = new CodatLending({ serverURL: server.url, security: { authHeader: client.auth } });
    const pl = await sdk.financialStatements.profitAndLoss.getCategorizedAccounts({
      companyId: linked.companyId,
      reportDate: '29-01-2026',
      numberOfPeriods: 3,
    });
    expect(pl.statusCode).toBe(200);
    const overHttp = await get('/reports/enhancedProfitAndLoss/accounts?reportDate=29-01-2026&numberOfPeriods=3');
    expect(pl.enhancedFinancialReport?.reportItems?.map((i) => [i.accountId, i.balance, i.accountCategory?.levels?.length])).toEqual(
      overHttp.reportItems.map((i: Data) => [i.accountId, i.balance, i.accountCategory.levels.length]),
    );
    const bs = await sdk.financialStatements.balanceSheet.getCategorizedAccounts({ companyId: linked.companyId, reportDate: '29-01-2026' });
    expect(bs.statusCode).toBe(200);
    expect(bs.enhancedFinancialReport?.reportInfo?.reportName).toBe('EnhancedBalanceSheetAccounts');
    expect(bs.enhancedFinancialReport?.reportItems?.length).toBeGreaterThan(0);
  });
});
