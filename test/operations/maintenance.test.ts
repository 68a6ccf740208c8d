import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, http, startTestServer, type HttpResult, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { assertCliBuilt, CLI_TEST_TIMEOUT, runLedgerport } from '../helpers/cli.js';

/** The documented promise: a change made with the CLI reaches running servers within 2 s. */
const DEADLINE_MS = 2_000;
const POLL_MS = 100;

let server: TestServer;
let client: TestClient;
let companyId: string;

beforeAll(async () => {
  assertCliBuilt();
  // The production default poll interval, so the 2-second deadline is tested with realistic timing.
  server = await startTestServer({ maintenancePollMs: 500 });
  client = await server.newClient();
  companyId = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Before maintenance' } })).body.id;
});
afterAll(() => server.close());

const ledgerport = (...args: string[]) => runLedgerport(server.databaseUrl, ...args);

async function maintenance(state: 'on' | 'off'): Promise<void> {
  const res = await ledgerport('maintenance', state);
  expect(res.code, res.stderr).toBe(0);
  expect(JSON.parse(res.stdout.trim())).toEqual({ maintenance: state });
}

/** Polls every ~100 ms until `probe` answers `status`; fails if that takes longer than the deadline. */
async function expectStatusWithinDeadline(probe: () => Promise<HttpResult>, status: number): Promise<void> {
  const start = Date.now();
  let last: HttpResult;
  for (;;) {
    last = await probe();
    if (last.status === status) return;
    if (Date.now() - start >= DEADLINE_MS) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  expect.fail(`still ${last.status} instead of ${status} ${Date.now() - start} ms after the CLI returned: ${last.text}`);
}

function expectMaintenanceAnswer(res: HttpResult, what: string): void {
  expect(res.status, `${what}: ${res.text}`).toBe(503);
  expectErrorBody(res, 503, { error: /maintenance/i });
  const retryAfter = res.headers.get('retry-after');
  expect(retryAfter, what).toMatch(/^\d+$/);
  expect(Number(retryAfter), what).toBeGreaterThan(0);
}

describe('maintenance mode', () => {
  it(
    'answers 503 with Retry-After everywhere but the health checks, then recovers when turned off',
    async () => {
      const authed = () => http(server, 'GET', '/companies', { auth: client.auth });
      expect((await authed()).status).toBe(200);

      await maintenance('on');
      await expectStatusWithinDeadline(authed, 503);

      const keyId = (
        await server.store.db.selectFrom('api_keys').select('id').where('client_id', '=', client.clientId).executeTakeFirstOrThrow()
      ).id;
      const requests: Array<[string, string, { auth?: string; body?: unknown }]> = [
        ['GET', '/companies', { auth: client.auth }],
        ['POST', '/companies', { auth: client.auth, body: { name: 'During maintenance' } }],
        ['GET', `/companies/${companyId}`, { auth: client.auth }],
        ['PATCH', `/companies/${companyId}`, { auth: client.auth, body: { name: 'Renamed' } }],
        ['DELETE', `/companies/${companyId}`, { auth: client.auth }],
        ['GET', '/profile', { auth: client.auth }],
        ['GET', '/apiKeys', { auth: client.auth }],
        ['POST', '/apiKeys', { auth: client.auth, body: { name: 'During maintenance' } }],
        ['DELETE', `/apiKeys/${keyId}`, { auth: client.auth }],
        ['GET', '/integrations', { auth: client.auth }],
        // No key, a wrong key, unknown paths and a wrong method all get the maintenance answer too.
        ['GET', '/companies', {}],
        ['GET', '/companies', { auth: basicAuth('not-a-real-key') }],
        ['GET', '/no/such/path', {}],
        ['GET', '/no/such/path', { auth: client.auth }],
        ['DELETE', '/companies', { auth: client.auth }],
        ['GET', '/docs', {}],
        ['GET', '/openapi.json', {}],
      ];
      for (const [method, path, options] of requests) {
        expectMaintenanceAnswer(await http(server, method, path, options), `${method} ${path}${options.auth ? '' : ' (no key)'}`);
      }

      for (const path of ['/healthz', '/readyz']) {
        const res = await http(server, 'GET', path);
        expect(res.status, `${path}: ${res.text}`).toBe(200);
        expect(res.headers.get('retry-after')).toBeNull();
      }

      // Nothing changed while the service was offline.
      const companies = await server.store.db
        .selectFrom('companies')
        .select(['id', 'name'])
        .where('client_id', '=', client.clientId)
        .execute();
      expect(companies).toEqual([{ id: companyId, name: 'Before maintenance' }]);
      const keys = await server.store.db.selectFrom('api_keys').select('id').where('client_id', '=', client.clientId).execute();
      expect(keys).toEqual([{ id: keyId }]);

      await maintenance('off');
      await expectStatusWithinDeadline(authed, 200);

      expect((await http(server, 'GET', `/companies/${companyId}`, { auth: client.auth })).status).toBe(200);
      expect((await http(server, 'GET', '/profile', { auth: client.auth })).status).toBe(200);
      expectErrorBody(await http(server, 'GET', '/companies'), 401);
      expectErrorBody(await http(server, 'GET', '/no/such/path', { auth: client.auth }), 404);
      expectErrorBody(await http(server, 'DELETE', '/companies', { auth: client.auth }), 405);
      const healthy = await http(server, 'GET', '/healthz');
      expect(healthy.status).toBe(200);
      expect((await http(server, 'GET', '/docs')).status).toBe(200);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'is idempotent: turning it off when already off changes nothing',
    async () => {
      await maintenance('off');
      await maintenance('off');
      // Wait past one poll interval, then check the service still answers normally.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await http(server, 'GET', '/companies', { auth: client.auth })).status).toBe(200);
    },
    CLI_TEST_TIMEOUT,
  );
});
