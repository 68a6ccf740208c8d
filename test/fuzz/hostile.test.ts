import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { prepareFixture, type Fixture } from './fixture.js';
import { operationsOf, runHostileRequests, type Operation } from './hostile-requests.js';

/**
 * Generated hostile requests against every operation of the server's own `/openapi.json`: no 5xx, every 4xx in the
 * error body, no hang, no invalid paging value answered 2xx, the server healthy throughout, and the fixture company
 * (which no generated request may change: other methods get the ids of a throwaway company, random ids or hostile
 * text) reading the same afterwards.
 *
 * FUZZ_SEED replays a run (the seed is printed); FUZZ_REQUESTS sets its size. `npm run fuzz` runs the long version
 * against a server process and measures its memory.
 */

const SEED = Number(process.env.FUZZ_SEED || 20261124);
const REQUESTS = Number(process.env.FUZZ_REQUESTS || 5000);
const CONCURRENCY = 16;

let server: TestServer;
let client: TestClient;
let fixture: Fixture;
let throwaway: Fixture;
let operations: Operation[];

beforeAll(async () => {
  // With the emulator on: its controls are operations of /openapi.json too.
  server = await startTestServer({ emulator: true });
  client = await server.newClient({ name: 'Fuzz client' });
  fixture = await prepareFixture(server.url, client.auth);
  throwaway = await prepareFixture(server.url, client.auth, 'Fuzz throwaway');
  operations = operationsOf((await http(server, 'GET', '/openapi.json')).body);
}, 180_000);
afterAll(() => server.close());

describe('hostile requests', () => {
  it(`${REQUESTS} generated requests, ${CONCURRENCY} at a time: no 5xx, every refusal in the error body, no hang, the fixture unchanged`, async () => {
    console.log(
      `fuzz: seed ${SEED}, ${REQUESTS} requests over ${operations.length} operations (replay with FUZZ_SEED=${SEED} FUZZ_REQUESTS=${REQUESTS})`,
    );
    expect(operations.length).toBeGreaterThan(100);
    const before = await fixture.snapshot();
    let batches = 0;
    const stats = await runHostileRequests(
      {
        url: server.url,
        auth: client.auth,
        fixtureValues: fixture.values,
        throwawayValues: throwaway.values,
        clientWideAuth: (await server.newClient({ name: 'Fuzz reset client' })).auth,
      },
      operations,
      {
        count: REQUESTS,
        concurrency: CONCURRENCY,
        seed: SEED,
        onBatch: async () => {
          if (++batches % 25 === 0) expect((await http(server, 'GET', '/healthz')).status).toBe(200);
        },
      },
    );
    console.log(`fuzz: ${stats.requests} requests; answers by status ${JSON.stringify(stats.byStatus)}`);
    expect(stats.problems).toEqual([]);
    expect(stats.requests).toBeGreaterThanOrEqual(REQUESTS);
    expect((await http(server, 'GET', '/healthz')).status).toBe(200);
    expect((await http(server, 'GET', '/readyz')).status).toBe(200);
    expect(await fixture.snapshot()).toBe(before);
  }, 600_000);
});
