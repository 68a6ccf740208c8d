import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { Webhook } from 'standardwebhooks';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { waitForPush, waitForSyncs } from '../helpers/sandbox.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { sandboxCompany } from './emulator-helpers.js';

/**
 * Issue 33, fault rules that act on the work a request causes, whatever the request: `deauthorize` and `syncError` on
 * the next matching sync, `pushOutcome` on the next matching write, and `lostAnswer` on a write whose answer never
 * reaches the client (its retry with the same Idempotency-Key answers the same operation, and one record is written).
 */

let server: TestServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  server = await startTestServer({ emulator: true, push: { sandboxDelayMs: 50 } });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await server?.close();
});

const platformSdk = (client: TestClient) =>
  new CodatPlatform({ authHeader: client.auth, serverURL: server.url, retryConfig: { strategy: 'none' } });

async function addFault(client: TestClient, rule: Record<string, unknown>) {
  const res = await http(server, 'POST', '/emulator/faults', { auth: client.auth, body: rule });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
}

/** Queues a sync of one data type and waits for it to end; returns its pull operation. */
async function syncOnce(client: TestClient, companyId: string, dataType: string) {
  const queued = await http(server, 'POST', `/companies/${companyId}/data/queue/${dataType}`, { auth: client.auth });
  expect(queued.status, queued.text).toBe(200);
  await waitForSyncs(server, client, companyId);
  const op = await http(server, 'GET', `/companies/${companyId}/data/history/${queued.body.id}`, { auth: client.auth });
  expect(op.status, op.text).toBe(200);
  return op.body as { status: string; errorMessage?: string };
}

describe('a deauthorize rule', () => {
  it('turns the connection Deauthorized at its next sync, with connection.disconnected', async () => {
    const client = await server.newClient();
    const sdk = platformSdk(client);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const consumer = await http(server, 'POST', '/webhooks', {
      auth: client.auth,
      body: { url: receiver.url, eventTypes: ['connection.disconnected'] },
    });
    expect(consumer.status, consumer.text).toBe(201);
    const { companyId, connectionId } = await sandboxCompany(sdk, 'Revoked');
    await waitForSyncs(server, client, companyId);
    await addFault(client, { match: { connectionId }, action: { type: 'deauthorize' }, times: 1 });

    const op = await syncOnce(client, companyId, 'invoices');
    expect(op.status).toBe('AuthError');
    expect((await sdk.connections.get({ companyId, connectionId })).status).toBe('Deauthorized');
    await receiver.waitFor(1);
    const event = new Webhook(consumer.body.secret).verify(receiver.received[0].body, receiver.received[0].headers) as Record<string, any>;
    expect(event).toMatchObject({ eventType: 'connection.disconnected' });
    expect(JSON.stringify(event)).toContain(connectionId);
  });
});

describe('a syncError rule', () => {
  it('fails the next matching sync so in dataStatus and pull history, then is spent', async () => {
    const client = await server.newClient();
    const sdk = platformSdk(client);
    const { companyId } = await sandboxCompany(sdk, 'Flaky');
    await waitForSyncs(server, client, companyId);
    await addFault(client, { match: { companyId, dataType: 'invoices' }, action: { type: 'syncError', status: 'FetchError' }, times: 1 });

    // Another data type is untouched.
    expect((await syncOnce(client, companyId, 'bills')).status).toBe('Complete');
    const failed = await syncOnce(client, companyId, 'invoices');
    expect(failed.status).toBe('FetchError');
    const status = await sdk.refreshData.get({ companyId });
    expect(status.invoices?.currentStatus).toBe('FetchError');
    expect((await syncOnce(client, companyId, 'invoices')).status).toBe('Complete');
    expect(await http(server, 'GET', `/companies/${companyId}/connections`, { auth: client.auth })).toMatchObject({ status: 200 });
  });
});

