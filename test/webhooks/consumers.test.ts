import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { EVENT_TYPES } from '../../src/webhooks/events.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SECRET = /^whsec_[A-Za-z0-9+/]{32}$/;

let server: TestServer;
/** allowPrivate=false, as in production. */
let strict: TestServer;

beforeAll(async () => {
  [server, strict] = await Promise.all([startTestServer(), startTestServer({ webhooks: { allowPrivate: false } })]);
});
afterAll(async () => {
  await Promise.all([server?.close(), strict?.close()]);
});

const create = (client: TestClient, body: unknown, on: TestServer = server) => http(on, 'POST', '/webhooks', { auth: client.auth, body });
const list = (client: TestClient) => http(server, 'GET', '/webhooks', { auth: client.auth });

async function expectValidation(res: Awaited<ReturnType<typeof create>>, itemIds: string[]) {
  const body = expectErrorBody(res, 400, { validation: true, error: 'ValidationException: One or more validation errors occurred.' });
  expect(body.validation.errors.map((e: { itemId: string }) => e.itemId)).toEqual(itemIds);
  return body.validation.errors as { itemId: string; message: string; validatorName: string }[];
}

describe('the event type list', () => {
  it('holds the platform events and a write pair per accounting data type', () => {
    expect(EVENT_TYPES).toContain('company.created');
    expect(EVENT_TYPES).toContain('client.rateLimit.reset');
    expect(EVENT_TYPES).toContain('invoices.write.successful');
    expect(EVENT_TYPES).toContain('invoices.write.unsuccessful');
    expect(EVENT_TYPES).not.toContain('banking-accounts.write.successful');
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
  });
});

