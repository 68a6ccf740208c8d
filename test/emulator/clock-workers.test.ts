import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { createClientsService } from '../../src/access/clients.service.js';
import { assertCliBuilt } from '../helpers/cli.js';
import { answering, startService, type ServiceProcess } from '../helpers/processes.js';
import { waitForSyncs } from '../helpers/sandbox.js';
import { createTestStore, POSTGRES_URL, type TestStore } from '../helpers/test-store.js';
import { basicAuth, type TestClient } from '../helpers/test-server.js';
import { HOUR, advance, clientOnClock, invoicePulls, onlyInvoices, plus, sandboxCompany } from './emulator-helpers.js';

/**
 * An advance on Postgres with an API process and two worker processes (`npm start`'s binary, each with
 * `EMULATOR=true`): the advance is a job of one worker, the work of each moment runs in whichever worker takes it,
 * and the advance waits for it through the store. Two days of hourly syncs run exactly once each, in order.
 */

if (!POSTGRES_URL) console.log('skipping the test clock with two worker processes: TEST_DATABASE_URL is not set (it needs Postgres)');

let store: TestStore;
let api: ServiceProcess;
const workers: ServiceProcess[] = [];
let client: TestClient;

beforeAll(async () => {
  if (!POSTGRES_URL) return;
  assertCliBuilt();
  store = await createTestStore();
  const env = { EMULATOR: 'true', JOB_CONCURRENCY: '2', LOG_LEVEL: 'error' };
  api = await startService(store.databaseUrl, 'api', env);
  await answering(api);
  for (let i = 0; i < 2; i++) workers.push(await startService(store.databaseUrl, 'worker', env));
  const { client: row, key } = await createClientsService({ db: store.store.db }).create({ name: 'Two workers', plan: 'standard' });
  client = { clientId: row.id, apiKey: key.apiKey, auth: basicAuth(key.apiKey) };
}, 60_000);

afterAll(async () => {
  for (const service of [api, ...workers]) service?.child.kill('SIGKILL');
  await store?.destroy();
});

describe.skipIf(!POSTGRES_URL)('a test clock with two worker processes', () => {
  it('runs the syncs due at T+1h … T+48h once each, in time order', async () => {
    const T = '2027-03-01T00:00:00.000Z';
    const sdk = new CodatPlatform({ authHeader: client.auth, serverURL: api.url, retryConfig: { strategy: 'none' } });
    await onlyInvoices(sdk, client.clientId, 1);
    const clock = await clientOnClock(api, client, T);
    const { companyId } = await sandboxCompany(sdk, 'Shared work');
    await waitForSyncs(api, client, companyId);

    const ready = await advance(api, client, clock, { by: 'P2D' });
    expect(ready.frozenTime).toBe(plus(T, 48 * HOUR));
    const pulls = await invoicePulls(sdk, companyId);
    expect(pulls.map((op) => [op.requested, op.completed, op.status])).toEqual(
      Array.from({ length: 49 }, (_, h) => [plus(T, h * HOUR), plus(T, h * HOUR), 'Complete']),
    );
    expect((await sdk.companies.get({ companyId })).lastSync).toBe(plus(T, 48 * HOUR));
  }, 120_000);
});
