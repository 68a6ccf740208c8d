import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App, type AppOptions } from '../../src/app.js';
import { createClientsService } from '../../src/access/clients.service.js';
import { abandonJob, queuedJobs } from '../helpers/job-rows.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';
import { basicAuth, http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { createConsumer, expectEnvelope, startReceiver, verifySigned, type Receiver, type Responder } from './receiver.js';

const receivers: Receiver[] = [];
const servers: TestServer[] = [];

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function receiver(respond?: Responder): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

async function server(webhooks: AppOptions['webhooks']): Promise<TestServer> {
  const s = await startTestServer({ webhooks });
  servers.push(s);
  return s;
}

type Db = TestServer['store']['db'];

async function deliveriesOf(db: Db, consumerId: string) {
  return db.selectFrom('webhook_deliveries').selectAll().where('consumer_id', '=', consumerId).orderBy('created').execute();
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false | ''>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function newCompany(s: { url: string }, client: TestClient, name = 'Webhook test'): Promise<string> {
  const res = await http(s, 'POST', '/companies', { auth: client.auth, body: { name } });
  expect(res.status, res.text).toBe(200);
  return res.body.id;
}

describe('retries', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await server({ retryScheduleMs: [0, 200, 200], timeoutMs: 400 });
  });

  it('retries a 500 with the same webhook-id and signature scheme until a 2xx', async () => {
    const client = await s.newClient();
    const r = await receiver((i) => (i === 0 ? 500 : 204));
    const consumer = await createConsumer(s, client, { url: r.url, eventTypes: ['company.created'] });
    const companyId = await newCompany(s, client);

    const [first, second] = await r.waitFor(2);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(expectEnvelope(verifySigned(consumer.secret, first), 'company.created').id).toBe(companyId);
    verifySigned(consumer.secret, second);

    const [delivery] = await until('delivered', async () => {
      const rows = await deliveriesOf(s.store.db, consumer.id);
      return rows[0]?.status === 'delivered' && rows;
    });
    expect(delivery).toMatchObject({ id: first.headers['webhook-id'], last_response_status: 204, last_error: null });
    expect(Number(delivery.attempts)).toBe(2);
    const row = await s.store.db
      .selectFrom('webhook_consumers')
      .select(['failing_since', 'disabled'])
      .where('id', '=', consumer.id)
      .executeTakeFirstOrThrow();
    expect(row.failing_since).toBeNull();
    expect(Number(row.disabled)).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(r.received).toHaveLength(2);
  });

  it('gives up after the last retry of the schedule, waiting each delay; redirects are not followed', async () => {
    const client = await s.newClient();
    const r = await receiver(() => 302);
    const consumer = await createConsumer(s, client, { url: r.url, eventTypes: ['company.created'] });
    await newCompany(s, client);

    const attempts = await r.waitFor(4);
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    for (const a of attempts) verifySigned(consumer.secret, a);
    // Schedule [0, 200, 200]: the third and fourth attempts come at least 200 ms after the one before.
    expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(180);
    expect(attempts[3].at - attempts[2].at).toBeGreaterThanOrEqual(180);

    const [delivery] = await until('failed', async () => {
      const rows = await deliveriesOf(s.store.db, consumer.id);
      return rows[0]?.status === 'failed' && rows;
    });
    expect(delivery).toMatchObject({ last_response_status: 302, last_error: 'the receiver answered 302', next_attempt: null });
    expect(Number(delivery.attempts)).toBe(4);
    const row = await s.store.db
      .selectFrom('webhook_consumers')
      .select('failing_since')
      .where('id', '=', consumer.id)
      .executeTakeFirstOrThrow();
    expect(row.failing_since).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(r.received).toHaveLength(4);
  });

  it('counts a receiver that does not answer within the timeout as a failed attempt', async () => {
    const client = await s.newClient();
    const r = await receiver(() => 'hang');
    const consumer = await createConsumer(s, client, { url: r.url, eventTypes: ['company.created'] });
    await newCompany(s, client);

    const [delivery] = await until('the delivery to be given up', async () => {
      const rows = await deliveriesOf(s.store.db, consumer.id);
      return rows[0]?.status === 'failed' && rows;
    });
    expect(delivery).toMatchObject({ last_error: 'no answer within 400 ms', last_response_status: null });
    expect(Number(delivery.attempts)).toBe(4);
    const attempts = r.received;
    expect(attempts).toHaveLength(4);
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    // Each attempt waited out the timeout before the next one started.
    for (let i = 1; i < attempts.length; i++) expect(attempts[i].at - attempts[i - 1].at).toBeGreaterThanOrEqual(380);
  });

  it('drops the deliveries of a deleted consumer', async () => {
    const client = await s.newClient();
    const r = await receiver(() => 500);
    const consumer = await createConsumer(s, client, { url: r.url, eventTypes: ['company.created'] });
    await newCompany(s, client);
    await r.waitFor(1);
    expect((await http(s, 'DELETE', `/webhooks/${consumer.id}`, { auth: client.auth })).status).toBe(204);
    expect(await deliveriesOf(s.store.db, consumer.id)).toEqual([]);
    const count = r.received.length;
    await new Promise((resolve) => setTimeout(resolve, 700));
    // At most an attempt already in flight when the consumer was deleted.
    expect(r.received.length).toBeLessThanOrEqual(count + 1);
  });
});

