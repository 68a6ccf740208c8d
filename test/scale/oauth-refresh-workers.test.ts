import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsService } from '../../src/access/clients.service.js';
import { fetchOnFirstLinkOnly, companyWithConnection } from '../helpers/sandbox.js';
import { assertCliBuilt } from '../helpers/cli.js';
import { answering, freePort, startService, until, type ServiceProcess } from '../helpers/processes.js';
import { createTestStore, POSTGRES_URL, type TestStore } from '../helpers/test-store.js';
import { basicAuth, http, type TestClient } from '../helpers/test-server.js';
import { startXeroFake, type XeroFake } from '../fakes/xero/xero-fake.js';

/**
 * Two worker processes on one Postgres find the same Xero connection's token expired at the same moment: exactly one
 * refresh reaches Xero's token endpoint (the lease in connection_credentials settles it), both use the new token
 * (each worker's own metrics show it ran syncs), and every sync completes. The token endpoint answers slowly, so the two processes' refreshes would overlap.
 */
const TYPES: string[] = ['invoices', 'bills', 'customers', 'suppliers', 'chartOfAccounts', 'items', 'taxRates', 'payments'];

let store: TestStore;
let fake: XeroFake;
const services: ServiceProcess[] = [];
let api: ServiceProcess;
const workerMetrics: string[] = [];

/** How many Xero syncs a worker process ran to their end, from its own /metrics. */
async function xeroSyncsRan(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('ledgerport_sync_duration_seconds_count{') && line.includes('platform="gbol"'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

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
  // Each worker serves its own metrics, which say how many of the syncs it ran.
  for (let i = 0; i < 2; i++) {
    const metricsPort = await freePort();
    workerMetrics.push(`http://127.0.0.1:${metricsPort}/metrics`);
    services.push(await startService(store.databaseUrl, 'worker', { ...env, METRICS_PORT: String(metricsPort) }));
  }
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
    // Both processes met the expired token: each ran syncs, and only one of them refreshed it.
    const ran = await Promise.all(workerMetrics.map(xeroSyncsRan));
    expect(
      ran.every((n) => n > 0),
      `syncs per worker: ${ran.join(', ')}`,
    ).toBe(true);
    expect(fake.violations).toEqual([]);
  }, 180_000);
});