describe('a pushOutcome rule', () => {
  it('ends the next matching write Failed with the validation given, then TimedOut; nothing reaches the platform', async () => {
    const client = await server.newClient();
    const sdk = platformSdk(client);
    const { companyId, connectionId } = await sandboxCompany(sdk, 'Refusing');
    await waitForSyncs(server, client, companyId);
    await addFault(client, {
      match: { dataType: 'customers' },
      action: {
        type: 'pushOutcome',
        status: 'Failed',
        validation: { errors: [{ itemId: 'customerName', message: 'That name is taken' }] },
      },
      times: 1,
    });
    await addFault(client, { match: { dataType: 'customers' }, action: { type: 'pushOutcome', status: 'TimedOut' }, times: 1 });
    const push = async (name: string) => {
      const res = await http(server, 'POST', `/companies/${companyId}/connections/${connectionId}/push/customers`, {
        auth: client.auth,
        body: { customerName: name, status: 'Active' },
      });
      expect(res.status, res.text).toBe(200);
      return waitForPush(server, client, companyId, res.body.pushOperationKey);
    };
    expect(await push('First Ltd')).toMatchObject({
      status: 'Failed',
      validation: { errors: [{ itemId: 'customerName', message: 'That name is taken', validatorName: 'Emulator' }] },
    });
    expect(await push('Second Ltd')).toMatchObject({ status: 'TimedOut' });
    expect(await push('Third Ltd')).toMatchObject({ status: 'Success' });
    // A write that succeeded queued its follow-up sync already (in the transaction that settled it).
    await waitForSyncs(server, client, companyId);
    const names = await http(server, 'GET', `/companies/${companyId}/data/customers?pageSize=5000`, { auth: client.auth });
    const pushed = names.body.results.map((c: { customerName: string }) => c.customerName).filter((n: string) => n.endsWith(' Ltd'));
    expect(pushed.filter((n: string) => ['First Ltd', 'Second Ltd', 'Third Ltd'].includes(n))).toEqual(['Third Ltd']);
  });
});

describe('webhook rules', () => {
  async function consumerOf(client: TestClient, eventTypes: string[]) {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const consumer = await http(server, 'POST', '/webhooks', { auth: client.auth, body: { url: receiver.url, eventTypes } });
    expect(consumer.status, consumer.text).toBe(201);
    return { receiver, verifier: new Webhook(consumer.body.secret) };
  }
  const eventOf = (verifier: Webhook, delivery: { body: string; headers: Record<string, string> }) =>
    verifier.verify(delivery.body, delivery.headers) as { eventType: string; payload: { id: string } };

  it('duplicate: the delivery arrives twice with the same webhook-id, each verifiable', async () => {
    const client = await server.newClient();
    const { receiver, verifier } = await consumerOf(client, ['company.created']);
    await addFault(client, { match: { eventType: 'company.created' }, action: { type: 'webhook', mode: 'duplicate' }, times: 1 });
    const company = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Twice' } })).body;
    await receiver.waitFor(2);
    const [first, second] = receiver.received;
    expect(first.headers['webhook-id']).toBe(second.headers['webhook-id']);
    for (const delivery of [first, second]) expect(eventOf(verifier, delivery).payload.id).toBe(company.id);
    // Spent: the next company's event arrives once.
    await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Once' } });
    await receiver.waitFor(3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(3);
  });

  it('reorder: the delivery is held until the next one to its consumer has gone; delay: it arrives late, still signed', async () => {
    const client = await server.newClient();
    const { receiver, verifier } = await consumerOf(client, ['company.created']);
    await addFault(client, { match: { eventType: 'company.created' }, action: { type: 'webhook', mode: 'reorder' }, times: 1 });
    const first = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'First' } })).body;
    const second = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Second' } })).body;
    await receiver.waitFor(2);
    expect(receiver.received.map((d) => eventOf(verifier, d).payload.id)).toEqual([second.id, first.id]);

    await addFault(client, { match: { eventType: 'company.created' }, action: { type: 'webhook', mode: 'delay', delayMs: 200 }, times: 1 });
    const third = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Third' } })).body;
    await receiver.waitFor(3);
    expect(eventOf(verifier, receiver.received[2]).payload.id).toBe(third.id);
  });
});

