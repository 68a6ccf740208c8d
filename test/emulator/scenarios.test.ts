import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { waitForSyncs } from '../helpers/sandbox.js';
import { startReceiver, verifySigned, type Receiver } from '../webhooks/receiver.js';
import { advance, createClock, onlyInvoices, onlyTypes, plus } from './emulator-helpers.js';
import { RATE_LIMIT_RETRY_MS, SCENARIOS, SLOW_SYNC_MS } from '../../src/emulator/scenarios.js';

/**
 * Issue 33, scenarios on the Sandbox's authorization: `PUT …/authorization` (through the official SDK) and the Link
 * form take `scenario`, and the connection then behaves as docs/emulator.md says; without the emulator, a 400.
 */

let server: TestServer;
let plain: TestServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  server = await startTestServer({ emulator: true });
  plain = await startTestServer();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await Promise.all([server?.close(), plain?.close()]);
});

const sdkOf = (s: TestServer, client: TestClient) =>
  new CodatPlatform({ authHeader: client.auth, serverURL: s.url, retryConfig: { strategy: 'none' } });

/** A company with a pending accounting Sandbox connection. */
async function pendingSandbox(sdk: CodatPlatform, name: string) {
  const company = await sdk.companies.create({ name });
  const connection = await sdk.connections.create({ companyId: company.id, requestBody: { platformKey: 'mqjo' } });
  return { companyId: company.id, connectionId: connection.id };
}

async function history(client: TestClient, companyId: string) {
  const res = await http(server, 'GET', `/companies/${companyId}/data/history?pageSize=100`, { auth: client.auth });
  expect(res.status, res.text).toBe(200);
  return res.body.results as { id: string; dataType: string; status: string; requested: string; completed?: string }[];
}

async function untilConnection(client: TestClient, companyId: string, connectionId: string, status: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await http(server, 'GET', `/companies/${companyId}/connections/${connectionId}`, { auth: client.auth });
    if (res.body.status === status) return res.body;
    if (Date.now() > deadline) throw new Error(`connection still ${res.body.status}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('deauthorize-on-next-sync', () => {
  it('links, then its next sync turns the connection Deauthorized with connection.disconnected, its other syncs AuthError too; a new link without it syncs', async () => {
    const client = await server.newClient();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const consumer = await http(server, 'POST', '/webhooks', {
      auth: client.auth,
      body: { url: receiver.url, eventTypes: ['connection.disconnected'] },
    });
    const sdk = sdkOf(server, client);
    // Two data types, synced side by side (two jobs at once): neither reads.
    await onlyTypes(sdk, client.clientId, ['invoices', 'customers'], 24);
    const { companyId, connectionId } = await pendingSandbox(sdk, 'Revoking');
    const linked = await sdk.connections.updateAuthorization({
      companyId,
      connectionId,
      requestBody: { size: 'small', scenario: 'deauthorize-on-next-sync' },
    });
    expect(linked.status).toBe('Linked');
    await untilConnection(client, companyId, connectionId, 'Deauthorized');
    const [delivery] = await receiver.waitFor(1);
    const event = verifySigned(consumer.body.secret, delivery);
    expect(event).toMatchObject({
      eventType: 'connection.disconnected',
      payload: { connection: { id: connectionId, status: 'Deauthorized' } },
    });
    await waitForSyncs(server, client, companyId);
    expect((await history(client, companyId)).map((op) => op.status)).toEqual(['AuthError', 'AuthError']);
    // One deauthorization: one event.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(1);

    // Authorised again without the scenario: the connection syncs as usual.
    await sdk.connections.updateAuthorization({ companyId, connectionId, requestBody: { size: 'small' } });
    await waitForSyncs(server, client, companyId);
    expect((await history(client, companyId)).map((op) => op.status).sort()).toEqual(['AuthError', 'AuthError', 'Complete', 'Complete']);
    expect((await sdk.connections.get({ companyId, connectionId })).status).toBe('Linked');
  });
});

describe('rate-limited-first', () => {
  it('meets a 429 on each data type’s first sync, which completes once the platform’s Retry-After has passed', async () => {
    const client = await server.newClient();
    const sdk = sdkOf(server, client);
    await onlyInvoices(sdk, client.clientId, 24);
    const { companyId, connectionId } = await pendingSandbox(sdk, 'Throttled');
    await sdk.connections.updateAuthorization({ companyId, connectionId, requestBody: { scenario: 'rate-limited-first' } });
    await waitForSyncs(server, client, companyId);
    const [first] = await history(client, companyId);
    expect(first.status).toBe('Complete');
    // It went back to Queued on the 429 and read only after the Retry-After.
    expect(Date.parse(first.completed!) - Date.parse(first.requested)).toBeGreaterThanOrEqual(RATE_LIMIT_RETRY_MS);
    // The next sync of the data type meets no 429.
    const queued = await http(server, 'POST', `/companies/${companyId}/data/queue/invoices`, { auth: client.auth });
    expect(queued.status, queued.text).toBe(200);
    await waitForSyncs(server, client, companyId);
    const second = (await history(client, companyId)).find((op) => op.id === queued.body.id)!;
    expect(second.status).toBe('Complete');
    expect(Date.parse(second.completed!) - Date.parse(second.requested)).toBeLessThan(RATE_LIMIT_RETRY_MS);
  });
});

describe('never-completes', () => {
  it('leaves the connection PendingAuth with nothing synced, through the API and the Link form', async () => {
    const client = await server.newClient();
    const sdk = sdkOf(server, client);
    const { companyId, connectionId } = await pendingSandbox(sdk, 'Hesitant');
    const answered = await sdk.connections.updateAuthorization({ companyId, connectionId, requestBody: { scenario: 'never-completes' } });
    expect(answered.status).toBe('PendingAuth');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await sdk.connections.get({ companyId, connectionId })).status).toBe('PendingAuth');
    expect(await history(client, companyId)).toEqual([]);

    // The Link form offers the scenarios with the emulator on, and waits with this one.
    const start = `/link/companies/${companyId}/connections/${connectionId}/start`;
    const page = await fetch(`${server.url}${start}`);
    const html = await page.text();
    for (const scenario of SCENARIOS) expect(html).toContain(`<option value="${scenario}">`);
    const posted = await fetch(`${server.url}${start}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ action: 'connect', size: 'small', scenario: 'never-completes' }).toString(),
      redirect: 'manual',
    });
    expect(posted.status).toBe(202);
    expect(await posted.text()).toContain('Waiting for');
    expect((await sdk.connections.get({ companyId, connectionId })).status).toBe('PendingAuth');
  });
});

