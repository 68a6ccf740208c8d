import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { createClientsService } from '../../src/access/clients.service.js';
import { createClientsStore } from '../../src/clients/clients.store.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';
import { basicAuth, http } from '../helpers/test-server.js';

/**
 * Two servers on one store hold nothing of a client's limits in memory: the counters are in the store, or in
 * Redis with REDIS_URL, so a quota holds for both together. (test/scale/scale-out.test.ts does the same with
 * separate processes on Postgres.)
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let store: TestStore;
const apps: App[] = [];

beforeAll(async () => {
  store = await createTestStore();
});
afterAll(async () => {
  for (const app of apps) await app.server.close();
  await store.destroy();
});

async function pair(redisUrl?: string): Promise<{ url: string }[]> {
  const servers = [];
  for (let i = 0; i < 2; i++) {
    const app = await buildApp({ store: store.store, logLevel: 'silent', redisUrl, jobs: { enabled: false } });
    apps.push(app);
    servers.push({ url: await app.listen(0, '127.0.0.1') });
  }
  return servers;
}

async function expectSharedQuota(servers: { url: string }[], quota: number): Promise<string> {
  const { client, key } = await createClientsService({ db: store.store.db }).create({ name: 'Shared', plan: 'standard' });
  expect(await createClientsStore(store.store.db).setLimits(client.id, { dailyQuota: quota })).toBe(true);
  const auth = basicAuth(key.apiKey);
  const answers = await Promise.all(Array.from({ length: 2 * quota }, (_, i) => http(servers[i % 2], 'GET', '/profile', { auth })));
  expect(answers.filter((a) => a.status === 200)).toHaveLength(quota);
  expect(answers.filter((a) => a.status === 429)).toHaveLength(quota);
  const remaining = answers
    .filter((a) => a.status === 200)
    .map((a) => Number(a.headers.get('x-rate-limit-remaining')))
    .sort((a, b) => a - b);
  expect(remaining).toEqual(Array.from({ length: quota }, (_, i) => i));
  return client.id;
}

describe('a daily quota across two servers', () => {
  it('holds with the counters in the store', async () => {
    await expectSharedQuota(await pair(), 12);
  });

  it('holds with the counters in Redis (REDIS_URL)', async () => {
    const clientId = await expectSharedQuota(await pair(REDIS_URL), 12);
    // The count is Redis's, not the store's.
    const redis = new Redis(REDIS_URL);
    try {
      const day = new Date().toISOString().slice(0, 10);
      expect(await redis.get(`ledgerport:rate:${clientId}:day:${day}`)).toBe('24');
      expect(await redis.pttl(`ledgerport:rate:${clientId}:day:${day}`)).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
    expect(await store.store.db.selectFrom('rate_counters').selectAll().where('client_id', '=', clientId).execute()).toEqual([]);
  });

  it('answers 503 with the error body, not 500, while Redis is unreachable', async () => {
    const [server] = await pair('redis://127.0.0.1:1');
    const { client, key } = await createClientsService({ db: store.store.db }).create({ name: 'No Redis', plan: 'standard' });
    expect(await createClientsStore(store.store.db).setLimits(client.id, { dailyQuota: 5 })).toBe(true);
    const res = await http(server, 'GET', '/profile', { auth: basicAuth(key.apiKey) });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      statusCode: 503,
      error: 'ServiceUnavailable: The rate-limit store is not reachable; please retry later.',
    });
    expect(res.headers.get('retry-after')).toBe('5');
  });

  it('refuses a REDIS_URL that is not a redis:// URL, without echoing its password', async () => {
    const { loadConfig } = await import('../../src/config.js');
    expect(() => loadConfig({ REDIS_URL: 'http://user:secret@cache:6379' })).toThrow(/REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => loadConfig({ REDIS_URL: 'http://user:secret@cache:6379' })).not.toThrow(/secret/);
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379/2' }).redisUrl).toBe('redis://cache:6379/2');
  });
});
