import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import {
  authorize,
  companyWithConnection,
  fetchOnFirstLinkOnly,
  linkedSandbox,
  waitForOperation,
  waitForSyncs,
} from '../helpers/sandbox.js';
import { queueDueSyncs } from '../../src/syncs/sync-scheduler.js';
import { createJobEngine } from '../../src/jobs/job-engine.js';

let server: TestServer;
let client: TestClient;

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient();
});
afterAll(() => server.close());

describe('connections', () => {
  it('creates a PendingAuth connection with a linkUrl on this server, lists and gets it', async () => {
    const { companyId, connectionId } = await companyWithConnection(server, client);
    const got = await http(server, 'GET', `/companies/${companyId}/connections/${connectionId}`, { auth: client.auth });
    expect(got.body).toMatchObject({
      id: connectionId,
      integrationKey: 'mqjo',
      sourceType: 'Accounting',
      platformName: 'Sandbox',
      status: 'PendingAuth',
      linkUrl: `${server.url}/link/companies/${companyId}/connections/${connectionId}/start`,
      dataConnectionErrors: [],
    });
    const list = await http(server, 'GET', `/companies/${companyId}/connections?query=status=PendingAuth`, { auth: client.auth });
    expect(list.body.totalResults).toBe(1);
    const company = await http(server, 'GET', `/companies/${companyId}`, { auth: client.auth });
    expect(company.body.dataConnections).toEqual([got.body]);
  });

  it('allows one accounting connection but several banking and commerce ones', async () => {
    const { companyId } = await companyWithConnection(server, client);
    expectErrorBody(
      await http(server, 'POST', `/companies/${companyId}/connections`, { auth: client.auth, body: { platformKey: 'mqjo' } }),
      409,
    );
    for (const key of ['bsbx', 'bsbx', 'aiwb', 'aiwb']) {
      expect(
        (await http(server, 'POST', `/companies/${companyId}/connections`, { auth: client.auth, body: { platformKey: key } })).status,
      ).toBe(200);
    }
  });

  it('rejects unknown platforms and a missing platformKey with 400', async () => {
    const { companyId } = await companyWithConnection(server, client);
    expect(
      expectErrorBody(
        await http(server, 'POST', `/companies/${companyId}/connections`, { auth: client.auth, body: { platformKey: 'zzzz' } }),
        400,
        { validation: true },
      ).validation.errors[0].itemId,
    ).toBe('platformKey');
    expectErrorBody(await http(server, 'POST', `/companies/${companyId}/connections`, { auth: client.auth }), 400, { validation: true });
  });

  it('validates the Sandbox authorisation body', async () => {
    const linked = await companyWithConnection(server, client);
    const url = `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`;
    expect(
      expectErrorBody(await http(server, 'PUT', url, { auth: client.auth, body: { size: 'huge' } }), 400, { validation: true }).validation
        .errors[0].itemId,
    ).toBe('size');
    expect(
      expectErrorBody(await http(server, 'PUT', url, { auth: client.auth, body: { invoices: '-4' } }), 400, { validation: true }).validation
        .errors[0].itemId,
    ).toBe('invoices');
    expect(
      expectErrorBody(await http(server, 'PUT', url, { auth: client.auth, body: { invoices: 'lots' } }), 400, { validation: true })
        .validation.errors[0].itemId,
    ).toBe('invoices');
    const still = await http(server, 'GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`, { auth: client.auth });
    expect(still.body.status).toBe('PendingAuth');
  });

  it('unlinks only a Linked connection and deletes with 200', async () => {
    const linked = await companyWithConnection(server, client);
    const path = `/companies/${linked.companyId}/connections/${linked.connectionId}`;
    expectErrorBody(await http(server, 'PATCH', path, { auth: client.auth, body: { status: 'Unlinked' } }), 400, { validation: true });
    await authorize(server, client, linked);
    const unlinked = await http(server, 'PATCH', path, { auth: client.auth, body: { status: 'Unlinked' } });
    expect(unlinked.body.status).toBe('Unlinked');
    const deleted = await http(server, 'DELETE', path, { auth: client.auth });
    expect(deleted.status).toBe(200);
    expectErrorBody(await http(server, 'GET', path, { auth: client.auth }), 404, {
      error: `Data connection ${linked.connectionId} not found`,
    });
  });
});

describe('syncs and reads', () => {
  let companyId: string;
  let connectionId: string;

  beforeAll(async () => {
    // 1,000 invoices: at the small 200, about one seed in fifty changes no existing invoice between two epochs,
    // which the later-sync test below needs to see.
    ({ companyId, connectionId } = await linkedSandbox(server, client, 'mqjo', { invoices: '1000' }));
    await waitForSyncs(server, client, companyId);
  });

  it('linking queued and completed a first sync of every accounting type', async () => {
    const status = await http(server, 'GET', `/companies/${companyId}/dataStatus`, { auth: client.auth });
    const entries = Object.entries(
      status.body as Record<string, { dataType: string; currentStatus: string; latestSuccessfulSyncId?: string }>,
    );
    expect(entries.length).toBe(28);
    for (const [key, entry] of entries) {
      expect(entry.currentStatus, key).toBe('Complete');
      expect(entry.latestSuccessfulSyncId).toBeDefined();
    }
    const history = await http(server, 'GET', `/companies/${companyId}/data/history?pageSize=100`, { auth: client.auth });
    expect(history.body.totalResults).toBe(28);
    for (const op of history.body.results) {
      expect(op).toMatchObject({ companyId, connectionId, status: 'Complete', progress: 100, isCompleted: true, isErrored: false });
      expect(Number.isInteger(op.progress)).toBe(true);
    }
    const company = await http(server, 'GET', `/companies/${companyId}`, { auth: client.auth });
    expect(Date.parse(company.body.lastSync)).not.toBeNaN();
    expect(company.body.dataConnections[0].lastSync).toBeDefined();
  });

  it('pages invoices and counts only matching records under a status filter', async () => {
    const all = await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=50`, { auth: client.auth });
    expect(all.status).toBe(200);
    expect(all.body.totalResults).toBe(1000);
    expect(all.body.results).toHaveLength(50);
    expect(all.body._links.next.href).toBe(`/companies/${companyId}/data/invoices?page=2&pageSize=50`);
    const paid = await http(server, 'GET', `/companies/${companyId}/data/invoices?query=status%3DPaid&pageSize=5000`, {
      auth: client.auth,
    });
    expect(paid.body.totalResults).toBeGreaterThan(0);
    expect(paid.body.totalResults).toBeLessThan(1000);
    expect(paid.body.results).toHaveLength(paid.body.totalResults);
    for (const invoice of paid.body.results) {
      expect(invoice.status).toBe('Paid');
      expect(invoice.amountDue).toBe(0);
      expect(invoice.metadata).toEqual({ isDeleted: false });
      expect(Date.parse(invoice.modifiedDate)).not.toBeNaN();
    }
    const lower = await http(server, 'GET', `/companies/${companyId}/data/invoices?query=status%3Dpaid`, { auth: client.auth });
    expect(lower.body.totalResults).toBe(paid.body.totalResults);
  });

  it('gets one record and answers a missing one with the platform 404', async () => {
    const page = await http(server, 'GET', `/companies/${companyId}/data/customers?pageSize=1`, { auth: client.auth });
    const customer = page.body.results[0];
    const one = await http(server, 'GET', `/companies/${companyId}/data/customers/${customer.id}`, { auth: client.auth });
    expect(one.body).toEqual(customer);
    const missing = await http(server, 'GET', `/companies/${companyId}/data/invoices/no-such-invoice`, { auth: client.auth });
    const body = expectErrorBody(missing, 404, { service: 'Sandbox' });
    expect(body.error).toMatch(/^RecordNotFoundException: /);
    expect(body.error).toContain(companyId);
    expect(body.error).toContain('no-such-invoice');
  });

  it('serves company info and the financial statements', async () => {
    const info = await http(server, 'GET', `/companies/${companyId}/data/info`, { auth: client.auth });
    expect(info.status).toBe(200);
    expect(typeof info.body.companyName).toBe('string');
    const pnl = await http(server, 'GET', `/companies/${companyId}/data/financials/profitAndLoss?periodLength=3&periodsToCompare=4`, {
      auth: client.auth,
    });
    expect(pnl.status, pnl.text).toBe(200);
    expect(pnl.body.reportBasis).toBe('Accrual');
    expect(pnl.body.reports).toHaveLength(4);
    expect(pnl.body.reports[0].fromDate > pnl.body.reports[1].fromDate).toBe(true);
    const bs = await http(server, 'GET', `/companies/${companyId}/data/financials/balanceSheet?periodLength=1&periodsToCompare=2`, {
      auth: client.auth,
    });
    expect(bs.body.reports).toHaveLength(2);
    for (const report of bs.body.reports) expect(report.netAssets).toBeCloseTo(report.assets.value - report.liabilities.value, 2);
    const cash = await http(server, 'GET', `/companies/${companyId}/data/financials/cashFlowStatement?periodLength=12&periodsToCompare=1`, {
      auth: client.auth,
    });
    expect(cash.body.reports).toHaveLength(1);
    expectErrorBody(await http(server, 'GET', `/companies/${companyId}/data/financials/profitAndLoss`, { auth: client.auth }), 400, {
      validation: true,
    });
  });

  it('reads connection-scoped accounting paths', async () => {
    const accounts = await http(server, 'GET', `/companies/${companyId}/connections/${connectionId}/data/bankAccounts`, {
      auth: client.auth,
    });
    expect(accounts.status).toBe(200);
    const account = accounts.body.results[0];
    const txns = await http(
      server,
      'GET',
      `/companies/${companyId}/connections/${connectionId}/data/bankAccounts/${account.id}/bankTransactions?pageSize=5000`,
      { auth: client.auth },
    );
    expect(txns.status).toBe(200);
    for (const t of txns.body.results) expect(t.accountId).toBe(account.id);
  });

  it('answers 404 for a data type the platform lacks', async () => {
    const queued = await http(server, 'POST', `/companies/${companyId}/data/queue/banking-accounts`, { auth: client.auth });
    expectErrorBody(queued, 404, { error: 'Datatype banking-accounts not supported by platform(s) Sandbox' });
    const read = await http(server, 'GET', `/companies/${companyId}/connections/${connectionId}/data/commerce-orders`, {
      auth: client.auth,
    });
    expectErrorBody(read, 404, { error: 'Datatype commerce-orders not supported by platform(s) Sandbox' });
  });

  it('moves the data on a later sync: new and changed records, unchanged ones keep their modifiedDate', async () => {
    const before = await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=5000`, { auth: client.auth });
    const queued = await http(server, 'POST', `/companies/${companyId}/data/queue/invoices`, { auth: client.auth });
    expect(queued.status).toBe(200);
    expect(queued.body).toMatchObject({ dataType: 'invoices', status: 'Queued', progress: 0, isCompleted: false, isErrored: false });
    const done = await waitForOperation(server, client, companyId, queued.body.id);
    expect(done.status).toBe('Complete');
    const after = await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=5000`, { auth: client.auth });
    const old = new Map(before.body.results.map((i: { id: string }) => [i.id, i]));
    const added = after.body.results.filter((i: { id: string }) => !old.has(i.id));
    const deleted = after.body.results.filter((i: { metadata: { isDeleted: boolean } }) => i.metadata.isDeleted);
    const changed = after.body.results.filter(
      (i: { id: string; modifiedDate: string; metadata: { isDeleted: boolean } }) =>
        old.has(i.id) && !i.metadata.isDeleted && (old.get(i.id) as { modifiedDate: string }).modifiedDate !== i.modifiedDate,
    );
    const unchanged = after.body.results.filter(
      (i: { id: string; modifiedDate: string }) =>
        old.has(i.id) && (old.get(i.id) as { modifiedDate: string }).modifiedDate === i.modifiedDate,
    );
    expect(added.length).toBeGreaterThan(0);
    expect(changed.length).toBeGreaterThan(0);
    expect(unchanged.length).toBeGreaterThan(0);
    for (const i of unchanged) expect(i).toEqual(old.get(i.id));
    const live = await http(server, 'GET', `/companies/${companyId}/data/invoices?query=metadata.isDeleted%21%3Dtrue`, {
      auth: client.auth,
    });
    expect(live.body.totalResults).toBe(after.body.totalResults - deleted.length);
  });
});

describe('409 before and during the first sync', () => {
  it('answers each 409 with its own message and refuses a second sync of a running type', async () => {
    const idle = await startTestServer({ jobs: { enabled: false } });
    try {
      const c = await idle.newClient();
      const { companyId } = await companyWithConnection(idle, c);
      const notRequested = await http(idle, 'GET', `/companies/${companyId}/data/invoices`, { auth: c.auth });
      expectErrorBody(notRequested, 409, { error: 'The data set has not been requested.' });
      const queued = await http(idle, 'POST', `/companies/${companyId}/data/queue/invoices`, { auth: c.auth });
      expectErrorBody(queued, 400, { error: /^NoLinkedConnectionException/ });

      const other = await linkedSandbox(idle, c);
      const pending = await http(idle, 'GET', `/companies/${other.companyId}/data/invoices`, { auth: c.auth });
      expectErrorBody(pending, 409, { error: 'The data set is not ready: its first sync has not completed.' });
      const again = await http(idle, 'POST', `/companies/${other.companyId}/data/queue/invoices`, { auth: c.auth });
      expectErrorBody(again, 400, {
        error: /^DatasetAlreadyInProgressException: Cannot queue invoices sync for .* as previous sync .* is still in progress$/,
      });
      const status = await http(idle, 'GET', `/companies/${other.companyId}/dataStatus`, { auth: c.auth });
      expect(status.body.invoices.currentStatus).toBe('Queued');
    } finally {
      await idle.close();
    }
  });
});

describe('racing requests to queue one data type', () => {
  it('queues it once: one 200, and every other request the 400 DatasetAlreadyInProgress body', async () => {
    const idle = await startTestServer({ jobs: { enabled: false } });
    try {
      const c = await idle.newClient();
      const linked = await companyWithConnection(idle, c);
      const { companyId } = linked;
      // Only invoices on first link: bills have no operation and no data set row yet.
      await fetchOnFirstLinkOnly(idle, c, companyId, ['invoices']);
      await authorize(idle, c, linked);
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => http(idle, 'POST', `/companies/${companyId}/data/queue/bills`, { auth: c.auth })),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const a of answers.filter((r) => r.status !== 200)) {
        expectErrorBody(a, 400, { error: /^DatasetAlreadyInProgressException: Cannot queue bills sync/ });
      }
      const history = await http(idle, 'GET', `/companies/${companyId}/data/history?query=dataType%3Dbills`, { auth: c.auth });
      expect(history.body.totalResults).toBe(1);
    } finally {
      await idle.close();
    }
  });
});

describe('sync settings and the schedule', () => {
  it('refuses an hourly schedule on the Free trial with the exact 402 body', async () => {
    const free = await server.newClient({ plan: 'free-trial' });
    const setting = { dataType: 'invoices', fetchOnFirstLink: true, syncSchedule: 1, syncOrder: 0 };
    const res = await http(server, 'POST', '/profile/syncSettings', {
      auth: free.auth,
      body: { clientId: free.clientId, settings: [setting], overridesDefaults: true },
    });
    const body = expectErrorBody(res, 402, { error: 'SyncSettingsValidationException: Sync schedule not allowed', validation: true });
    expect(body.validation.errors[0].message).toMatch(/^Sync schedule not allowed\./);
    const { companyId } = await companyWithConnection(server, free);
    const company = await http(server, 'POST', `/companies/${companyId}/syncSettings`, {
      auth: free.auth,
      body: { companyId, settings: [setting] },
    });
    expectErrorBody(company, 402, { error: 'SyncSettingsValidationException: Sync schedule not allowed', validation: true });
    const daily = await http(server, 'POST', '/profile/syncSettings', {
      auth: free.auth,
      body: { clientId: free.clientId, settings: [{ ...setting, syncSchedule: 24 }], overridesDefaults: true },
    });
    expect(daily.status).toBe(204);
    const standard = await http(server, 'POST', '/profile/syncSettings', {
      auth: client.auth,
      body: { clientId: client.clientId, settings: [setting], overridesDefaults: true },
    });
    expect(standard.status).toBe(204);
  });

  it('stores settings per company, layered over the client and the defaults', async () => {
    const c = await server.newClient();
    const { companyId } = await companyWithConnection(server, c);
    const body = { companyId, settings: [{ dataType: 'bills', fetchOnFirstLink: false, syncSchedule: 48, syncOrder: 3 }] };
    expect((await http(server, 'POST', `/companies/${companyId}/syncSettings`, { auth: c.auth, body })).status).toBe(204);
    const got = await http(server, 'GET', `/companies/${companyId}/syncSettings`, { auth: c.auth });
    expect(got.body.settings.find((s: { dataType: string }) => s.dataType === 'bills')).toEqual(body.settings[0]);
    expect(got.body.settings.find((s: { dataType: string }) => s.dataType === 'invoices')).toMatchObject({
      fetchOnFirstLink: true,
      syncSchedule: 24,
    });
    const linked = {
      companyId,
      connectionId: (await http(server, 'GET', `/companies/${companyId}/connections`, { auth: c.auth })).body.results[0].id,
    };
    await authorize(server, c, linked);
    const history = await http(server, 'GET', `/companies/${companyId}/data/history?query=dataType%3Dbills`, { auth: c.auth });
    expect(history.body.totalResults).toBe(0);
    await waitForSyncs(server, c, companyId);
  });

  it('queues each data type again once its schedule has passed', async () => {
    // Its own store: the schedule runner looks at every linked connection there is.
    const own = await startTestServer();
    try {
      const c = await own.newClient();
      const { companyId } = await linkedSandbox(own, c);
      await waitForSyncs(own, c, companyId);
      const jobs = await createJobEngine(own.store, { log: { error() {}, warn() {}, info() {}, debug() {} } });
      expect(await queueDueSyncs(own.store.db, jobs, new Date(Date.now() + 23 * 3_600_000))).toBe(0);
      // Every worker process runs the schedule: two at once still queue each due type once.
      const later = new Date(Date.now() + 25 * 3_600_000);
      const [first, second] = await Promise.all([queueDueSyncs(own.store.db, jobs, later), queueDueSyncs(own.store.db, jobs, later)]);
      expect(first + second).toBe(28);
      const history = await http(own, 'GET', `/companies/${companyId}/data/history?query=dataType%3Dinvoices`, { auth: c.auth });
      expect(history.body.totalResults).toBe(2);
      await waitForSyncs(own, c, companyId);
    } finally {
      await own.close();
    }
  });
});
