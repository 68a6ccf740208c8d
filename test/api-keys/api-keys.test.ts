import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { assertCliBuilt, runLedgerport } from '../helpers/cli.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const API_KEY = /^[A-Za-z0-9]{40}$/;

let server: TestServer;
/** Every plain key seen in this file, to check none of them is stored. */
const issuedKeys: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const sha256 = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

async function newClient(): Promise<TestClient> {
  const client = await server.newClient();
  issuedKeys.push(client.apiKey);
  return client;
}

async function createKey(client: TestClient, body: unknown = { name: 'extra' }) {
  const res = await http(server, 'POST', '/apiKeys', { auth: client.auth, body });
  if (res.status === 201) issuedKeys.push(res.body.apiKey);
  return res;
}

async function keyCount(clientId: string): Promise<number> {
  return (await server.store.db.selectFrom('api_keys').select('id').where('client_id', '=', clientId).execute()).length;
}

describe('GET /apiKeys', () => {
  it("lists the client's keys without their values or hashes", async () => {
    const client = await newClient();
    const res = await http(server, 'GET', '/apiKeys', { auth: client.auth });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(['results']);
    expect(res.body.results).toHaveLength(1);
    const [key] = res.body.results;
    expect(Object.keys(key).sort()).toEqual(['createdDate', 'id', 'name']);
    expect(key.id).toMatch(GUID);
    expect(key.name).toBe('default');
    expect(Date.parse(key.createdDate)).not.toBeNaN();
    expect(res.text).not.toContain(client.apiKey);
    expect(res.text).not.toContain(sha256(client.apiKey));
    expect(res.text).not.toMatch(/apiKey|hash/i);
  });

  it("lists only the caller's own keys", async () => {
    const a = await newClient();
    const b = await newClient();
    const created = await createKey(b, { name: 'b-only' });
    const listA = await http(server, 'GET', '/apiKeys', { auth: a.auth });
    expect(listA.body.results.map((k: { id: string }) => k.id)).not.toContain(created.body.id);
    expect(listA.body.results).toHaveLength(1);
    const listB = await http(server, 'GET', '/apiKeys', { auth: b.auth });
    expect(listB.body.results.map((k: { name: string }) => k.name)).toEqual(['default', 'b-only']);
  });
});

describe('POST /apiKeys', () => {
  it('answers 201 with the full key once; the key authenticates and is listed without its value', async () => {
    const client = await newClient();
    const res = await createKey(client, { name: 'ci' });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['apiKey', 'createdDate', 'id', 'name']);
    expect(res.body).toMatchObject({ name: 'ci' });
    expect(res.body.id).toMatch(GUID);
    expect(res.body.apiKey).toMatch(API_KEY);
    expect(res.body.apiKey).not.toBe(client.apiKey);
    expect(Date.parse(res.body.createdDate)).not.toBeNaN();

    const withNewKey = await http(server, 'GET', '/profile', { auth: basicAuth(res.body.apiKey) });
    expect(withNewKey.status, withNewKey.text).toBe(200);

    const list = await http(server, 'GET', '/apiKeys', { auth: basicAuth(res.body.apiKey) });
    const listed = list.body.results.find((k: { id: string }) => k.id === res.body.id);
    expect(listed).toEqual({ id: res.body.id, name: 'ci', createdDate: res.body.createdDate });
    expect(list.text).not.toContain(res.body.apiKey);
    expect(list.text).not.toContain(sha256(res.body.apiKey));
  });

  it('accepts a missing or null name, and a name of exactly 50 characters', async () => {
    const client = await newClient();
    const empty = await createKey(client, {});
    expect(empty.status, empty.text).toBe(201);
    expect(empty.body.name).toBeNull();
    const nullName = await createKey(client, { name: null });
    expect(nullName.status, nullName.text).toBe(201);
    expect(nullName.body.name).toBeNull();
    const fifty = await createKey(client, { name: 'n'.repeat(50) });
    expect(fifty.status, fifty.text).toBe(201);
    expect(fifty.body.name).toBe('n'.repeat(50));
  });

  it('answers 400 for a name over 50 characters and creates nothing', async () => {
    const client = await newClient();
    const res = await createKey(client, { name: 'n'.repeat(51) });
    const body = expectErrorBody(res, 400, { validation: true });
    expect(body.validation.errors[0].itemId).toBe('name');
    expect(await keyCount(client.clientId)).toBe(1);
  });

  it('answers 409 on the 11th key, over HTTP and through the CLI, and allows one again after a deletion', async () => {
    assertCliBuilt();
    const client = await newClient();
    for (let i = 2; i <= 10; i++) {
      const res = await createKey(client, { name: `key ${i}` });
      expect(res.status, `key ${i}: ${res.text}`).toBe(201);
    }
    expect(await keyCount(client.clientId)).toBe(10);

    const eleventh = await createKey(client, { name: 'key 11' });
    expectErrorBody(eleventh, 409, { error: /10 API keys/ });
    expect(await keyCount(client.clientId)).toBe(10);

    const cli = await runLedgerport(server.databaseUrl, 'keys', 'create', '--client', client.clientId);
    expect(cli.code, cli.stderr).not.toBe(0);
    expect(cli.stdout).toBe('');
    expect(cli.stderr).toMatch(/10 API keys/);
    expect(await keyCount(client.clientId)).toBe(10);

    const list = await http(server, 'GET', '/apiKeys', { auth: client.auth });
    expect(list.body.results).toHaveLength(10);
    const victim = list.body.results.find((k: { name: string }) => k.name === 'key 5');
    expect((await http(server, 'DELETE', `/apiKeys/${victim.id}`, { auth: client.auth })).status).toBe(204);
    expect((await createKey(client, { name: 'replacement' })).status).toBe(201);
    expectErrorBody(await createKey(client, { name: 'key 11 again' }), 409);
  }, 90_000);
});

