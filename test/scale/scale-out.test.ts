import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsService } from '../../src/access/clients.service.js';
import { createClientsStore } from '../../src/clients/clients.store.js';
import { graphileSchema } from '../../src/jobs/graphile-jobs.store.js';
import { authorize, companyWithConnection, fetchOnFirstLinkOnly } from '../helpers/sandbox.js';
import { assertCliBuilt } from '../helpers/cli.js';
import { expectWholeVersion } from '../helpers/versions.js';
import { answering, exited, startService, until, type ServiceProcess } from '../helpers/processes.js';
import { createTestStore, POSTGRES_URL, type TestStore } from '../helpers/test-store.js';
import { basicAuth, http, type TestClient } from '../helpers/test-server.js';
import { createConsumer, startReceiver, verifySigned, type Receiver } from '../webhooks/receiver.js';

/**
 * Scale-out on Postgres: 2 API processes and 2 worker processes (`bin/ledgerport serve --role api|worker`) on
 * one database. Work is queued through both API processes at once and run by graphile-worker in the workers.
 */

// Types queued explicitly; customers sync by themselves after each write (allowSyncOnPushComplete).
const QUEUED_TYPES = [
  'invoices',
  'bills',
  'chartOfAccounts',
  'suppliers',
  'items',
  'journals',
  'payments',
  'creditNotes',
  'billPayments',
  'taxRates',
];
const COMPANIES = 10;
const WRITES_PER_COMPANY = 10;
const LEASE_MS = 1500;

let store: TestStore;
let receiver: Receiver;
const services: ServiceProcess[] = [];
let apis: ServiceProcess[] = [];
let workers: ServiceProcess[] = [];

async function newClient(name: string): Promise<TestClient> {
  const { client, key } = await createClientsService({ db: store.store.db }).create({ name, plan: 'standard' });
  return { clientId: client.id, apiKey: key.apiKey, auth: basicAuth(key.apiKey) };
}

async function start(role: 'api' | 'worker', env: Record<string, string> = {}): Promise<ServiceProcess> {
  const service = await startService(store.databaseUrl, role, {
    JOB_LEASE_MS: String(LEASE_MS),
    JOB_CONCURRENCY: '2',
    SANDBOX_WRITE_DELAY_MS: '100',
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    PUBLIC_URL: 'http://ledgerport.test',
    ...env,
  });
  services.push(service);
  if (role === 'api') await answering(service);
  return service;
}

/** A company linked to the accounting Sandbox; only customers and invoices sync on first link. */
async function linkedCompany(api: ServiceProcess, client: TestClient, name: string, size: Record<string, string> = { size: 'small' }) {
  const companyId = (await http(api, 'POST', '/companies', { auth: client.auth, body: { name } })).body.id as string;
  await fetchOnFirstLinkOnly(api, client, companyId, ['customers', 'invoices']);
  const linked = await companyWithConnection(api, client, 'mqjo', companyId);
  await authorize(api, client, linked, size);
  return linked;
}

async function syncsSettled(
  api: ServiceProcess,
  client: TestClient,
  companyId: string,
): Promise<Record<string, { currentStatus: string }> | undefined> {
  const res = await http(api, 'GET', `/companies/${companyId}/dataStatus`, { auth: client.auth });
  const statuses = Object.values(res.body as Record<string, { currentStatus: string }>);
  return statuses.length > 0 && statuses.every((s) => s.currentStatus !== 'Queued' && s.currentStatus !== 'Fetching')
    ? res.body
    : undefined;
}

beforeAll(async () => {
  if (!POSTGRES_URL) return;
  assertCliBuilt();
  store = await createTestStore();
  receiver = await startReceiver();
  apis = [await start('api'), await start('api')];
  workers = [await start('worker'), await start('worker')];
}, 120_000);

afterAll(async () => {
  for (const service of services) service.child.kill('SIGKILL');
  await receiver?.close();
  await store?.destroy();
});

