import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { PUSH_JOB } from '../../src/push/push-job.js';
import { startStripeFake, type StripeFake } from '../fakes/stripe/stripe-fake.js';
import type { StripeAccount } from '../fakes/stripe/stripe-account.js';
import { runningJobs } from '../helpers/job-rows.js';
import { until } from '../helpers/processes.js';
import { companyWithConnection, fetchOnFirstLinkOnly, waitForPush, type LinkedCompany } from '../helpers/sandbox.js';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';

/**
 * A write a live platform keeps waiting: Stripe answers it 429 with a `Retry-After` of several job leases. The job
 * heartbeats while the platform request waits, so no other worker takes it over and the write reaches Stripe once,
 * after the wait; a worker that stops meanwhile hands the write back at once, unsent, and the next worker sends it
 * once. Worker engines of their own on the API's store (the API runs no jobs), on SQLite, where the lease is the
 * job's, or on Postgres, where it is the worker process's (src/jobs/README.md, "Heartbeats").
 */

const LEASE_MS = 1000;
const GRACE_MS = 200;
const CUSTOMERS = /^\/v1\/customers$/;

let fake: StripeFake;
let shop: StripeAccount;
let api: TestServer;
let client: TestClient;
let linked: LinkedCompany;
let savedApiUrl: string | undefined;
let workers: App[] = [];

async function startWorker(): Promise<App> {
  const app = await buildApp({
    store: api.store,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    jobs: { pollMs: 50, concurrency: 1, leaseMs: LEASE_MS, shutdownGraceMs: GRACE_MS, writerThreads: 0 },
    push: { sandboxDelayMs: 100 },
  });
  workers.push(app);
  return app;
}

/** Creates a customer at Stripe through the push API (no sync after it); returns the operation's key. */
async function pushCustomer(name: string): Promise<string> {
  const path = `/companies/${linked.companyId}/connections/${linked.connectionId}/push/commerce-customers?allowSyncOnPushComplete=false`;
  const res = await http(api, 'POST', path, { auth: client.auth, body: { customerName: name } });
  expect(res.status, res.text).toBe(200);
  return res.body.pushOperationKey as string;
}

/** What Stripe answered each customer creation sent since request `from` (its index in the fake's log). */
const creations = (from: number) =>
  fake
    .apiRequests((r) => r.method === 'POST' && CUSTOMERS.test(r.path))
    .filter((r) => fake.requests.indexOf(r) >= from)
    .map((r) => r.status);

const operation = async (key: string) => (await http(api, 'GET', `/companies/${linked.companyId}/push/${key}`, { auth: client.auth })).body;

beforeAll(async () => {
  fake = await startStripeFake();
  shop = fake.addAccount('Patient Goods');
  savedApiUrl = process.env.STRIPE_API_URL;
  process.env.STRIPE_API_URL = fake.apiEnv().STRIPE_API_URL;
  api = await startTestServer({ jobs: { enabled: false }, push: { sandboxDelayMs: 100 } });
  client = await api.newClient();
  linked = await companyWithConnection(api, client, 'exgd');
  await fetchOnFirstLinkOnly(api, client, linked.companyId, []);
  const authorization = `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`;
  const apiKey = shop.newKey();
  // The fake checks each answer against Stripe's OpenAPI document, read and compiled at its first answer: seconds on a
  // busy machine, more than the connector waits for Stripe when it links. Its first answer is this one.
  expect((await fetch(`${fake.url}/v1/account`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200);
  const res = await http(api, 'PUT', authorization, { auth: client.auth, body: { apiKey } });
  expect(res.status, res.text).toBe(200);
}, 60_000);

/** Stops the workers, each once its running jobs have ended (or been handed back). */
async function stopWorkers(): Promise<void> {
  for (const worker of workers) await worker.server.close();
  workers = [];
}

afterEach(stopWorkers);

afterAll(async () => {
  await api?.close();
  await fake?.close();
  if (savedApiUrl === undefined) delete process.env.STRIPE_API_URL;
  else process.env.STRIPE_API_URL = savedApiUrl;
});

describe('a write waiting out a Retry-After of several leases', () => {
  it('keeps its job while it waits: one run, and the write reaches Stripe once', async () => {
    await startWorker();
    await startWorker();
    fake.inject({ status: 429, count: 1, retryAfterSeconds: 4, path: CUSTOMERS, method: 'POST' });
    const from = fake.requests.length;
    const key = await pushCustomer('Patient Customer');
    // Who ran the job, and its runs, as seen while it waits: a worker taking it over would show as a second holder.
    const runs = new Map<string, number>();
    const op = await until(
      'the write to settle',
      async () => {
        for (const job of await runningJobs(api.store, PUSH_JOB)) runs.set(job.holder, Math.max(runs.get(job.holder) ?? 0, job.attempts));
        const current = await operation(key);
        return current.status === 'Pending' ? undefined : current;
      },
      30_000,
    );
    // Every run of the job has ended once the workers have stopped: one still waiting would have sent the write too.
    await stopWorkers();
    expect(op.status, JSON.stringify(op)).toBe('Success');
    expect(creations(from)).toEqual([429, 200]);
    expect(shop.all('customers').filter((c) => c.name === 'Patient Customer')).toHaveLength(1);
    expect([...runs.values()]).toEqual([1]);
    if (api.store.dialect.name === 'sqlite') {
      const job = await api.store.db
        .selectFrom('jobs')
        .select(['status', 'attempts'])
        .where('kind', '=', PUSH_JOB)
        .executeTakeFirstOrThrow();
      expect({ ...job, attempts: Number(job.attempts) }).toEqual({ status: 'done', attempts: 1 });
    }
    expect(fake.violations).toEqual([]);
  }, 60_000);

  it('is handed back unsent when its worker stops meanwhile, and the next worker sends it once', async () => {
    const first = await startWorker();
    fake.inject({ status: 429, count: 1, retryAfterSeconds: 20, path: CUSTOMERS, method: 'POST' });
    const from = fake.requests.length;
    const key = await pushCustomer('Stopped Customer');
    await until('the write to meet the 429', async () => (creations(from).length > 0 ? true : undefined), 30_000);
    // Stopping waits out the grace period, then the job stops waiting on Stripe (its heartbeat says so).
    await first.server.close();
    workers = workers.filter((w) => w !== first);
    expect(creations(from)).toEqual([429]);
    expect((await operation(key)).status).toBe('Pending');

    await startWorker();
    const op = await waitForPush(api, client, linked.companyId, key, 30_000);
    expect(op.status, JSON.stringify(op)).toBe('Success');
    expect(creations(from)).toEqual([429, 200]);
    expect(shop.all('customers').filter((c) => c.name === 'Stopped Customer')).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  }, 60_000);
});
