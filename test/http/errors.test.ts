import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';

let server: TestServer;
let client: TestClient;

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient();
});
afterAll(() => server.close());

describe('error bodies', () => {
  it('answers 404 for an unknown path, with or without a key', async () => {
    for (const auth of [client.auth, undefined]) {
      const res = await http(server, 'GET', '/no/such/thing', { auth });
      expectErrorBody(res, 404, { error: 'NotFoundException: No endpoint matches GET /no/such/thing.' });
    }
  });

  it('answers 405 with Allow for a known path and the wrong method', async () => {
    const collection = await http(server, 'DELETE', '/companies', { auth: client.auth });
    expectErrorBody(collection, 405, { error: /^MethodNotAllowedException: DELETE is not allowed on \/companies/ });
    expect(collection.headers.get('allow')).toBe('GET, HEAD, POST');
    const item = await http(server, 'POST', '/companies/6b3f8a02-6d1c-4c4b-9a3e-2f1d8f2c7a10', { auth: client.auth });
    expectErrorBody(item, 405);
    expect(item.headers.get('allow')).toBe('GET, HEAD, PUT, PATCH, DELETE');
  });

  it('answers 400 for a malformed JSON body', async () => {
    const res = await http(server, 'POST', '/companies', {
      auth: client.auth,
      rawBody: '{"name": "Acme",',
      headers: { 'content-type': 'application/json' },
    });
    const body = expectErrorBody(res, 400, { validation: true, error: 'MalformedRequestException: The request body is not valid JSON.' });
    expect(body.validation.errors[0].itemId).toBe('body');
  });

  it('answers 400 for a body of the wrong content type', async () => {
    const res = await http(server, 'POST', '/companies', {
      auth: client.auth,
      rawBody: 'name=Acme',
      headers: { 'content-type': 'text/plain' },
    });
    const body = expectErrorBody(res, 400, { validation: true });
    expect(body.validation.errors[0].itemId).toBe('Content-Type');
  });

  it('takes an empty body whatever its Content-Type (the SDK labels bodiless POSTs form-encoded), and refuses a non-empty one', async () => {
    const company = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Empty bodies' } });
    const path = `/companies/${company.body.id}/data/all`;
    for (const type of ['application/x-www-form-urlencoded', 'text/xml']) {
      expect((await http(server, 'POST', path, { auth: client.auth, rawBody: '', headers: { 'content-type': type } })).status).toBe(204);
      const full = await http(server, 'POST', path, { auth: client.auth, rawBody: 'a=1', headers: { 'content-type': type } });
      expect(expectErrorBody(full, 400, { validation: true }).validation.errors[0].itemId).toBe('Content-Type');
    }
    // An empty form-encoded body where JSON is required is a missing body, not a content type to refuse.
    const missing = await http(server, 'POST', '/companies', {
      auth: client.auth,
      rawBody: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectErrorBody(missing, 400, { validation: true, error: 'ValidationException: One or more validation errors occurred.' });
    // A path no route takes, or a method it does not, is 404 or 405 whatever the body.
    const rawBody = '<a/>';
    const headers = { 'content-type': 'text/xml' };
    expectErrorBody(await http(server, 'POST', '/no/such/path', { auth: client.auth, rawBody, headers }), 404);
    const wrongMethod = await http(server, 'PATCH', '/companies', { auth: client.auth, rawBody, headers });
    expectErrorBody(wrongMethod, 405);
    expect(wrongMethod.headers.get('allow')).toMatch(/GET/);
  });

  it('answers 400 naming each wrong field of a body, without converting types', async () => {
    const res = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 42, description: ['x'], tags: { a: 1 } } });
    const body = expectErrorBody(res, 400, { validation: true, error: 'ValidationException: One or more validation errors occurred.' });
    const ids = body.validation.errors.map((e: { itemId: string }) => e.itemId).sort();
    expect(ids).toEqual(['description', 'name', 'tags.a']);
    expect(body.validation.errors.every((e: { validatorName: string }) => e.validatorName === 'CreateCompany')).toBe(true);
  });

  it('answers 400 naming the field for text holding U+0000, in a body, a query or a path, and stores nothing', async () => {
    // A client of its own: its cached company count must not stand in for the store in the tests around it.
    const client = await server.newClient();
    const before = (await http(server, 'GET', '/companies', { auth: client.auth })).body.totalResults;
    const body = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Acme', tags: { region: 'uk\u0000' } } });
    expect(expectErrorBody(body, 400, { validation: true }).validation.errors).toEqual([
      {
        itemId: 'tags.region',
        message: expect.stringMatching(/^tags\.region must not contain the NUL character/),
        validatorName: 'TextValidator',
      },
    ]);
    const query = await http(server, 'GET', `/companies?query=${encodeURIComponent('name=a\u0000')}`, { auth: client.auth });
    expect(expectErrorBody(query, 400, { validation: true }).validation.errors[0].itemId).toBe('query');
    const path = await http(server, 'GET', '/integrations/mq%00jo', { auth: client.auth });
    expect(expectErrorBody(path, 400, { validation: true }).validation.errors[0].itemId).toBe('platformKey');
    expect((await http(server, 'GET', '/companies', { auth: client.auth })).body.totalResults).toBe(before);
  });

  it('answers 413 for an oversized body', async () => {
    const res = await http(server, 'POST', '/companies', {
      auth: client.auth,
      rawBody: JSON.stringify({ name: 'Big', description: 'x'.repeat(6 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expectErrorBody(res, 413, { error: 'PayloadTooLargeException: The request body is larger than this server accepts.' });
  });

  it('answers 500 with the error body and nothing internal when the store fails', async () => {
    await sql`ALTER TABLE companies RENAME TO companies_moved`.execute(server.store.db);
    try {
      const res = await http(server, 'GET', '/companies', { auth: client.auth });
      const body = expectErrorBody(res, 500, {
        error: 'InternalServerError: An unexpected error occurred; please retry later and quote the correlationId if it persists.',
      });
      expect(res.text).not.toMatch(/companies_moved|SELECT|sqlite|no such table|relation "|at [A-Za-z]+ \(/i);
      expect(body).not.toHaveProperty('validation');
    } finally {
      await sql`ALTER TABLE companies_moved RENAME TO companies`.execute(server.store.db);
    }
    expect((await http(server, 'GET', '/companies', { auth: client.auth })).status).toBe(200);
  });

  it('gives every response a fresh correlation id', async () => {
    const a = await http(server, 'GET', '/companies', { auth: client.auth });
    const b = await http(server, 'GET', '/companies', { auth: client.auth });
    expect(a.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('x-correlation-id')).not.toBe(b.headers.get('x-correlation-id'));
  });
});

describe('public endpoints', () => {
  it('serves liveness and readiness without a key', async () => {
    expect((await http(server, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await http(server, 'GET', '/readyz')).body).toEqual({ status: 'ready' });
  });

  it('serves an OpenAPI 3.1 document of every endpoint', async () => {
    const res = await http(server, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const ops = Object.entries(res.body.paths as Record<string, Record<string, unknown>>).flatMap(([p, m]) =>
      Object.keys(m).map((k) => `${k.toUpperCase()} ${p}`),
    );
    for (const op of [
      'GET /companies',
      'POST /companies',
      'GET /companies/{companyId}',
      'PUT /companies/{companyId}',
      'PATCH /companies/{companyId}',
      'DELETE /companies/{companyId}',
      'GET /apiKeys',
      'POST /apiKeys',
      'DELETE /apiKeys/{apiKeyId}',
      'GET /profile',
      'PUT /profile',
      'GET /integrations',
      'GET /integrations/{platformKey}',
      'GET /healthz',
      'GET /readyz',
    ]) {
      expect(ops).toContain(op);
    }
    expect(res.body.components.schemas.Company.required).toEqual(expect.arrayContaining(['id', 'name', 'redirect']));
    expect(res.body.paths['/companies'].post.responses['402']).toBeDefined();
  });

  it('serves a readable reference at /docs and the error catalogue at /docs/errors', async () => {
    const docs = await http(server, 'GET', '/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    expect(docs.text).toContain('/companies/{companyId}');
    const errors = await http(server, 'GET', '/docs/errors');
    expect(errors.status).toBe(200);
    for (const status of [400, 401, 402, 403, 404, 405, 408, 409, 413, 414, 417, 429, 431, 500, 503])
      expect(errors.text).toContain(`id="${status}"`);
  });
});
