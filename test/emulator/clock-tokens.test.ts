import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { setEnv } from '../helpers/env.js';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { waitForSyncs } from '../helpers/sandbox.js';
import { startXeroFake, type XeroFake } from '../fakes/xero/xero-fake.js';
import { HOUR, advance, createClock, invoicePulls, onlyInvoices, plus } from './emulator-helpers.js';

/**
 * OAuth tokens on a test clock (issue 32): a token's expiry is stamped and compared in the company's clock, from the
 * consent's callback on, so an advance refreshes it when the clock (not the machine) says it has expired. The
 * platform is the Xero fake, its tokens living two hours; the clock starts long before the machine's time, so an
 * expiry stamped or compared in real time would never (or always) be due.
 */

let fake: XeroFake;
let server: TestServer;
let client: TestClient;
let restoreEnv: () => void;

beforeAll(async () => {
  fake = await startXeroFake();
  fake.addTenant('Clockwork Trading').seedInvoices(12, 'ACCREC');
  fake.tokenTtlSeconds = 2 * 3600;
  restoreEnv = setEnv(fake.env());
  server = await startTestServer({ emulator: true });
  client = await server.newClient();
}, 60_000);

afterAll(async () => {
  await server?.close();
  await fake?.close();
  restoreEnv?.();
});

const refreshes = () => fake.grants.filter((g) => g.type === 'refresh_token' && g.status === 200).length;

describe('OAuth tokens on a clock', () => {
  it('expire in the clock’s time: a two-hour token is refreshed by the sync at T+2h, then by the one at T+4h', async () => {
    const T = '2025-03-01T08:00:00.000Z';
    const sdk = new CodatPlatform({ authHeader: client.auth, serverURL: server.url, retryConfig: { strategy: 'none' } });
    await onlyInvoices(sdk, client.clientId, 1);
    const clock = await createClock(server, client, T);
    const made = await http(server, 'POST', '/companies', {
      auth: client.auth,
      body: { name: 'Clockwork Trading' },
      headers: { 'emulator-clock': clock },
    });
    expect(made.status, made.text).toBe(200);
    const companyId = made.body.id as string;
    const connection = await sdk.connections.create({ companyId, requestBody: { platformKey: 'gbol' } });

    // Consent at T: the callback stamps the token's expiry on the clock, T+2h.
    const end = await fetch(connection.linkUrl, { redirect: 'follow' });
    expect(end.status).toBe(200);
    expect(await end.text()).toContain('Xero is now connected');
    await waitForSyncs(server, client, companyId);
    expect(fake.grants.filter((g) => g.type === 'authorization_code')).toHaveLength(1);
    expect(refreshes()).toBe(0);

    // T+1h: an hour is left, more than the five minutes a token is refreshed ahead of its expiry.
    await advance(server, client, clock, { by: 'PT1H' });
    expect(refreshes()).toBe(0);
    // T+2h: expired on the clock; the sync refreshes it first, and the new one expires at T+4h.
    await advance(server, client, clock, { by: 'PT1H' });
    expect(refreshes()).toBe(1);
    await advance(server, client, clock, { by: 'PT1H' });
    expect(refreshes()).toBe(1);
    await advance(server, client, clock, { by: 'PT1H' });
    expect(refreshes()).toBe(2);

    // Every sync due on the clock ran, each with a token Xero took.
    const pulls = await invoicePulls(sdk, companyId);
    expect(pulls.map((p) => [p.requested, p.status])).toEqual([0, 1, 2, 3, 4].map((h) => [plus(T, h * HOUR), 'Complete']));
    expect(fake.violations).toEqual([]);
  }, 120_000);
});