describe('a lostAnswer rule', () => {
  it('processes the write and closes the connection; the retry with the same key answers the same operation, and one record is written', async () => {
    const client = await server.newClient();
    const sdk = platformSdk(client);
    const { companyId, connectionId } = await sandboxCompany(sdk, 'Lossy');
    await waitForSyncs(server, client, companyId);
    await addFault(client, {
      match: { method: 'POST', path: '/companies/{companyId}/connections/{connectionId}/push/{dataType}', dataType: 'customers' },
      action: { type: 'lostAnswer' },
      times: 1,
    });
    const url = `/companies/${companyId}/connections/${connectionId}/push/customers`;
    const body = { customerName: 'Once Only Ltd', status: 'Active' };
    const headers = { 'idempotency-key': 'lost-answer-1' };

    await expect(
      fetch(`${server.url}${url}`, {
        method: 'POST',
        headers: { authorization: client.auth, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    ).rejects.toThrow();
    const accepted = (await http(server, 'GET', `/companies/${companyId}/push`, { auth: client.auth })).body.results;
    expect(accepted).toHaveLength(1);

    const retry = await http(server, 'POST', url, { auth: client.auth, body, headers });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.pushOperationKey).toBe(accepted[0].pushOperationKey);
    expect(await waitForPush(server, client, companyId, retry.body.pushOperationKey)).toMatchObject({ status: 'Success' });
    await waitForSyncs(server, client, companyId);
    const customers = (await http(server, 'GET', `/companies/${companyId}/data/customers?pageSize=5000`, { auth: client.auth })).body
      .results;
    expect(customers.filter((c: { customerName: string }) => c.customerName === 'Once Only Ltd')).toHaveLength(1);
    const journal = (
      await http(server, 'GET', `/emulator/requests?companyId=${companyId}&operationId=create-record`, { auth: client.auth })
    ).body.results;
    expect(journal.map((e: { status: number }) => e.status)).toEqual([200, 0]);
  });

  it('refuses request-matching fields on a rule that acts on syncs or writes', async () => {
    const client = await server.newClient();
    for (const [rule, field] of [
      [{ match: { operationId: 'refresh-company-data' }, action: { type: 'deauthorize' } }, 'match.operationId'],
      [{ match: { method: 'GET', path: '/companies' }, action: { type: 'syncError', status: 'FetchError' } }, 'match.method'],
      [{ match: {}, action: { type: 'syncError', status: 'Broken' } }, 'action.status'],
      [{ match: {}, action: { type: 'pushOutcome', status: 'Success' } }, 'action.status'],
      [{ match: {}, action: { type: 'pushOutcome', status: 'TimedOut', validation: { errors: [{ message: 'x' }] } } }, 'action.validation'],
      [{ match: {}, action: { type: 'deauthorize', status: 'FetchError' } }, 'action.status'],
      [{ match: {}, action: { type: 'webhook' } }, 'action.mode'],
      [{ match: {}, action: { type: 'webhook', mode: 'duplicate', delayMs: 5 } }, 'action.delayMs'],
      [{ match: { eventType: 'company.exploded' }, action: { type: 'webhook', mode: 'delay' } }, 'match.eventType'],
      [{ match: { operationId: 'list-companies' }, action: { type: 'webhook', mode: 'delay' } }, 'match.operationId'],
    ] as const) {
      const res = await http(server, 'POST', '/emulator/faults', { auth: client.auth, body: rule });
      expectErrorBody(res, 400, { validation: true });
      expect(
        res.body.validation.errors.map((e: { itemId: string }) => e.itemId),
        res.text,
      ).toContain(field);
    }
  });
});