describe('POST /webhooks', () => {
  it('answers 201 with the consumer and its secret, which the list never shows', async () => {
    const client = await server.newClient();
    const res = await create(client, {
      url: 'https://hooks.example.com/codat?x=1',
      eventTypes: ['company.created', 'connection.connected'],
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['companyTags', 'disabled', 'eventTypes', 'id', 'secret', 'url']);
    expect(res.body).toMatchObject({
      url: 'https://hooks.example.com/codat?x=1',
      disabled: false,
      eventTypes: ['company.created', 'connection.connected'],
      companyTags: null,
    });
    expect(res.body.id).toMatch(GUID);
    expect(res.body.secret).toMatch(SECRET);
    expect(Buffer.from(res.body.secret.slice(6), 'base64')).toHaveLength(24);

    const listed = await list(client);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toEqual({
      results: [{ id: res.body.id, url: res.body.url, disabled: false, eventTypes: res.body.eventTypes, companyTags: null }],
    });
    expect(listed.text).not.toContain(res.body.secret);
    expect(listed.text).not.toMatch(/secret/i);
  });

  it('keeps disabled and company tags, and gives every consumer its own secret', async () => {
    const client = await server.newClient();
    const a = await create(client, {
      url: 'http://a.example.com/',
      disabled: true,
      eventTypes: ['company.deleted'],
      companyTags: ['region:uk', 'team:a:b'],
    });
    const b = await create(client, { url: 'http://b.example.com/', disabled: null, eventTypes: ['read.completed'], companyTags: null });
    expect(a.status, a.text).toBe(201);
    expect(b.status, b.text).toBe(201);
    expect(a.body).toMatchObject({ disabled: true, companyTags: ['region:uk', 'team:a:b'] });
    expect(b.body).toMatchObject({ disabled: false, companyTags: null });
    expect(a.body.secret).not.toBe(b.body.secret);
    // Oldest first.
    expect((await list(client)).body.results.map((c: { id: string }) => c.id)).toEqual([a.body.id, b.body.id]);
  });

  it('answers 400 with one validation item per problem', async () => {
    const client = await server.newClient();
    await expectValidation(await create(client, { eventTypes: ['company.created'] }), ['url']);
    await expectValidation(await create(client, { url: 'not a url', eventTypes: ['company.created'] }), ['url']);
    await expectValidation(await create(client, { url: 'ftp://example.com/x', eventTypes: ['company.created'] }), ['url']);
    await expectValidation(await create(client, { url: 'https://example.com/' }), ['eventTypes']);
    await expectValidation(await create(client, { url: 'https://example.com/', eventTypes: [] }), ['eventTypes']);
    const unknown = await expectValidation(
      await create(client, { url: 'https://example.com/', eventTypes: ['company.created', 'DataSyncCompleted', '*'] }),
      ['eventTypes.1', 'eventTypes.2'],
    );
    expect(unknown[0].message).toMatch(/^eventTypes\.1 \("DataSyncCompleted"\) is not a known event type/);
    expect(unknown[0].validatorName).toBe('CreateWebhookConsumer');
    const eleven = Array.from({ length: 11 }, (_, i) => `k${i}:v`);
    const tooMany = await expectValidation(
      await create(client, { url: 'https://example.com/', eventTypes: ['company.created'], companyTags: eleven }),
      ['companyTags'],
    );
    expect(tooMany[0].message).toMatch(/at most 10/);
    await expectValidation(
      await create(client, { url: 'https://example.com/', eventTypes: ['company.created'], companyTags: ['x'.repeat(127) + ':v'] }),
      ['companyTags.0'],
    );
    const format = await expectValidation(
      await create(client, {
        url: 'https://example.com/',
        eventTypes: ['company.created'],
        companyTags: ['region:uk', 'nocolon', ':value'],
      }),
      ['companyTags.1', 'companyTags.2'],
    );
    expect(format[0].message).toMatch(/tagKey:tagValue/);
    await expectValidation(await create(client, { url: 'https://example.com/', eventTypes: ['company.created'], disabled: 'yes' }), [
      'disabled',
    ]);
    // Several problems at once.
    await expectValidation(await create(client, { url: 'mailto:a@example.com', eventTypes: ['nope'], companyTags: ['bad'] }), [
      'url',
      'eventTypes.0',
      'companyTags.0',
    ]);
    expect((await list(client)).body.results).toEqual([]);
  });

  it('refuses loopback, private and link-local hosts unless the server allows them', async () => {
    const client = await strict.newClient();
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://localhost/hook',
      'http://LocalHost.:8080/',
      'http://api.localhost/',
      'http://10.1.2.3/',
      'http://192.168.0.1/',
      'http://172.16.5.4/',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://[::1]/',
      'http://[fd00::1]/',
      'http://[fe80::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://224.0.0.1/',
      'http://2130706433/',
      'http://0x7f.0.0.1:80/',
    ]) {
      const items = await expectValidation(await create(client, { url, eventTypes: ['company.created'] }, strict), ['url']);
      expect(items[0].message, url).toMatch(
        /must not point at a loopback, private or link-local address .*; set WEBHOOKS_ALLOW_PRIVATE=true on the server to allow internal addresses\. Learn more/,
      );
    }
    expect((await create(client, { url: 'https://8.8.8.8/hook', eventTypes: ['company.created'] }, strict)).status).toBe(201);
    // The test server allows them (its receivers listen on loopback).
    const allowed = await server.newClient();
    expect((await create(allowed, { url: 'http://127.0.0.1:9/', eventTypes: ['company.created'] })).status).toBe(201);
  });

  it('answers 409 for the 51st consumer', async () => {
    const client = await server.newClient();
    for (let i = 0; i < 50; i++) {
      const res = await create(client, { url: `https://example.com/${i}`, eventTypes: ['company.created'] });
      expect(res.status, res.text).toBe(201);
    }
    const res = await create(client, { url: 'https://example.com/51', eventTypes: ['company.created'] });
    expectErrorBody(res, 409, { error: /at most 50 webhook consumers/ });
    const listed = await list(client);
    expect(listed.body.results).toHaveLength(50);
    // Deleting one makes room again.
    expect((await http(server, 'DELETE', `/webhooks/${listed.body.results[0].id}`, { auth: client.auth })).status).toBe(204);
    expect((await create(client, { url: 'https://example.com/51', eventTypes: ['company.created'] })).status).toBe(201);
  });
});