describe('DELETE /apiKeys/{apiKeyId}', () => {
  it('answers 204 and the deleted key gets 401 at once', async () => {
    const client = await newClient();
    const extra = await createKey(client, { name: 'to delete' });
    const extraAuth = basicAuth(extra.body.apiKey);
    expect((await http(server, 'GET', '/profile', { auth: extraAuth })).status).toBe(200);

    const res = await http(server, 'DELETE', `/apiKeys/${extra.body.id}`, { auth: client.auth });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');

    expectErrorBody(await http(server, 'GET', '/profile', { auth: extraAuth }), 401);
    expect((await http(server, 'GET', '/profile', { auth: client.auth })).status).toBe(200);
    const list = await http(server, 'GET', '/apiKeys', { auth: client.auth });
    expect(list.body.results.map((k: { id: string }) => k.id)).not.toContain(extra.body.id);
  });

  it('deletes the key making the call, effective from the next request', async () => {
    const client = await newClient();
    const second = await createKey(client, { name: 'second' });
    const own = (await http(server, 'GET', '/apiKeys', { auth: client.auth })).body.results.find(
      (k: { name: string }) => k.name === 'default',
    );
    expect((await http(server, 'DELETE', `/apiKeys/${own.id}`, { auth: client.auth })).status).toBe(204);
    expectErrorBody(await http(server, 'GET', '/apiKeys', { auth: client.auth }), 401);
    expect((await http(server, 'GET', '/apiKeys', { auth: basicAuth(second.body.apiKey) })).status).toBe(200);
  });

  it('answers 404 for an unknown id and a twice-deleted key, 400 for an id that is not a GUID', async () => {
    const client = await newClient();
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectErrorBody(await http(server, 'DELETE', `/apiKeys/${unknown}`, { auth: client.auth }), 404, { error: new RegExp(unknown) });

    const extra = await createKey(client);
    expect((await http(server, 'DELETE', `/apiKeys/${extra.body.id}`, { auth: client.auth })).status).toBe(204);
    expectErrorBody(await http(server, 'DELETE', `/apiKeys/${extra.body.id}`, { auth: client.auth }), 404);

    expectErrorBody(await http(server, 'DELETE', '/apiKeys/not-a-guid', { auth: client.auth }), 400, { validation: true });
  });

  it("answers 404 for another client's key, which keeps working", async () => {
    const owner = await newClient();
    const intruder = await newClient();
    const ownerKeyId = (await http(server, 'GET', '/apiKeys', { auth: owner.auth })).body.results[0].id;

    expectErrorBody(await http(server, 'DELETE', `/apiKeys/${ownerKeyId}`, { auth: intruder.auth }), 404);

    expect((await http(server, 'GET', '/profile', { auth: owner.auth })).status).toBe(200);
    expect(await keyCount(owner.clientId)).toBe(1);
  });
});

describe('key storage', () => {
  it('stores only SHA-256 hashes: no column of api_keys holds a plain key', async () => {
    const client = await newClient();
    const created = await createKey(client, { name: 'hashed' });
    expect(created.status).toBe(201);

    const rows = await server.store.db.selectFrom('api_keys').selectAll().execute();
    expect(issuedKeys.length).toBeGreaterThanOrEqual(2);
    const stored = rows.map((row) =>
      Object.values(row)
        .map((v) => String(v))
        .join('\u0000'),
    );
    for (const key of issuedKeys) {
      for (const text of stored) expect(text).not.toContain(key);
    }
    const row = rows.find((r) => r.id === created.body.id)!;
    expect(row.key_hash).toBe(sha256(created.body.apiKey));
    // Keys authenticate by hash, so the stored value cannot be replayed as a key.
    expectErrorBody(await http(server, 'GET', '/profile', { auth: basicAuth(row.key_hash) }), 401);
  });
});
