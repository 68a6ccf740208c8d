import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_JOB } from '../../src/syncs/sync-queue.js';
import { takeAwayRunningJobs } from '../helpers/job-rows.js';
import { expectWholeVersion } from '../helpers/versions.js';
import { until } from '../helpers/processes.js';
import { authorize, companyWithConnection, fetchOnFirstLinkOnly } from '../helpers/sandbox.js';
import { http, startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * A worker presumed dead while it is in fact alive (paused longer than the lease): its sync is taken over by a
 * new run, the old run stops at its next heartbeat, and none of the old run's batches reach the version the
 * new run writes.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ jobs: { concurrency: 2, leaseMs: 600 } });
});
afterAll(async () => {
  await server.close();
});

describe('a sync taken over while its first run is still going', () => {
  it("completes once, with exactly the new run's records", async () => {
    const client = await server.newClient();
    const linked = await companyWithConnection(server, client);
    const { companyId } = linked;
    await fetchOnFirstLinkOnly(server, { auth: client.auth }, companyId, ['invoices']);
    await authorize(server, client, linked, { invoices: '60000' });
    const running = await until('the sync to be fetching', async () => {
      const res = await http(server, 'GET', `/companies/${companyId}/data/history?query=status%3DFetching`, { auth: client.auth });
      return res.body.results.find((op: { progress: number }) => op.progress > 1) as { id: string } | undefined;
    });
    const firstRunner = (
      await server.store.db.selectFrom('pull_operations').select('runner').where('id', '=', running.id).executeTakeFirstOrThrow()
    ).runner;

    expect(await takeAwayRunningJobs(server.store, SYNC_JOB)).toBe(1);

    const done = await until(
      'the sync to complete',
      async () => {
        const res = await http(server, 'GET', `/companies/${companyId}/data/history/${running.id}`, { auth: client.auth });
        return res.body.status === 'Fetching' || res.body.status === 'Queued' ? undefined : res.body;
      },
      120_000,
    );
    expect(done).toMatchObject({ status: 'Complete', progress: 100 });
    const op = await server.store.db
      .selectFrom('pull_operations')
      .select(['runner', 'seq'])
      .where('id', '=', running.id)
      .executeTakeFirstOrThrow();
    expect(op.runner).not.toBe(firstRunner);

    const page = await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth: client.auth });
    expect(page.body.totalResults).toBeGreaterThanOrEqual(60_000);
    expect(await expectWholeVersion(server.store, running.id, page.body.totalResults)).toBe(Number(op.seq));
  }, 180_000);
});
