import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsService } from '../../src/access/clients.service.js';
import { fetchOnFirstLinkOnly } from '../helpers/sandbox.js';
import { assertCliBuilt } from '../helpers/cli.js';
import { expectWholeVersion } from '../helpers/versions.js';
import { answering, exited, startService, until, type ServiceProcess } from '../helpers/processes.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';
import { basicAuth, http } from '../helpers/test-server.js';

/** SIGTERM: no new requests or jobs, a running sync handed back within the grace period, a bounded exit. */

const GRACE_MS = 300;
let store: TestStore;
const services: ServiceProcess[] = [];

async function start(): Promise<ServiceProcess> {
  const service = await startService(store.databaseUrl, 'all', {
    LOG_LEVEL: 'warn',
    JOB_LEASE_MS: '1500',
    JOB_CONCURRENCY: '1',
    SHUTDOWN_GRACE_MS: String(GRACE_MS),
  });
  services.push(service);
  await answering(service);
  return service;
}

beforeAll(async () => {
  assertCliBuilt();
  store = await createTestStore();
});
afterAll(async () => {
  for (const service of services) service.child.kill('SIGKILL');
  await store.destroy();
});

describe('SIGTERM during a sync', () => {
  it('stops within the grace period, hands the sync back, and the next process completes it', async () => {
    const { key } = await createClientsService({ db: store.store.db }).create({ name: 'Graceful', plan: 'standard' });
    const auth = basicAuth(key.apiKey);
    let server = await start();
    const companyId = (await http(server, 'POST', '/companies', { auth, body: { name: 'Graceful' } })).body.id;
    await fetchOnFirstLinkOnly(server, { auth }, companyId, ['invoices']);
    const connectionId = (await http(server, 'POST', `/companies/${companyId}/connections`, { auth, body: { platformKey: 'mqjo' } })).body
      .id;
    const base = `/companies/${companyId}/connections/${connectionId}`;
    expect((await http(server, 'PUT', `${base}/authorization`, { auth, body: { invoices: '100000' } })).status).toBe(200);
    const running = await until('the sync to be fetching', async () => {
      const res = await http(server, 'GET', `/companies/${companyId}/data/history?query=status%3DFetching`, { auth });
      return res.body.results.find((op: { progress: number }) => op.progress > 1) as { id: string } | undefined;
    });

    const signalled = Date.now();
    server.child.kill('SIGTERM');
    expect(await exited(server.child)).toBe(0);
    // Bounded: the grace period, then at most a heartbeat (a second) for the sync to stop, plus closing.
    expect(Date.now() - signalled).toBeLessThan(GRACE_MS + 8_000);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    // Handed back, not failed: the operation waits for its next run.
    const left = await store.store.db.selectFrom('pull_operations').select('status').where('id', '=', running.id).executeTakeFirstOrThrow();
    expect(left.status).toBe('Fetching');

    server = await start();
    const done = await until(
      'the next process to complete the sync',
      async () => {
        const res = await http(server, 'GET', `/companies/${companyId}/data/history/${running.id}`, { auth });
        return res.body.status === 'Fetching' || res.body.status === 'Queued' ? undefined : res.body;
      },
      150_000,
    );
    expect(done).toMatchObject({ status: 'Complete', progress: 100 });
    const after = await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth });
    expect(after.body.totalResults).toBeGreaterThanOrEqual(100_000);
    await expectWholeVersion(store.store, running.id, after.body.totalResults);
  }, 240_000);
});
