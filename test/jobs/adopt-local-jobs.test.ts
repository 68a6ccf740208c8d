import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { createClientsService } from '../../src/access/clients.service.js';
import { graphileSchema } from '../../src/jobs/graphile-jobs.store.js';
import { SYNC_JOB } from '../../src/syncs/sync-queue.js';
import { queuedJobs } from '../helpers/job-rows.js';
import { until } from '../helpers/processes.js';
import { companyWithConnection, authorize } from '../helpers/sandbox.js';
import { createTestStore, POSTGRES_URL, type TestStore } from '../helpers/test-store.js';
import { basicAuth, http } from '../helpers/test-server.js';

/**
 * Upgrading a Postgres installation from the version whose jobs lived in the `jobs` table: jobs still queued
 * there (or left running by a dead process) move to graphile-worker and run; a job an old worker holds stays.
 */

let store: TestStore;
const apps: App[] = [];
beforeAll(async () => {
  if (POSTGRES_URL) store = await createTestStore();
});
afterAll(async () => {
  for (const app of apps) await app.server.close();
  await store?.destroy();
});

async function start(enabled: boolean): Promise<{ url: string }> {
  const app = await buildApp({ store: store.store, logLevel: 'silent', jobs: { enabled, pollMs: 50, leaseMs: 900 } });
  apps.push(app);
  return { url: await app.listen(0, '127.0.0.1') };
}

describe.skipIf(!POSTGRES_URL)('jobs of the old jobs table on Postgres', () => {
  it('runs the queued ones and the abandoned ones, and leaves one an old worker holds', async () => {
    const api = await start(false);
    const { key } = await createClientsService({ db: store.store.db }).create({ name: 'Upgrade', plan: 'standard' });
    const client = { clientId: '', apiKey: key.apiKey, auth: basicAuth(key.apiKey) };
    const linked = await companyWithConnection(api, client);
    await authorize(api, client, linked);

    // Move three of the syncs' jobs back to where the old version kept them.
    const jobs = (await queuedJobs(store.store, SYNC_JOB)).slice(0, 3);
    expect(jobs).toHaveLength(3);
    const schema = await graphileSchema(store.store.db);
    await sql`DELETE FROM ${sql.id(schema, '_private_jobs')} WHERE id = ANY(${jobs.map((j) => j.id)}::bigint[])`.execute(store.store.db);
    const now = Date.now();
    const row = (payload: unknown, status: string, leaseExpires: number | null) => ({
      id: randomUUID(),
      kind: SYNC_JOB,
      payload: JSON.stringify(payload),
      status,
      run_after: new Date(now).toISOString(),
      created: new Date(now).toISOString(),
      lease_owner: status === 'running' ? 'old-worker' : null,
      lease_expires: leaseExpires === null ? null : new Date(leaseExpires).toISOString(),
    });
    await store.store.db
      .insertInto('jobs')
      .values([
        row(jobs[0].payload, 'queued', null),
        row(jobs[1].payload, 'running', now - 60_000), // its process died
        row(jobs[2].payload, 'running', now + 3_600_000), // an old worker still holds it
      ])
      .execute();
    const ids = jobs.map((j) => (j.payload as { pullOperationId: string }).pullOperationId);

    await start(true);
    const statusOf = async (id: string) =>
      (await http(api, 'GET', `/companies/${linked.companyId}/data/history/${id}`, { auth: client.auth })).body.status;
    await until('the adopted syncs to complete', async () =>
      (await statusOf(ids[0])) === 'Complete' && (await statusOf(ids[1])) === 'Complete' ? true : undefined,
    );
    expect(await statusOf(ids[2])).toBe('Queued');
    const left = await store.store.db.selectFrom('jobs').select(['status', 'lease_owner']).where('kind', '=', SYNC_JOB).execute();
    expect(left).toEqual([{ status: 'running', lease_owner: 'old-worker' }]);
  }, 60_000);
});
