import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsService } from '../../src/access/clients.service.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';
import { basicAuth, http } from '../helpers/test-server.js';
import { assertCliBuilt, CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { answering, exited, startService, until } from '../helpers/processes.js';

/** `bin/ledgerport serve --role api|worker`: one process answers HTTP, another runs the jobs, on one store. */

const serve = (databaseUrl: string, role: string) => startService(databaseUrl, role as 'api', { LOG_LEVEL: 'info', JOB_LEASE_MS: '2000' });

let store: TestStore;
const children: ChildProcess[] = [];

beforeAll(async () => {
  assertCliBuilt();
  store = await createTestStore();
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await store.destroy();
});

describe('serve --role', () => {
  it(
    'splits answering HTTP (api) from running syncs (worker), and both stop cleanly on SIGTERM',
    async () => {
      const { key } = await createClientsService({ db: store.store.db }).create({ name: 'Roles', plan: 'standard' });
      const auth = basicAuth(key.apiKey);
      const api = await serve(store.databaseUrl, 'api');
      children.push(api.child);
      await answering(api);
      const server = api;

      const companyId = (await http(server, 'POST', '/companies', { auth, body: { name: 'Split roles' } })).body.id;
      const connectionId = (await http(server, 'POST', `/companies/${companyId}/connections`, { auth, body: { platformKey: 'mqjo' } })).body
        .id;
      const linked = await http(server, 'PUT', `/companies/${companyId}/connections/${connectionId}/authorization`, {
        auth,
        body: { size: 'small' },
      });
      expect(linked.status, linked.text).toBe(200);

      // The API process queues the first-link syncs but runs none of them.
      await new Promise((r) => setTimeout(r, 1500));
      const waiting = await http(server, 'GET', `/companies/${companyId}/dataStatus`, { auth });
      expect(Object.values(waiting.body as Record<string, { currentStatus: string }>).every((s) => s.currentStatus === 'Queued')).toBe(
        true,
      );

      const worker = await serve(store.databaseUrl, 'worker');
      children.push(worker.child);
      const statuses = await until('the worker to run the syncs', async () => {
        const res = await http(server, 'GET', `/companies/${companyId}/dataStatus`, { auth });
        const all = Object.values(res.body as Record<string, { currentStatus: string }>);
        return all.every((s) => s.currentStatus === 'Complete') ? all : undefined;
      });
      expect(statuses.length).toBeGreaterThan(20);
      const invoices = await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth });
      expect(invoices.body.totalResults).toBe(200);
      // The worker listens nowhere and never creates a first client.
      expect(worker.output()).not.toMatch(/Server listening|First start/);

      for (const process of [api, worker]) process.child.kill('SIGTERM');
      expect(await exited(api.child)).toBe(0);
      expect(await exited(worker.child)).toBe(0);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'refuses an unknown role',
    async () => {
      const bad = await serve(store.databaseUrl, 'everything');
      children.push(bad.child);
      expect(await exited(bad.child)).not.toBe(0);
      expect(bad.output()).toMatch(/everything/);
    },
    CLI_TEST_TIMEOUT,
  );
});
