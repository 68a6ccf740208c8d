import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsService } from '../../src/clients/clients.service.js';
import { fetchOnFirstLinkOnly, companyWithConnection } from '../helpers/sandbox.js';
import { assertCliBuilt } from '../helpers/cli.js';
import { answering, startService, until, type ServiceProcess } from '../helpers/processes.js';
import { createTestStore, POSTGRES_URL, type TestStore } from '../helpers/test-store.js';
import { basicAuth, http, type TestClient } from '../helpers/test-server.js';
import { startXeroFake, type XeroFake } from '../fakes/xero/xero-fake.js';

/**
 * Two worker processes on one Postgres find the same Xero connection's token expired at the same moment: exactly one
 * refresh reaches Xero's token endpoint (the lease in connection_credentials settles it), both use the new token,
 * and every sync completes. The token endpoint answers slowly, so the two processes' refreshes would overlap.
 */
const TYPES: string[] = ['invoices', 'bills', 'customers', 'suppliers', 'chartOfAccounts', 'items', 'taxRates', 'payments'];

let store: TestStore;
let fake: XeroFake;
const services: ServiceProcess[] = [];
let api: ServiceProcess;

beforeAll(async () => {
  if (!POSTGRES_URL) return;
  assertCliBuilt();
  store = await createTestStore();
  fake = await startXeroFake();
  fake.addTenant('Shared Books').seedInvoices(300, 'ACCREC');
  const env = { ...fake.env(), JOB_CONCURRENCY: '4', JOB_LEASE_MS: '5000' };
  api = await startService(store.databaseUrl, 'api', env);
  services.push(api);
  await answering(api);
  for (let i = 0; i < 2; i++) services.push(await startService(store.databaseUrl, 'worker', env));
}, 120_000);

afterAll(async () => {
  for (const service of services) service.child.kill('SIGKILL');
  await fake?.close();
  await store?.destroy();
});

describe.skipIf(!POSTGRES_URL)('an OAuth token refreshed by two worker processes at once', () => {
  it('reaches the token endpoint once, and both processes finish their syncs', async () => {
    const { client, key } = await createClientsService({ db: store.store.db }).create({ name: 'Refresh race', plan: 'standard' });
    const caller: TestClient = { clientId: client.id, apiKey: key.apiKey, auth: basicAuth(key.apiKey) };
    const linked = await companyWithConnection(api, caller, 'gbol');
    await fetchOnFirstLinkOnly(api, caller, linked.companyId, []);
    const { linkUrl } = (await http(api, 'GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`, { auth: caller.auth }))
      .body;
    expect((await fetch(linkUrl, { redirect: 'follow' })).status).toBe(200);

    fake.expireTokens();
    fake.tokenDelayMs = 500;
    const refreshesBefore = fake.grants.filter((g) => g.type === 'refresh_token').length;
    const queued = await Promise.all(
      TYPES.map((type) => http(api, 'POST', `/companies/${linked.companyId}/data/queue/${type}`, { auth: caller.auth })),
    );
    for (const res of queued) expect(res.status, res.text).toBe(200);
    let last = '';
    const statuses = await until(
      'every sync to finish',
      async () => {
        const res = await http(api, 'GET', `/companies/${linked.companyId}/dataStatus`, { auth: caller.auth });
        last = res.text;
        const body = res.body as Record<string, { currentStatus: string }>;
        const ended = ['Complete', 'FetchError', 'AuthError', 'InternalError'];
        return TYPES.every((type) => ended.includes(body[type]?.currentStatus)) ? body : undefined;
      },
      120_000,
      () =>
        `${last}\n${fake.requests
          .slice(-5)
          .map((r) => JSON.stringify(r))
          .join('\n')}\n${services.map((s) => s.output()).join('\n')}`,
    );
    for (const type of TYPES) expect(statuses[type].currentStatus, type).toBe('Complete');
    expect(fake.grants.filter((g) => g.type === 'refresh_token').length - refreshesBefore).toBe(1);
    expect(fake.violations).toEqual([]);
  }, 180_000);
});
