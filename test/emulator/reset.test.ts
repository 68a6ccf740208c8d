import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { waitForPush, waitForSyncs } from '../helpers/sandbox.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { createClock, onlyInvoices, sandboxCompany } from './emulator-helpers.js';

/**
 * Issue 34, reset: `POST /emulator/reset` leaves the client as it was created (its keys, plan and profile kept), and
 * answers 409 while its work is in flight.
 */

let server: TestServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  server = await startTestServer({ emulator: true, push: { sandboxDelayMs: 1500 } });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await server?.close();
});

const sdkOf = (client: TestClient) =>
  new CodatPlatform({ authHeader: client.auth, serverURL: server.url, retryConfig: { strategy: 'none' } });
const get = async (client: TestClient, path: string) => {
  const res = await http(server, 'GET', path, { auth: client.auth });
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body;
};

describe('reset', () => {
  it("deletes the client's companies, consumers, settings, clocks, rules and journal; keeps its keys and profile, and other clients' data", async () => {
    const client = await server.newClient();
    const other = await server.newClient();
    const sdk = sdkOf(client);
    const fresh = await server.newClient();
    const defaults = await get(fresh, '/profile/syncSettings');

    const profile = await get(client, '/profile');
    await onlyInvoices(sdk, client.clientId, 24);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const consumer = await http(server, 'POST', '/webhooks', {
      auth: client.auth,
      body: { url: receiver.url, eventTypes: ['company.deleted'] },
    });
    expect(consumer.status).toBe(201);
    const { companyId, connectionId } = await sandboxCompany(sdk, 'Before the reset');
    await waitForSyncs(server, client, companyId);
    const pushed = await http(server, 'POST', `/companies/${companyId}/connections/${connectionId}/push/customers`, {
      auth: client.auth,
      body: { customerName: 'Reset Ltd', status: 'Active' },
    });
    expect(pushed.status, pushed.text).toBe(200);
    await waitForPush(server, client, companyId, pushed.body.pushOperationKey);
    await waitForSyncs(server, client, companyId);
    const clock = await createClock(server, client, '2027-01-01T00:00:00.000Z');
    await http(server, 'PUT', `/emulator/companies/${companyId}/clock`, { auth: client.auth, body: { clockId: clock } });
    const rule = await http(server, 'POST', '/emulator/faults', {
      auth: client.auth,
      body: { match: { method: 'GET', path: '/profile' }, action: { type: 'latency', delayMs: 1 } },
    });
    expect(rule.status).toBe(201);
    const theirs = await sdkOf(other).companies.create({ name: 'Not reset' });

    const reset = await http(server, 'POST', '/emulator/reset', { auth: client.auth });
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body).toEqual({ companies: 1, webhookConsumers: 1, clocks: 1, faultRules: 1 });

    expect((await sdk.companies.list({})).totalResults).toBe(0);
    expectErrorBody(await http(server, 'GET', `/companies/${companyId}`, { auth: client.auth }), 404);
    expect((await get(client, '/webhooks')).results).toEqual([]);
    expect((await get(client, '/emulator/clocks')).results).toEqual([]);
    expect((await get(client, '/emulator/faults')).results).toEqual([]);
    expect(await get(client, '/profile/syncSettings')).toEqual({ ...defaults, clientId: client.clientId });
    expect(await get(client, '/profile')).toEqual(profile);
    // The journal starts again: only what came after the reset.
    const journal = await get(client, '/emulator/requests?pageSize=100');
    expect(journal.results.map((e: { operationId: string }) => e.operationId)).not.toContain('create-company');
    // No company.deleted: the consumers went first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toEqual([]);
    // The other client is untouched; this one starts again.
    expect((await sdkOf(other).companies.get({ companyId: theirs.id })).name).toBe('Not reset');
    const again = await sdk.companies.create({ name: 'After the reset' });
    expect((await sdk.companies.list({})).results?.map((c) => c.id)).toEqual([again.id]);
  });

  it('answers 409 while a write is pending, and resets once it has settled', async () => {
    const client = await server.newClient();
    const sdk = sdkOf(client);
    await onlyInvoices(sdk, client.clientId, 24);
    const { companyId, connectionId } = await sandboxCompany(sdk, 'Busy');
    await waitForSyncs(server, client, companyId);
    const pushed = await http(server, 'POST', `/companies/${companyId}/connections/${connectionId}/push/customers`, {
      auth: client.auth,
      body: { customerName: 'Pending Ltd', status: 'Active' },
    });
    expect(pushed.status, pushed.text).toBe(200);
    const busy = await http(server, 'POST', '/emulator/reset', { auth: client.auth });
    expectErrorBody(busy, 409);
    expect(busy.body.error).toContain('1 write pending');
    expect((await sdk.companies.list({})).totalResults).toBe(1);

    await waitForPush(server, client, companyId, pushed.body.pushOperationKey);
    // The write queued a sync of its data type: a sync reading is work in flight too.
    await waitForSyncs(server, client, companyId);
    const reset = await http(server, 'POST', '/emulator/reset', { auth: client.auth });
    expect(reset.status, reset.text).toBe(200);
    expect((await sdk.companies.list({})).totalResults).toBe(0);
  });
});
