import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsService } from '../../src/access/clients.service.js';
import { fetchOnFirstLinkOnly } from '../helpers/sandbox.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';
import { basicAuth, http } from '../helpers/test-server.js';
import { assertCliBuilt } from '../helpers/cli.js';
import { expectWholeVersion } from '../helpers/versions.js';
import { answering, exited, startService, until, type ServiceProcess } from '../helpers/processes.js';

/** `npm start`'s process (role all) on the test store, with a short lease so a dead run is noticed quickly. */
async function startProcess(databaseUrl: string): Promise<ServiceProcess> {
  const service = await startService(databaseUrl, 'all', { LOG_LEVEL: 'error', JOB_LEASE_MS: '1500', JOB_CONCURRENCY: '1' });
  await answering(service);
  return service;
}

const poll = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs?: number) => until(what, probe, timeoutMs);

let store: TestStore;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  assertCliBuilt();
  store = await createTestStore();
});
afterAll(async () => {
  service?.child.kill('SIGKILL');
  await store.destroy();
});

describe('a sync killed mid-way', () => {
  it('is taken up again after a restart and completes; until then the previous data stays readable', async () => {
    const { key } = await createClientsService({ db: store.store.db }).create({ name: 'Crash test', plan: 'standard' });
    const auth = basicAuth(key.apiKey);
    service = await startProcess(store.databaseUrl);
    let server = service;

    const companyId = (await http(server, 'POST', '/companies', { auth, body: { name: 'Crash' } })).body.id;
    // Only invoices on first link, so the test waits for one sync only.
    await fetchOnFirstLinkOnly(server, { auth }, companyId, ['invoices']);
    const connectionId = (await http(server, 'POST', `/companies/${companyId}/connections`, { auth, body: { platformKey: 'mqjo' } })).body
      .id;
    const base = `/companies/${companyId}/connections/${connectionId}`;
    expect((await http(server, 'PUT', `${base}/authorization`, { auth, body: { size: 'small' } })).status).toBe(200);
    const firstSync = await poll('the first sync', async () => {
      const res = await http(server, 'GET', `/companies/${companyId}/dataStatus`, { auth });
      return res.body.invoices?.currentStatus === 'Complete' ? (res.body.invoices.latestSyncId as string) : undefined;
    });
    const before = await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth });
    expect(before.body.totalResults).toBe(200);

    // Relink with a large data set so the next sync runs long enough to be killed in the middle.
    expect((await http(server, 'PATCH', base, { auth, body: { status: 'Unlinked' } })).status).toBe(200);
    expect((await http(server, 'PUT', `${base}/authorization`, { auth, body: { invoices: '100000' } })).status).toBe(200);
    const running = await poll('the large sync to be fetching', async () => {
      const res = await http(server, 'GET', `/companies/${companyId}/data/history?query=status%3DFetching`, { auth });
      return res.body.results.find((op: { progress: number }) => op.progress > 1);
    });
    service.child.kill('SIGKILL');
    await exited(service.child);

    service = await startProcess(store.databaseUrl);
    server = service;
    // Until the sync completes, readers see the previous version whole.
    const during = await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth });
    expect(during.status).toBe(200);
    expect(during.body.totalResults).toBe(200);
    const done = await poll(
      'the interrupted sync to complete',
      async () => {
        const res = await http(server, 'GET', `/companies/${companyId}/data/history/${running.id}`, { auth });
        return res.body.status === 'Fetching' || res.body.status === 'Queued' ? undefined : res.body;
      },
      150_000,
    );
    expect(done).toMatchObject({ status: 'Complete', isCompleted: true, isErrored: false, progress: 100 });
    const after = await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth });
    expect(after.body.totalResults).toBeGreaterThanOrEqual(100_000);
    const status = await http(server, 'GET', `/companies/${companyId}/dataStatus`, { auth });
    expect(status.body.invoices).toMatchObject({ currentStatus: 'Complete', latestSyncId: running.id, latestSuccessfulSyncId: running.id });
    // Nothing of the interrupted run is left beside the completed version: as many documents as indexed
    // records, as many as the data set reports.
    await expectWholeVersion(store.store, running.id, after.body.totalResults);
    expect(firstSync).not.toBe(running.id);
  }, 240_000);
});
