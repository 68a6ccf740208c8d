import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { CodatPlatform } from '@codat/platform';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { createClientsStore } from '../../src/clients/clients.store.js';

/**
 * Issue 33, fault rules that fire on requests (http, latency, reset) and the request journal, through the official SDK
 * with only its server URL changed, and the controls over HTTP.
 */

let server: TestServer;
let small: TestServer;

beforeAll(async () => {
  server = await startTestServer({ emulator: true });
  small = await startTestServer({ emulator: true, emulatorJournalSize: 5 });
});
afterAll(async () => {
  await server?.close();
  await small?.close();
});

const sdkOf = (client: TestClient, retries = false) =>
  new CodatPlatform({
    authHeader: client.auth,
    serverURL: server.url,
    retryConfig: retries
      ? {
          strategy: 'backoff',
          backoff: { initialInterval: 50, maxInterval: 2000, exponent: 1.5, maxElapsedTime: 30_000 },
          retryConnectionErrors: true,
        }
      : { strategy: 'none' },
  });

async function addFault(on: TestServer, client: TestClient, rule: Record<string, unknown>) {
  const res = await http(on, 'POST', '/emulator/faults', { auth: client.auth, body: rule });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; fired: number; spent: boolean };
}

async function journal(on: TestServer, client: TestClient, query = '') {
  const res = await http(on, 'GET', `/emulator/requests${query}`, { auth: client.auth });
  expect(res.status, res.text).toBe(200);
  return res.body as { results: Record<string, any>[]; totalResults: number };
}

describe('an http fault rule', () => {
  it('answers two 429s with Retry-After that the SDK waits out, then lets the call through; the journal shows 429, 429, 200', async () => {
    const client = await server.newClient();
    const rule = await addFault(server, client, {
      match: { operationId: 'list-companies' },
      action: { type: 'http', status: 429, retryAfter: 1 },
      times: 2,
    });
    const listed = await sdkOf(client, true).companies.list({});
    expect(listed.totalResults).toBe(0);

    const entries = (await journal(server, client, '?operationId=list-companies')).results;
    expect(entries.map((e) => e.status)).toEqual([200, 429, 429]);
    expect(entries[0]).toMatchObject({ method: 'GET', path: '/companies', operationId: 'list-companies' });
    // Retry-After was waited out: the retries came at least a second apart (the journal's own business times).
    expect(Date.parse(entries[1].clockTime) - Date.parse(entries[2].clockTime)).toBeGreaterThanOrEqual(900);
    expect((await http(server, 'GET', `/emulator/faults/${rule.id}`, { auth: client.auth })).body).toMatchObject({ fired: 2, spent: true });

    // The 429 itself is the documented error body, with its Retry-After.
    await addFault(server, client, {
      match: { method: 'GET', path: '/companies' },
      action: { type: 'http', status: 503, retryAfter: 7 },
      times: 1,
    });
    const refused = await http(server, 'GET', '/companies', { auth: client.auth });
    expectErrorBody(refused, 503);
    expect(refused.headers.get('retry-after')).toBe('7');
  });

  it('matches by company, connection and data type, and by any of Codat’s names for the operation', async () => {
    const client = await server.newClient();
    const [a, b] = [
      (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'A' } })).body.id,
      (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'B' } })).body.id,
    ];
    // The Lending file's name for the invoices list, for company A only.
    await addFault(server, client, {
      match: { operationId: 'list-accounting-invoices', companyId: a },
      action: { type: 'http', status: 500 },
    });
    expectErrorBody(await http(server, 'GET', `/companies/${a}/data/invoices`, { auth: client.auth }), 500);
    expect((await http(server, 'GET', `/companies/${b}/data/invoices`, { auth: client.auth })).status).not.toBe(500);
    expect((await http(server, 'GET', `/companies/${a}/data/bills`, { auth: client.auth })).status).not.toBe(500);
    await addFault(server, client, { match: { dataType: 'bills', companyId: b }, action: { type: 'http', status: 502 } });
    expectErrorBody(await http(server, 'GET', `/companies/${b}/data/bills`, { auth: client.auth }), 502);
    const invoices = (await journal(server, client, `?companyId=${a}&operationId=list-accounting-invoices`)).results;
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ operationId: 'list-accounting-invoices', companyId: a, status: 500 });
  });
});