describe('DELETE /webhooks/{webhookId}', () => {
  it("deletes the caller's consumer (204); unknown or another client's answers 404", async () => {
    const owner = await server.newClient();
    const other = await server.newClient();
    const consumer = (await create(owner, { url: 'https://example.com/', eventTypes: ['company.created'] })).body;

    const foreign = await http(server, 'DELETE', `/webhooks/${consumer.id}`, { auth: other.auth });
    expectErrorBody(foreign, 404, { error: `WebhookConsumerNotFoundException: No webhook consumer was found with ID ${consumer.id}` });
    expectErrorBody(await http(server, 'DELETE', `/webhooks/${randomUUID()}`, { auth: owner.auth }), 404);
    expectErrorBody(await http(server, 'DELETE', '/webhooks/not-a-guid', { auth: owner.auth }), 400, { validation: true });

    const res = await http(server, 'DELETE', `/webhooks/${consumer.id}`, { auth: owner.auth });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect((await list(owner)).body.results).toEqual([]);
    expectErrorBody(await http(server, 'DELETE', `/webhooks/${consumer.id}`, { auth: owner.auth }), 404);
  });

  it("lists only the caller's own consumers", async () => {
    const a = await server.newClient();
    const b = await server.newClient();
    await create(b, { url: 'https://b.example.com/', eventTypes: ['company.created'] });
    expect((await list(a)).body).toEqual({ results: [] });
    expect((await list(b)).body.results).toHaveLength(1);
  });

  it('needs an API key', async () => {
    expectErrorBody(await http(server, 'GET', '/webhooks'), 401);
    expectErrorBody(
      await http(server, 'POST', '/webhooks', { body: { url: 'https://example.com/', eventTypes: ['company.created'] } }),
      401,
    );
  });
});

describe('OpenAPI document', () => {
  it('documents the three operations with the WebhookConsumer schema', async () => {
    const doc = (await http(server, 'GET', '/openapi.json')).body;
    expect(doc.paths['/webhooks'].get.operationId).toBe('list-webhook-consumers');
    expect(doc.paths['/webhooks'].post.operationId).toBe('create-webhook-consumer');
    expect(doc.paths['/webhooks/{webhookId}'].delete.operationId).toBe('delete-webhook-consumer');
    expect(Object.keys(doc.paths['/webhooks'].post.responses)).toContain('201');
    expect(Object.keys(doc.paths['/webhooks/{webhookId}'].delete.responses)).toEqual(expect.arrayContaining(['204', '404']));
    expect(doc.components.schemas.WebhookConsumer.properties).toHaveProperty('companyTags');
    expect(doc.paths['/webhooks'].get.tags).toEqual(['Webhooks']);
  });
});

describe('webhook consumers via @codat/platform', () => {
  it('creates, lists and deletes consumers without a validation error', async () => {
    const client = await server.newClient({ name: 'SDK webhooks' });
    const sdk = new CodatPlatform({ authHeader: client.auth, serverURL: server.url, retryConfig: { strategy: 'none' } });
    const created = await sdk.webhooks.createConsumer({
      url: 'https://example.com/sdk',
      eventTypes: ['company.created', 'invoices.write.successful'],
      companyTags: ['region:uk'],
    });
    expect(created).toMatchObject({
      url: 'https://example.com/sdk',
      disabled: false,
      eventTypes: ['company.created', 'invoices.write.successful'],
      companyTags: ['region:uk'],
    });
    expect(created.id).toMatch(GUID);
    const second = await sdk.webhooks.createConsumer({ url: 'https://example.com/sdk2', eventTypes: ['company.deleted'], disabled: true });
    expect(second.disabled).toBe(true);

    const listed = await sdk.webhooks.listConsumers();
    expect(listed.results?.map((c) => c.id)).toEqual([created.id, second.id]);
    expect(listed.results?.[1]).toMatchObject({ url: 'https://example.com/sdk2', disabled: true, companyTags: null });

    await sdk.webhooks.deleteConsumer({ webhookId: created.id! });
    expect((await sdk.webhooks.listConsumers()).results?.map((c) => c.id)).toEqual([second.id]);
  });
});