describe('a consumer failing for too long', () => {
  it('is disabled and its pending deliveries are dropped', async () => {
    const s = await server({ retryScheduleMs: [0, 150, 150, 150, 150, 150, 150, 150], disableAfterMs: 400 });
    const client = await s.newClient();
    const r = await receiver(() => 503);
    const consumer = await createConsumer(s, client, { url: r.url, eventTypes: ['company.created'] });
    await newCompany(s, client, 'First');
    await newCompany(s, client, 'Second');

    const disabled = await until('the consumer to be disabled', async () => {
      const listed = await http(s, 'GET', '/webhooks', { auth: client.auth });
      return listed.body.results[0].disabled === true && listed.body.results[0];
    });
    expect(disabled.id).toBe(consumer.id);
    const rows = await deliveriesOf(s.store.db, consumer.id);
    expect(rows.map((d) => d.status)).toEqual(['dropped', 'dropped']);
    for (const d of rows) expect(d.next_attempt).toBeNull();
    const failingSince = (
      await s.store.db.selectFrom('webhook_consumers').select('failing_since').where('id', '=', consumer.id).executeTakeFirstOrThrow()
    ).failing_since;
    const last = Math.max(...r.received.map((d) => d.at));
    expect(last - Date.parse(failingSince!)).toBeGreaterThanOrEqual(400);

    // Nothing more is sent, and new events are not recorded for it.
    const count = r.received.length;
    await newCompany(s, client, 'Third');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(r.received).toHaveLength(count);
    expect(await deliveriesOf(s.store.db, consumer.id)).toHaveLength(2);
  });
});