describe('slow', () => {
  it('makes each sync take at least 30 s of the company’s clock', async () => {
    const T = '2027-03-01T10:00:00.000Z';
    const client = await server.newClient();
    const sdk = sdkOf(server, client);
    await onlyInvoices(sdk, client.clientId, 24);
    const clock = await createClock(server, client, T);
    const { companyId, connectionId } = await pendingSandbox(sdk, 'Slow');
    const joined = await http(server, 'PUT', `/emulator/companies/${companyId}/clock`, { auth: client.auth, body: { clockId: clock } });
    expect(joined.status, joined.text).toBe(200);
    await sdk.connections.updateAuthorization({ companyId, connectionId, requestBody: { scenario: 'slow' } });

    await advance(server, client, clock, { to: plus(T, SLOW_SYNC_MS - 1) });
    expect((await history(client, companyId)).map((op) => op.status)).toEqual(['Queued']);
    await advance(server, client, clock, { to: plus(T, SLOW_SYNC_MS) });
    await waitForSyncs(server, client, companyId);
    const [op] = await history(client, companyId);
    expect(op).toMatchObject({ status: 'Complete', requested: T, completed: plus(T, SLOW_SYNC_MS) });
  });
});

describe('refusals', () => {
  it('a scenario without EMULATOR, an unknown one, and one on a platform that is not a Sandbox are 400s naming scenario', async () => {
    const plainClient = await plain.newClient();
    const plainSdk = sdkOf(plain, plainClient);
    const company = await plainSdk.companies.create({ name: 'No emulator' });
    const connection = await plainSdk.connections.create({ companyId: company.id, requestBody: { platformKey: 'mqjo' } });
    const off = await http(plain, 'PUT', `/companies/${company.id}/connections/${connection.id}/authorization`, {
      auth: plainClient.auth,
      body: { scenario: 'slow' },
    });
    expectErrorBody(off, 400, { validation: true });
    expect(off.body.validation.errors[0]).toMatchObject({ itemId: 'scenario', message: expect.stringContaining('EMULATOR=true') });
    expect((await plainSdk.connections.get({ companyId: company.id, connectionId: connection.id })).status).toBe('PendingAuth');
    // Nor does its Link form offer any.
    const page = await (await fetch(`${plain.url}/link/companies/${company.id}/connections/${connection.id}/start`)).text();
    expect(page).not.toContain('name="scenario"');

    const client = await server.newClient();
    const sdk = sdkOf(server, client);
    const { companyId, connectionId } = await pendingSandbox(sdk, 'Refusals');
    const unknown = await http(server, 'PUT', `/companies/${companyId}/connections/${connectionId}/authorization`, {
      auth: client.auth,
      body: { scenario: 'flood' },
    });
    expectErrorBody(unknown, 400, { validation: true });
    for (const scenario of SCENARIOS) expect(unknown.body.validation.errors[0].message).toContain(scenario);

    // Bank statement files: a platform, not a Sandbox.
    const files = await sdk.connections.create({ companyId, requestBody: { platformKey: 'fstm' } });
    const notSandbox = await http(server, 'PUT', `/companies/${companyId}/connections/${files.id}/authorization`, {
      auth: client.auth,
      body: { scenario: 'slow' },
    });
    expectErrorBody(notSandbox, 400, { validation: true });
    expect(notSandbox.body.validation.errors[0]).toMatchObject({
      itemId: 'scenario',
      message: expect.stringContaining('scenario applies to the Sandboxes only'),
    });
  });
});
