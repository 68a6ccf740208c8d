import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsService } from '../../src/access/clients.service.js';
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
import { assertCliBuilt } from '../helpers/cli.js';
import { runningJobs } from '../helpers/job-rows.js';
import { answering, exited, startService, until, type ServiceProcess } from '../helpers/processes.js';
import { waitForPush, type LinkedCompany } from '../helpers/sandbox.js';
import { createTestStore, POSTGRES_URL, type TestStore } from '../helpers/test-store.js';
import { basicAuth, type TestClient } from '../helpers/test-server.js';

/**
 * Two worker processes on one Postgres with a short `JOB_LEASE_MS`, and a write Stripe answers 429 with a
 * `Retry-After` of several leases: the worker that met the 429 keeps the job while it waits (the other never takes
 * it), and the write reaches Stripe once. SIGTERM to that worker while it waits: it stops waiting, hands the write
 * back unsent and exits within its grace period; the other worker sends it once.
 */

const LEASE_MS = 1500;
const GRACE_MS = 300;

if (!POSTGRES_URL) console.log('skipping the push lease test with two worker processes: TEST_DATABASE_URL is not set (it needs Postgres)');

let store: TestStore;
let fake: StripeFake;
let shop: StripeAccount;
let api: ServiceProcess;
const workers: ServiceProcess[] = [];
let client: TestClient;
let linked: LinkedCompany;

beforeAll(async () => {
  if (!POSTGRES_URL) return;
  assertCliBuilt();
  store = await createTestStore();
  fake = await startStripeFake();
  shop = fake.addAccount('Patient Goods');
  const env = {
    ...fake.apiEnv(),
    JOB_LEASE_MS: String(LEASE_MS),
    JOB_CONCURRENCY: '1',
    SHUTDOWN_GRACE_MS: String(GRACE_MS),
    SANDBOX_WRITE_DELAY_MS: '100',
  };
  api = await startService(store.databaseUrl, 'api', env);
  await answering(api);
  for (let i = 0; i < 2; i++) workers.push(await startService(store.databaseUrl, 'worker', env));
  const { client: row, key } = await createClientsService({ db: store.store.db }).create({ name: 'Patient', plan: 'standard' });
  client = { clientId: row.id, apiKey: key.apiKey, auth: basicAuth(key.apiKey) };
  linked = await linkedToStripe(api, client, fake, shop);
}, 120_000);

afterAll(async () => {
  for (const service of [api, ...workers]) service?.child.kill('SIGKILL');
  await fake?.close();
  await store?.destroy();
});

const pushCustomer = (name: string) => pushStripeCustomer(api, client, linked, name);
const creations = (from: number) => stripeCreations(fake, from);
const operation = (key: string) => pushOperation(api, client, linked.companyId, key);

const output = () => [api, ...workers].map((s) => s.output()).join('\n');

describe.skipIf(!POSTGRES_URL)('a write waiting out a Retry-After, with two worker processes', () => {
  it('keeps its job while it waits, and reaches Stripe once', async () => {
    fake.inject({ status: 429, count: 1, retryAfterSeconds: 5, path: STRIPE_CUSTOMERS, method: 'POST' });
    const from = fake.requests.length;
    const key = await pushCustomer('Patient Customer');
    const { op, runs } = await settleNotingHolders(store.store, () => operation(key), 60_000, output);
    expect(op.status, JSON.stringify(op)).toBe('Success');
    expect([...runs.values()]).toEqual([1]);
    expect(creations(from)).toEqual([429, 200]);
    expect(shop.all('customers').filter((c) => c.name === 'Patient Customer')).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  }, 90_000);

  it('is handed back unsent when its worker gets SIGTERM meanwhile; the other worker sends it once', async () => {
    // Longer than the grace period and the 10 s after it that a stopping process is given before it exits anyway.
    fake.inject({ status: 429, count: 1, retryAfterSeconds: 30, path: STRIPE_CUSTOMERS, method: 'POST' });
    const from = fake.requests.length;
    const key = await pushCustomer('Stopped Customer');
    await until('the write to meet the 429', async () => (creations(from).length > 0 ? true : undefined), 60_000, output);
    // The worker holding the job: its pool's row in job_workers names its host and process id.
    const [job] = await runningJobs(store.store, PUSH_JOB);
    const pool = await store.store.db.selectFrom('job_workers').select('host').where('pool_id', '=', job.holder).executeTakeFirstOrThrow();
    const holder = workers.find((w) => pool.host === `${os.hostname()}:${w.child.pid}`)!;
    expect(holder, pool.host).toBeDefined();

    holder.child.kill('SIGTERM');
    expect(await exited(holder.child), holder.output()).toBe(0);
    expect(creations(from)).toEqual([429]);
    expect((await operation(key)).status).toBe('Pending');

    const op = await waitForPush(api, client, linked.companyId, key, 60_000);
    expect(op.status, JSON.stringify(op)).toBe('Success');
    expect(creations(from)).toEqual([429, 200]);
    expect(shop.all('customers').filter((c) => c.name === 'Stopped Customer')).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  }, 90_000);
});