describe('outbound address guard', () => {
  it('refuses loopback addresses at delivery, for literal addresses and names alike, unless allowed', async () => {
    const s = await server({ allowPrivate: false, retryScheduleMs: [] });
    const client = await s.newClient();
    const r = await receiver();
    const port = new URL(r.url).port;
    // Consumers the API would refuse now (e.g. made while WEBHOOKS_ALLOW_PRIVATE was on, or a name whose DNS
    // answer later turned internal): the delivery itself must check every address it connects to.
    const ids: string[] = [];
    for (const url of [`http://127.0.0.1:${port}/hooks`, `http://localhost:${port}/hooks`]) {
      const id = randomUUID();
      ids.push(id);
      await s.store.db
        .insertInto('webhook_consumers')
        .values({
          id,
          client_id: client.clientId,
          url,
          disabled: 0,
          event_types: JSON.stringify(['company.created']),
          company_tags: null,
          secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}`,
          created: new Date().toISOString(),
          failing_since: null,
        })
        .execute();
    }
    await newCompany(s, client);
    for (const id of ids) {
      const [delivery] = await until('the attempt to fail', async () => {
        const rows = await deliveriesOf(s.store.db, id);
        return rows[0]?.status === 'failed' && rows;
      });
      expect(delivery.last_error).toMatch(/127\.0\.0\.1.*is not allowed|::1.*is not allowed/);
      expect(delivery.last_error).toMatch(/set WEBHOOKS_ALLOW_PRIVATE=true on the server to allow internal addresses$/);
      expect(delivery.last_response_status).toBeNull();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.received).toEqual([]);
  });
});

describe('durability', () => {
  let store: TestStore;
  let apps: App[] = [];
  beforeAll(async () => {
    store = await createTestStore();
  });
  afterAll(async () => {
    for (const app of apps) await app.server.close();
    await store?.destroy();
  });

  async function start(jobs: AppOptions['jobs']): Promise<{ app: App; url: string }> {
    const app = await buildApp({
      store: store.store,
      logLevel: 'silent',
      maintenancePollMs: 100,
      jobs: { pollMs: 50, leaseMs: 500, ...jobs },
      webhooks: { allowPrivate: true },
    });
    apps.push(app);
    return { app, url: await app.listen(0, '127.0.0.1') };
  }

  async function stop(app: App): Promise<void> {
    await app.server.close();
    apps = apps.filter((a) => a !== app);
  }

  it('delivers an event recorded by a process that stopped before sending it', async () => {
    const r = await receiver();
    const a = await start({ enabled: false });
    const { key } = await createClientsService({ db: store.store.db }).create({ name: 'Restart', plan: 'standard' });
    const client = { clientId: '', apiKey: key.apiKey, auth: basicAuth(key.apiKey) };
    const consumer = await createConsumer(a, client, { url: r.url, eventTypes: ['company.created'] });
    const companyId = await newCompany(a, client);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.received).toEqual([]);
    expect((await deliveriesOf(store.store.db, consumer.id)).map((d) => d.status)).toEqual(['pending']);
    await stop(a.app);

    const b = await start({});
    const [delivered] = await r.waitFor(1);
    expect(expectEnvelope(verifySigned(consumer.secret, delivered), 'company.created').id).toBe(companyId);
    await until('delivered', async () => (await deliveriesOf(store.store.db, consumer.id))[0]?.status === 'delivered');
    await stop(b.app);
  });

  it.each([
    { registered: true, died: 'in the middle of it' },
    { registered: false, died: 'before its worker had registered (Postgres)' },
  ])('tries again a delivery whose process died $died', async ({ registered }) => {
    const r = await receiver();
    const a = await start({ enabled: false });
    const { key } = await createClientsService({ db: store.store.db }).create({ name: 'Crash', plan: 'standard' });
    const client = { clientId: '', apiKey: key.apiKey, auth: basicAuth(key.apiKey) };
    const consumer = await createConsumer(a, client, { url: r.url, eventTypes: ['company.created'] });
    await newCompany(a, client);
    await stop(a.app);
    // What a process that claimed the job and died leaves behind: a job held by a worker that stopped answering.
    const [delivery] = await deliveriesOf(store.store.db, consumer.id);
    const [job] = (await queuedJobs(store.store, 'webhook-delivery')).filter(
      (j) => (j.payload as { deliveryId: string }).deliveryId === delivery.id,
    );
    expect(await abandonJob(store.store, job.id, { registered })).toBe(1);

    const b = await start({});
    const [delivered] = await r.waitFor(1);
    expect(delivered.headers['webhook-id']).toBe(delivery.id);
    verifySigned(consumer.secret, delivered);
    await until('delivered', async () => (await deliveriesOf(store.store.db, consumer.id))[0]?.status === 'delivered');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.received).toHaveLength(1);
    await stop(b.app);
  });
});
