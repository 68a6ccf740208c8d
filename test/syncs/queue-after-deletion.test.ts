import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobEngine } from '../../src/jobs/job-engine.js';
import type { JobEngine } from '../../src/jobs/job-queue.js';
import { ApiError } from '../../src/http/api-error.js';
import { openOperation, queueSync, queueSyncIfIdle, type QueueTarget } from '../../src/syncs/sync-queue.js';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { linkedSandbox } from '../helpers/sandbox.js';

/*
 * A sync asked for a connection that a deletion took after the caller looked it up (the request checked the company,
 * then the company was deleted by another request before the sync was queued): 404 `Data connection … not found`,
 * never a pull operation or data set pointing at nothing (on Postgres a foreign-key violation, answered 500; the fuzz
 * test met it with POST …/data/all racing DELETE /companies/{id}). Queueing "if idle" queues nothing.
 */

let server: TestServer;
let client: TestClient;
let jobs: JobEngine;

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient({ name: 'Queue after deletion' });
  // The real engine of this store, never started: only its enqueue is used (and here must not be reached).
  jobs = await createJobEngine(server.store, { log: server.app.server.log });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const operationsOf = (companyId: string) =>
  server.store.db.selectFrom('pull_operations').select('id').where('company_id', '=', companyId).execute();

describe('queueing a sync for a connection deleted meanwhile', () => {
  it.each(['company', 'connection'])('after its %s was deleted: 404, and nothing written', async (deleted) => {
    const linked = await linkedSandbox(server, client);
    const path =
      deleted === 'company' ? `/companies/${linked.companyId}` : `/companies/${linked.companyId}/connections/${linked.connectionId}`;
    const res = await http(server, 'DELETE', path, { auth: client.auth });
    expect(res.status, res.text).toBeLessThan(300);
    const before = (await operationsOf(linked.companyId)).length;
    const target: QueueTarget = {
      clientId: client.clientId,
      companyId: linked.companyId,
      connectionId: linked.connectionId,
      dataType: 'invoices',
    };

    const queued = server.store.db.transaction().execute((trx) => queueSync(trx, jobs, target, new Date()));
    await expect(queued).rejects.toBeInstanceOf(ApiError);
    await expect(queued).rejects.toMatchObject({ statusCode: 404, code: 'ConnectionGone' });
    const opened = server.store.db.transaction().execute((trx) => openOperation(trx, target, new Date()));
    await expect(opened).rejects.toMatchObject({ statusCode: 404, code: 'ConnectionGone' });
    expect(await server.store.db.transaction().execute((trx) => queueSyncIfIdle(trx, jobs, target, new Date()))).toBeUndefined();
    expect((await operationsOf(linked.companyId)).length).toBe(before);
  });
});
