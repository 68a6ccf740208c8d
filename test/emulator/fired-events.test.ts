import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { Webhook } from 'standardwebhooks';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { waitForSyncs } from '../helpers/sandbox.js';
import { expectEnvelope, startReceiver, verifySigned, type Receiver } from '../webhooks/receiver.js';
import { EVENT_TYPES } from '../../src/webhooks/events.js';
import { sandboxCompany } from './emulator-helpers.js';

/**
 * Issue 33, fired events: `POST /emulator/events` records the event the service would send, with a payload made from
 * the company's current state, and delivers it the way every event is delivered (signed, retried).
 */

let server: TestServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  server = await startTestServer({ emulator: true, webhooks: { retryScheduleMs: [0, 150, 150] } });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await server?.close();
});

const sdkOf = (client: TestClient) =>
  new CodatPlatform({ authHeader: client.auth, serverURL: server.url, retryConfig: { strategy: 'none' } });

async function consumerOf(client: TestClient, eventTypes: readonly string[], respond?: Parameters<typeof startReceiver>[0]) {
  const receiver = await startReceiver(respond);
  receivers.push(receiver);
  const consumer = await http(server, 'POST', '/webhooks', { auth: client.auth, body: { url: receiver.url, eventTypes } });
  expect(consumer.status, consumer.text).toBe(201);
  return { receiver, secret: consumer.body.secret as string };
}

const fire = (client: TestClient, body: Record<string, unknown>) => http(server, 'POST', '/emulator/events', { auth: client.auth, body });

describe('a fired read.completed', () => {
  it("verifies with a Standard Webhooks library and reports the company's last sync of each data set, as the real one did", async () => {
    const client = await server.newClient();
    const { receiver, secret } = await consumerOf(client, ['read.completed']);
    const { companyId, connectionId } = await sandboxCompany(sdkOf(client), 'Fired');
    await waitForSyncs(server, client, companyId);
    const [real] = await receiver.waitFor(1);
    const realPayload = expectEnvelope(verifySigned(secret, real), 'read.completed');

    const fired = await fire(client, { type: 'read.completed', companyId });
    expect(fired.status, fired.text).toBe(202);
    expect(fired.body).toEqual({ id: expect.any(String), type: 'read.completed', companyId, deliveries: 1 });
    const delivery = (await receiver.waitFor(2))[1];
    const envelope = new Webhook(secret).verify(delivery.body, delivery.headers) as { id: string };
    expect(envelope.id).toBe(fired.body.id);
    const payload = expectEnvelope(verifySigned(secret, delivery), 'read.completed');
    expect(payload.referenceCompany).toEqual(realPayload.referenceCompany);
    const kinds = (p: { dataTypes: { connectionId: string; dataType: string; status: string }[] }) =>
      p.dataTypes.map((d) => `${d.connectionId}/${d.dataType}/${d.status}`).sort();
    expect(kinds(payload)).toEqual(kinds(realPayload));
    expect(delivery.headers['webhook-id']).not.toBe(real.headers['webhook-id']);

    // One data type of one connection: that data set's last sync alone.
    await fire(client, { type: 'read.completed', connectionId, dataType: 'invoices' });
    const one = expectEnvelope(verifySigned(secret, (await receiver.waitFor(3))[2]), 'read.completed');
    expect(one.dataTypes).toEqual([
      { connectionId, dataType: 'invoices', recordsModified: expect.any(Boolean), status: 'Complete', issues: [] },
    ]);
  });
});