describe('latency and reset rules', () => {
  it('delay matching requests, and close one connection without an answer (status 0 in the journal)', async () => {
    const client = await server.newClient();
    const sdk = sdkOf(client);
    const company = await sdk.companies.create({ name: 'Slow' });
    await addFault(server, client, { match: { operationId: 'get-company' }, action: { type: 'latency', delayMs: 300 }, times: 1 });
    expect((await sdk.companies.get({ companyId: company.id })).id).toBe(company.id);
    const [slow] = (await journal(server, client, '?operationId=get-company')).results;
    expect(slow.durationMs).toBeGreaterThanOrEqual(300);

    await addFault(server, client, { match: { operationId: 'get-company' }, action: { type: 'reset' }, times: 1 });
    await expect(fetch(`${server.url}/companies/${company.id}`, { headers: { authorization: client.auth } })).rejects.toThrow();
    expect((await sdk.companies.get({ companyId: company.id })).id).toBe(company.id);
    const statuses = (await journal(server, client, '?operationId=get-company')).results.map((e) => e.status);
    expect(statuses).toEqual([200, 0, 200]);
  });

  it('fires with a seeded probability the same way run after run', async () => {
    const outcomes: number[][] = [];
    for (let run = 0; run < 2; run++) {
      const client = await server.newClient();
      await addFault(server, client, {
        match: { operationId: 'list-companies' },
        action: { type: 'http', status: 500 },
        probability: 0.5,
        seed: 42,
      });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await http(server, 'GET', '/companies', { auth: client.auth })).status);
      outcomes.push(statuses);
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
    expect(outcomes[0]).toContain(500);
    expect(outcomes[0]).toContain(200);
  });
});

describe('the controls', () => {
  it('list, read and delete a client’s rules; another client’s rule is 404 and never fires on its requests', async () => {
    const [owner, other] = [await server.newClient(), await server.newClient()];
    const rule = await addFault(server, owner, { match: { operationId: 'list-companies' }, action: { type: 'http', status: 500 } });
    expect((await http(server, 'GET', '/emulator/faults', { auth: owner.auth })).body.results.map((f: { id: string }) => f.id)).toEqual([
      rule.id,
    ]);
    expect((await http(server, 'GET', '/emulator/faults', { auth: other.auth })).body.results).toEqual([]);
    expectErrorBody(await http(server, 'GET', `/emulator/faults/${rule.id}`, { auth: other.auth }), 404);
    expectErrorBody(await http(server, 'DELETE', `/emulator/faults/${rule.id}`, { auth: other.auth }), 404);
    expect((await http(server, 'GET', '/companies', { auth: other.auth })).status).toBe(200);
    expectErrorBody(await http(server, 'GET', '/companies', { auth: owner.auth }), 500);
    // The other client's requests are not in the owner's journal, and the controls are in neither.
    expect((await journal(server, owner)).results.map((e) => e.status)).toEqual([500]);
    expect((await journal(server, other)).results.map((e) => e.status)).toEqual([200]);

    expect((await http(server, 'DELETE', `/emulator/faults/${rule.id}`, { auth: owner.auth })).status).toBe(204);
    expectErrorBody(await http(server, 'GET', `/emulator/faults/${rule.id}`, { auth: owner.auth }), 404);
    expectErrorBody(await http(server, 'GET', `/emulator/faults/${randomUUID()}`, { auth: owner.auth }), 404);
    await addFault(server, owner, { match: {}, action: { type: 'latency', delayMs: 1 } });
    await addFault(server, owner, { match: {}, action: { type: 'latency', medianMs: 1, sigma: 0.5 }, seed: 7 });
    expect((await http(server, 'DELETE', '/emulator/faults', { auth: owner.auth })).status).toBe(204);
    expect((await http(server, 'GET', '/emulator/faults', { auth: owner.auth })).body.results).toEqual([]);
  });

  it('refuses an invalid rule with a 400 naming the field', async () => {
    const client = await server.newClient();
    const cases: [Record<string, unknown>, string][] = [
      [{ match: { operationId: 'list-unicorns' }, action: { type: 'http', status: 500 } }, 'match.operationId'],
      [{ match: { method: 'GET' }, action: { type: 'http', status: 500 } }, 'match.path'],
      [{ match: { method: 'GET', path: '/unicorns' }, action: { type: 'http', status: 500 } }, 'match.path'],
      [{ match: { dataType: 'unicorns' }, action: { type: 'http', status: 500 } }, 'match.dataType'],
      [{ match: { companyId: 'not-a-uuid' }, action: { type: 'http', status: 500 } }, 'match.companyId'],
      [{ match: {}, action: { type: 'http', status: 200 } }, 'action.status'],
      [{ match: {}, action: { type: 'http' } }, 'action.status'],
      [{ match: {}, action: { type: 'latency', delayMs: 5, retryAfter: 1 } }, 'action.retryAfter'],
      [{ match: {}, action: { type: 'latency' } }, 'action.delayMs'],
      [{ match: {}, action: { type: 'latency', medianMs: 5 } }, 'action.sigma'],
      [{ match: {}, action: { type: 'teleport' } }, 'action.type'],
      [{ match: {}, action: { type: 'http', status: 500 }, times: 0 }, 'times'],
      [{ match: {}, action: { type: 'http', status: 500 }, probability: 1.5 }, 'probability'],
      [{ match: {}, action: { type: 'http', status: 500 }, seed: 3 }, 'seed'],
      [{ match: { eventType: 'read.completed' }, action: { type: 'http', status: 500 } }, 'match.eventType'],
      [{ match: {}, action: { type: 'webhook', mode: 'teleport' } }, 'action.mode'],
      [{ action: { type: 'http', status: 500 } }, 'match'],
    ];
    for (const [rule, field] of cases) {
      const res = await http(server, 'POST', '/emulator/faults', { auth: client.auth, body: rule });
      expectErrorBody(res, 400, { validation: true });
      expect(
        res.body.validation.errors.map((e: { itemId: string }) => e.itemId),
        `${JSON.stringify(rule)}: ${res.text}`,
      ).toContain(field);
    }
    expect((await http(server, 'GET', '/emulator/faults', { auth: client.auth })).body.results).toEqual([]);
  });
});

