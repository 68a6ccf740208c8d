import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { PUSH_JOB } from '../../src/push/push-job.js';
import {
  pushOperation,
  pushStripeCustomer,
  linkedToStripe,
  settleNotingHolders,
  STRIPE_CUSTOMERS,
  stripeCreations,
} from '../helpers/stripe-writes.js';
import { startStripeFake, type StripeFake } from '../fakes/stripe/stripe-fake.js';
import type { StripeAccount } from '../fakes/stripe/stripe-account.js';
import { until } from '../helpers/processes.js';
import { waitForPush, type LinkedCompany } from '../helpers/sandbox.js';
import { startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';

/**
 * A write a live platform keeps waiting: Stripe answers it 429 with a `Retry-After` of several job leases. The job
 * heartbeats while the platform request waits, so no other worker takes it over and the write reaches Stripe once,
 * after the wait; a worker that stops meanwhile hands the write back at once, unsent, and the next worker sends it
 * once. Worker engines of their own on the API's store (the API runs no jobs), on SQLite, where the lease is the
 * job's, or on Postgres, where it is the worker process's (src/jobs/README.md, "Heartbeats").
 */

const LEASE_MS = 1000;
const GRACE_MS = 200;

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

const pushCustomer = (name: string) => pushStripeCustomer(api, client, linked, name);
const creations = (from: number) => stripeCreations(fake, from);
const operation = (key: string) => pushOperation(api, client, linked.companyId, key);

beforeAll(async () => {
  fake = await startStripeFake();
  shop = fake.addAccount('Patient Goods');
  savedApiUrl = process.env.STRIPE_API_URL;
  process.env.STRIPE_API_URL = fake.apiEnv().STRIPE_API_URL;
  api = await startTestServer({ jobs: { enabled: false }, push: { sandboxDelayMs: 100 } });
  client = await api.newClient();
  linked = await linkedToStripe(api, client, fake, shop);
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
    fake.inject({ status: 429, count: 1, retryAfterSeconds: 4, path: STRIPE_CUSTOMERS, method: 'POST' });
    const from = fake.requests.length;
    const key = await pushCustomer('Patient Customer');
    const { op, runs } = await settleNotingHolders(api.store, () => operation(key), 30_000);
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
    fake.inject({ status: 429, count: 1, retryAfterSeconds: 20, path: STRIPE_CUSTOMERS, method: 'POST' });
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