describe('a fired write event', () => {
  it("reports the company's last write of the data type, whichever connection it went to", async () => {
    const client = await server.newClient();
    const { receiver, secret } = await consumerOf(client, ['customers.write.successful']);
    const sdk = sdkOf(client);
    // The company's first connection is its bank's; the write goes to its accounting Sandbox.
    const company = await sdk.companies.create({ name: 'Writes' });
    const bank = await sdk.connections.create({ companyId: company.id, requestBody: { platformKey: 'bsbx' } });
    const books = await sdk.connections.create({ companyId: company.id, requestBody: { platformKey: 'mqjo' } });
    for (const connection of [bank, books])
      await sdk.connections.updateAuthorization({ companyId: company.id, connectionId: connection.id, requestBody: { size: 'small' } });
    await waitForSyncs(server, client, company.id);
    const pushed = await http(server, 'POST', `/companies/${company.id}/connections/${books.id}/push/customers`, {
      auth: client.auth,
      body: { customerName: 'Fired Ltd', status: 'Active' },
    });
    expect(pushed.status, pushed.text).toBe(200);
    const [real] = await receiver.waitFor(1, 30_000);
    const realPayload = expectEnvelope(verifySigned(secret, real), 'customers.write.successful');
    expect(realPayload.id).toBe(pushed.body.pushOperationKey);

    expect((await fire(client, { type: 'customers.write.successful', companyId: company.id })).status).toBe(202);
    const fired = expectEnvelope(verifySigned(secret, (await receiver.waitFor(2))[1]), 'customers.write.successful');
    expect(fired).toEqual(realPayload);
  });
});

describe('every event type', () => {
  it('is fired through the real delivery path, retried after a failed attempt with the same webhook-id', async () => {
    const client = await server.newClient();
    // The first attempt of every delivery fails: each event arrives on its retry.
    const attempts = new Map<string, number>();
    const { receiver, secret } = await consumerOf(client, EVENT_TYPES, (_index, request) => {
      const id = request.headers['webhook-id'];
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      return attempts.get(id) === 1 ? 500 : 200;
    });
    const { companyId } = await sandboxCompany(sdkOf(client), 'Every');
    await waitForSyncs(server, client, companyId);
    // Let the company's own events (created, connected, read) arrive first.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const before = receiver.received.length;

    for (const type of EVENT_TYPES) {
      const fired = await fire(client, { type, companyId });
      expect(fired.status, `${type}: ${fired.text}`).toBe(202);
      expect(fired.body.deliveries, type).toBe(1);
    }
    const arrived = await receiver.waitFor(before + 2 * EVENT_TYPES.length, 60_000);
    const delivered = new Map<string, string>();
    for (const delivery of arrived.slice(before)) {
      const envelope = verifySigned(secret, delivery);
      delivered.set(envelope.eventType, delivery.headers['webhook-id']);
    }
    expect([...delivered.keys()].sort()).toEqual([...EVENT_TYPES].sort());
    for (const id of delivered.values()) expect(attempts.get(id), id).toBe(2);
  });
});

describe('the control', () => {
  it('refuses an unknown type with a 400 listing the known ones, and a company or connection that is not the client’s', async () => {
    const client = await server.newClient();
    const other = await server.newClient();
    const { companyId, connectionId } = await sandboxCompany(sdkOf(other), 'Theirs');

    const unknown = await fire(client, { type: 'invoice.paid' });
    expectErrorBody(unknown, 400, { validation: true });
    expect(unknown.body.validation.errors[0].itemId).toBe('type');
    for (const type of EVENT_TYPES) expect(unknown.body.validation.errors[0].message).toContain(type);

    const noCompany = await fire(client, { type: 'company.created' });
    expectErrorBody(noCompany, 400, { validation: true });
    expect(noCompany.body.validation.errors[0].itemId).toBe('companyId');

    expectErrorBody(await fire(client, { type: 'company.created', companyId }), 403);
    const theirConnection = await fire(client, { type: 'connection.connected', connectionId });
    expectErrorBody(theirConnection, 404);

    const mismatch = await fire(other, { type: 'invoices.write.successful', companyId, dataType: 'bills' });
    expectErrorBody(mismatch, 400, { validation: true });
    expect(mismatch.body.validation.errors[0].itemId).toBe('dataType');

    const extra = await fire(client, { type: 'company.created', secret: 'x' });
    expect(extra.status, extra.text).toBe(400);
  });
});