describe.skipIf(!POSTGRES_URL)('2 API and 2 worker processes on one Postgres', () => {
  it('runs each of 200 concurrent syncs and writes exactly once, and both API processes read the same', async () => {
    const client = await newClient('Scale-out');
    const consumer = await createConsumer(apis[0], client, { url: receiver.url, eventTypes: ['customers.write.successful'] });
    const companies = [];
    for (let i = 0; i < COMPANIES; i++) companies.push(await linkedCompany(apis[i % 2], client, `Scale ${i}`));
    for (const { companyId } of companies) await until('first syncs', () => syncsSettled(apis[0], client, companyId));

    // 200 requests at once, alternating between the two API processes: 10 syncs and 10 writes per company.
    const requests: Promise<{ status: number; text: string; kind: string; body: any }>[] = [];
    let n = 0;
    for (const [c, { companyId, connectionId }] of companies.entries()) {
      for (const dataType of QUEUED_TYPES) {
        const api = apis[n++ % 2];
        requests.push(
          http(api, 'POST', `/companies/${companyId}/data/queue/${dataType}`, { auth: client.auth }).then((r) => ({ ...r, kind: 'sync' })),
        );
      }
      for (let w = 0; w < WRITES_PER_COMPANY; w++) {
        const api = apis[n++ % 2];
        const body = { customerName: `Scale customer ${c}-${w}`, status: 'Active', defaultCurrency: 'GBP' };
        requests.push(
          http(api, 'POST', `/companies/${companyId}/connections/${connectionId}/push/customers`, { auth: client.auth, body }).then(
            (r) => ({ ...r, kind: 'write' }),
          ),
        );
      }
    }
    const answers = await Promise.all(requests);
    expect(answers).toHaveLength(200);
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const pushIds = answers.filter((a) => a.kind === 'write').map((a) => a.body.pushOperationKey as string);
    expect(new Set(pushIds).size).toBe(100);

    // Every write settles, every sync completes (the syncs that writes cause included).
    for (const { companyId } of companies) {
      await until(
        'the writes to settle',
        async () => {
          const res = await http(apis[1], 'GET', `/companies/${companyId}/push?pageSize=100`, { auth: client.auth });
          return res.body.results.every((op: { status: string }) => op.status !== 'Pending') ? true : undefined;
        },
        120_000,
      );
      await until('the syncs to finish', () => syncsSettled(apis[0], client, companyId), 120_000);
    }

    for (const [c, { companyId, connectionId }] of companies.entries()) {
      // Both API processes answer the same for every list.
      for (const path of [
        `/companies/${companyId}/push?pageSize=100`,
        `/companies/${companyId}/data/history?pageSize=200`,
        `/companies/${companyId}/dataStatus`,
        `/companies/${companyId}/data/invoices?pageSize=5`,
      ]) {
        const [a, b] = await Promise.all(apis.map((api) => http(api, 'GET', path, { auth: client.auth })));
        expect(a.status, a.text).toBe(200);
        expect(b.body, path).toEqual(a.body);
      }
      const pushes = (await http(apis[0], 'GET', `/companies/${companyId}/push?pageSize=100`, { auth: client.auth })).body;
      expect(pushes.totalResults).toBe(WRITES_PER_COMPANY);
      expect(pushes.results.every((op: { status: string }) => op.status === 'Success')).toBe(true);
      const history = (await http(apis[1], 'GET', `/companies/${companyId}/data/history?pageSize=200`, { auth: client.auth })).body;
      expect(history.results.every((op: { status: string }) => op.status === 'Complete')).toBe(true);
      for (const dataType of QUEUED_TYPES) {
        // The first-link sync of invoices and one queued sync of every type: each ran once.
        const ofType = history.results.filter((op: { dataType: string }) => op.dataType === dataType);
        expect(ofType.length, dataType).toBe(dataType === 'invoices' ? 2 : 1);
      }
      // Each written customer is in the synced data once, through either process.
      for (let w = 0; w < WRITES_PER_COMPANY; w++) {
        const query = encodeURIComponent(`customerName=Scale customer ${c}-${w}`);
        for (const api of apis) {
          const found = await http(api, 'GET', `/companies/${companyId}/data/customers?query=${query}`, { auth: client.auth });
          expect(found.body.totalResults, `customer ${c}-${w}`).toBe(1);
        }
      }
      // The platform stored each write once.
      const stored = await store.store.db
        .selectFrom('platform_writes')
        .select(['record_id'])
        .where('connection_id', '=', connectionId)
        .execute();
      expect(stored).toHaveLength(WRITES_PER_COMPANY);
      expect(new Set(stored.map((row) => row.record_id)).size).toBe(WRITES_PER_COMPANY);
    }

    // Each write's event was delivered once: 100 deliveries, 100 distinct webhook ids, one per push operation.
    const delivered = await receiver.waitFor(100, 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.received).toHaveLength(100);
    expect(new Set(delivered.map((d) => d.headers['webhook-id'])).size).toBe(100);
    const reported = delivered.map((d) => verifySigned(consumer.secret, d).payload.id as string);
    expect(new Set(reported)).toEqual(new Set(pushIds));

    // No job failed or ran again: graphile-worker keeps a job only while it waits, runs, or after it failed.
    const schema = await graphileSchema(store.store.db);
    const { rows } = await sql<{ failed: number; retried: number }>`
      SELECT count(*) FILTER (WHERE last_error IS NOT NULL) AS failed, count(*) FILTER (WHERE attempts > 1) AS retried
      FROM ${sql.id(schema, '_private_jobs')}`.execute(store.store.db);
    expect(rows[0]).toEqual({ failed: 0, retried: 0 });
  }, 300_000);

  it('hands a sync whose worker was killed (SIGKILL) to the other worker, which completes it', async () => {
    const client = await newClient('Worker crash');
    const { companyId, connectionId } = await linkedCompany(apis[0], client, 'Crash');
    await until('the first syncs', () => syncsSettled(apis[0], client, companyId));
    const before = await http(apis[1], 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth: client.auth });
    expect(before.body.totalResults).toBe(200);

    // Relink with a large data set, so the next invoices sync runs long enough to kill its worker mid-way.
    const base = `/companies/${companyId}/connections/${connectionId}`;
    expect((await http(apis[0], 'PATCH', base, { auth: client.auth, body: { status: 'Unlinked' } })).status).toBe(200);
    expect((await http(apis[0], 'PUT', `${base}/authorization`, { auth: client.auth, body: { invoices: '100000' } })).status).toBe(200);
    const running = await until('the large sync to be fetching', async () => {
      const res = await http(
        apis[1],
        'GET',
        `/companies/${companyId}/data/history?query=${encodeURIComponent('dataType=invoices&&status=Fetching')}`,
        { auth: client.auth },
      );
      return res.body.results.find((op: { progress: number }) => op.progress > 1) as { id: string } | undefined;
    });

    // The worker holding it: graphile-worker's lock names the pool, `job_workers` the pool's process. The relink queued
    // the other types' first syncs too, and one of them may still be running beside it: the large sync's job is named.
    const schema = await graphileSchema(store.store.db);
    const { rows } = await sql<{ host: string }>`
      SELECT w.host FROM ${sql.id(schema, 'jobs')} j JOIN job_workers w ON w.pool_id = j.locked_by
        JOIN ${sql.id(schema, '_private_jobs')} p ON p.id = j.id
      WHERE j.task_identifier = 'sync-data-type' AND j.locked_at IS NOT NULL
        AND p.payload->>'pullOperationId' = ${running.id}`.execute(store.store.db);
    expect(rows).toHaveLength(1);
    const pid = Number(rows[0].host.split(':').pop());
    const victim = workers.find((w) => w.child.pid === pid);
    expect(victim, `a worker with pid ${pid}`).toBeDefined();
    victim!.child.kill('SIGKILL');
    await exited(victim!.child);
    workers = workers.filter((w) => w !== victim);

    // Until the survivor completes it, readers see the previous version whole.
    const during = await http(apis[0], 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth: client.auth });
    expect(during.body.totalResults).toBe(200);
    const done = await until(
      'the other worker to complete the sync',
      async () => {
        const res = await http(apis[0], 'GET', `/companies/${companyId}/data/history/${running.id}`, { auth: client.auth });
        return res.body.status === 'Fetching' || res.body.status === 'Queued' ? undefined : res.body;
      },
      150_000,
    );
    expect(done).toMatchObject({ status: 'Complete', progress: 100 });
    const after = await http(apis[1], 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth: client.auth });
    expect(after.body.totalResults).toBeGreaterThanOrEqual(100_000);
    // Nothing of the killed run is left: as many documents as indexed records, as many as the data set reports.
    await expectWholeVersion(store.store, running.id, after.body.totalResults);
    // The killed worker's pool was declared dead and its lock released.
    const pools = await store.store.db.selectFrom('job_workers').select('host').execute();
    expect(pools.map((p) => p.host)).not.toContain(rows[0].host);
  }, 300_000);

  /** 2 × quota requests alternating between two API processes: exactly `quota` get through. */
  async function expectSharedQuota(pair: ServiceProcess[], quota: number): Promise<void> {
    const client = await newClient('Shared quota');
    expect(await createClientsStore(store.store.db).setLimits(client.clientId, { dailyQuota: quota })).toBe(true);
    const answers = await Promise.all(
      Array.from({ length: 2 * quota }, (_, i) => http(pair[i % 2], 'GET', '/profile', { auth: client.auth })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(quota);
    expect(statuses.filter((s) => s === 429)).toHaveLength(quota);
    // Each process turned some away: the limit is one for both, not one each.
    for (const api of pair) expect((await http(api, 'GET', '/profile', { auth: client.auth })).status).toBe(429);
  }

  it("enforces a client's daily quota across both API processes together (counters in Postgres)", async () => {
    await expectSharedQuota(apis, 20);
  }, 60_000);

  it('enforces it across two API processes with REDIS_URL set (counters in Redis)', async () => {
    const redis = { REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' };
    const pair = [await start('api', redis), await start('api', redis)];
    await expectSharedQuota(pair, 20);
  }, 60_000);
});