describe('the journal', () => {
  it('verifies a count: 200 when it holds, 409 saying what the journal holds when not; 400 for an unknown operation', async () => {
    const client = await server.newClient();
    const sdk = sdkOf(client);
    const company = await sdk.companies.create({ name: 'Counted' });
    for (let i = 0; i < 3; i++) await sdk.companies.get({ companyId: company.id });
    const ok = await http(server, 'POST', '/emulator/requests/verify', {
      auth: client.auth,
      body: { operationId: 'get-company', count: 3 },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toEqual({ operationId: 'get-company', count: 3, seen: 3 });
    const scoped = await http(server, 'POST', '/emulator/requests/verify', {
      auth: client.auth,
      body: { operationId: 'get-company', count: 0, companyId: randomUUID() },
    });
    expect(scoped.status).toBe(200);
    const wrong = await http(server, 'POST', '/emulator/requests/verify', {
      auth: client.auth,
      body: { operationId: 'get-company', count: 2 },
    });
    expectErrorBody(wrong, 409);
    expect(wrong.body.error).toContain('the journal holds 3 (3 answered 200)');
    expectErrorBody(
      await http(server, 'POST', '/emulator/requests/verify', { auth: client.auth, body: { operationId: 'get-unicorn', count: 1 } }),
      400,
      { validation: true },
    );
    // Keys, secrets and bodies are not in it: only hashes, the path and what the operation is.
    const text = JSON.stringify((await journal(server, client)).results);
    expect(text).not.toContain(client.apiKey);
    expect(text).not.toContain('Counted');
    const [created] = (await journal(server, client, '?operationId=create-company')).results;
    expect(created).toMatchObject({
      status: 200,
      requestSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      responseSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('keeps the service’s own refusals too: a 429 of the daily quota', async () => {
    const client = await server.newClient();
    await createClientsStore(server.store.db).setLimits(client.clientId, { dailyQuota: 1 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await http(server, 'GET', '/companies', { auth: client.auth })).status);
    expect(statuses).toContain(429);
    expect((await journal(server, client, '?operationId=list-companies')).results.map((e) => e.status).reverse()).toEqual(statuses);
  });

  it('keeps the last EMULATOR_JOURNAL_SIZE entries per client, paged the Codat way', async () => {
    const [client, other] = [await small.newClient(), await small.newClient()];
    for (let i = 0; i < 8; i++) await http(small, 'GET', `/companies?page=${i + 1}`, { auth: client.auth });
    await http(small, 'GET', '/companies', { auth: other.auth });
    const all = await journal(small, client, '?pageSize=2');
    expect(all.totalResults).toBe(5);
    expect(all.results.map((e) => e.requestSha256)).toHaveLength(2);
    const last = await journal(small, client, '?pageSize=2&page=3');
    expect(last.results).toHaveLength(1);
    expect((await journal(small, other)).totalResults).toBe(1);
  });
});
