import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsService } from '../../src/clients/clients.service.js';
import { DATA_TYPES } from '../../src/connectors/data-types.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';
import { basicAuth, http } from '../helpers/test-server.js';
import { assertCliBuilt } from '../helpers/cli.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

/** Runs `node dist/main.js` on the test store, as `npm start` would, and waits until it answers. */
async function startProcess(databaseUrl: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'error', JOB_LEASE_MS: '1500', JOB_CONCURRENCY: '1' },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let store: TestStore;
let child: ChildProcess | undefined;

beforeAll(async () => {
  assertCliBuilt();
  store = await createTestStore();
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await store.destroy();
});

describe('a sync killed mid-way', () => {
  it('leaves the previous data readable and the operation in an error state after a restart', async () => {
    const port = await freePort();
    const server = { url: `http://127.0.0.1:${port}` };
    const { key } = await createClientsService({ db: store.store.db }).create({ name: 'Crash test', plan: 'standard' });
    const auth = basicAuth(key.apiKey);
    child = await startProcess(store.databaseUrl, port);

    const companyId = (await http(server, 'POST', '/companies', { auth, body: { name: 'Crash' } })).body.id;
    // Only invoices on first link, so the test waits for one sync only.
    const settings = DATA_TYPES.map((dataType, syncOrder) => ({ dataType, fetchOnFirstLink: dataType === 'invoices', syncSchedule: 24, syncOrder }));
    expect((await http(server, 'POST', `/companies/${companyId}/syncSettings`, { auth, body: { companyId, settings } })).status).toBe(204);
    const connectionId = (await http(server, 'POST', `/companies/${companyId}/connections`, { auth, body: { platformKey: 'mqjo' } })).body.id;
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
    expect((await http(server, 'PUT', `${base}/authorization`, { auth, body: { invoices: '1000000' } })).status).toBe(200);
    const running = await poll('the large sync to be fetching', async () => {
      const res = await http(server, 'GET', `/companies/${companyId}/data/history?query=status%3DFetching`, { auth });
      return res.body.results.find((op: { progress: number }) => op.progress > 1);
    });
    child.kill('SIGKILL');
    await new Promise((r) => child?.once('exit', r));

    child = await startProcess(store.databaseUrl, port);
    const failed = await poll('the abandoned sync to fail', async () => {
      const res = await http(server, 'GET', `/companies/${companyId}/data/history/${running.id}`, { auth });
      return res.body.status === 'Fetching' || res.body.status === 'Queued' ? undefined : res.body;
    });
    expect(failed).toMatchObject({ status: 'InternalError', isErrored: true, isCompleted: false });
    expect(failed.errorMessage).toMatch(/interrupted/);
    const after = await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth });
    expect(after.status).toBe(200);
    expect(after.body.totalResults).toBe(200);
    const status = await http(server, 'GET', `/companies/${companyId}/dataStatus`, { auth });
    expect(status.body.invoices.currentStatus).toBe('InternalError');
    expect(status.body.invoices.latestSuccessfulSyncId).toBe(firstSync);
    expect(status.body.invoices.latestSyncId).toBe(running.id);
  }, 180_000);
});
