import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsStore } from '../../src/clients/clients.store.js';
import { http, startTestServer, type TestServer } from '../helpers/test-server.js';
import { queuedJobs, runJobNow } from '../helpers/job-rows.js';
import { createConsumer, expectEnvelope, startReceiver, verifySigned, type Receiver } from './receiver.js';

const RESET_JOB = 'webhook-rate-limit-reset';

let server: TestServer;
let receiver: Receiver;
let tagged: Receiver;

beforeAll(async () => {
  server = await startTestServer();
  [receiver, tagged] = await Promise.all([startReceiver(), startReceiver()]);
});
afterAll(async () => {
  await Promise.all([receiver?.close(), tagged?.close()]);
  await server?.close();
});

describe('client.rateLimit.reached and client.rateLimit.reset', () => {
  it('fires reached once when the daily quota is first exceeded, and reset when the window ends', async () => {
    const client = await server.newClient();
    const consumer = await createConsumer(server, client, {
      url: receiver.url,
      eventTypes: ['client.rateLimit.reached', 'client.rateLimit.reset'],
    });
    // Client-level events have no company: a consumer filtering on company tags never gets them.
    await createConsumer(server, client, {
      url: tagged.url,
      eventTypes: ['client.rateLimit.reached', 'client.rateLimit.reset'],
      companyTags: ['region:uk'],
    });
    // A tiny quota, set the way the operator CLI sets it.
    expect(await createClientsStore(server.store.db).setLimits(client.clientId, { dailyQuota: 2 })).toBe(true);

    // Concurrent requests: exactly one of them takes the counter from 2 to 3.
    const responses = await Promise.all(Array.from({ length: 8 }, () => http(server, 'GET', '/profile', { auth: client.auth })));
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 429, 429, 429, 429, 429, 429]);
    const resetAt = responses[0].headers.get('x-rate-limit-reset')!;
    expect(responses.every((r) => r.headers.get('x-rate-limit-reset') === resetAt)).toBe(true);
    expect((await http(server, 'GET', '/profile', { auth: client.auth })).status).toBe(429);

    const [reached] = await receiver.waitFor(1);
    const payload = expectEnvelope(verifySigned(consumer.secret, reached), 'client.rateLimit.reached');
    expect(payload).toEqual({ dailyQuota: 2, quotaRemaining: 0, expiryDate: new Date(resetAt).toISOString() });

    // The reset is a durable job due at the end of the window (next 00:00 UTC).
    const jobs = await queuedJobs(server.store, RESET_JOB);
    expect(jobs).toHaveLength(1);
    expect(jobs[0].runAt.toISOString()).toBe(new Date(resetAt).toISOString());
    expect(jobs[0].payload).toEqual({ clientId: client.clientId, reset: new Date(resetAt).toISOString() });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(1);

    // Bring the window's end forward instead of waiting for midnight: the runner picks the job up as it would then.
    await runJobNow(server.store, jobs[0].id);
    const [, reset] = await receiver.waitFor(2);
    const resetPayload = expectEnvelope(verifySigned(consumer.secret, reset), 'client.rateLimit.reset');
    expect(resetPayload).toEqual({
      dailyQuota: 2,
      quotaRemaining: 2,
      expiryDate: new Date(Date.parse(resetAt) + 86_400_000).toISOString(),
    });
    expect(reset.headers['webhook-id']).not.toBe(reached.headers['webhook-id']);

    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(2);
    expect(tagged.received).toEqual([]);
  });

  it('does not fire for a client without a quota', async () => {
    const client = await server.newClient();
    const r = await startReceiver();
    try {
      await createConsumer(server, client, { url: r.url, eventTypes: ['client.rateLimit.reached'] });
      for (let i = 0; i < 5; i++) expect((await http(server, 'GET', '/profile', { auth: client.auth })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(r.received).toEqual([]);
    } finally {
      await r.close();
    }
  });
});
