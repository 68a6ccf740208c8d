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

describe('companies', () => {
  it('creates a company with 200 and the full Company object', async () => {
    const res = await http(server, 'POST', '/companies', {
      auth: client.auth,
      body: { name: 'Acme Ltd', description: 'Widgets', tags: { region: 'uk' } },
    });
    expect(res.status).toBe(200);
    const c = res.body;
    expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(c).toMatchObject({
      name: 'Acme Ltd',
      description: 'Widgets',
      tags: { region: 'uk' },
      products: [],
      dataConnections: [],
      referenceSubsidiaryCompanies: [],
      redirect: `${server.url}/link/company/${c.id}`,
    });
    expect(Date.parse(c.created)).not.toBeNaN();
    expect(c).not.toHaveProperty('lastSync');
  });

  it('strips forbidden characters from names instead of rejecting them', async () => {
    const res = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Company (Codat[1])' } });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Company Codat1');
    expect(res.body).not.toHaveProperty('description');
  });

  it('rejects a name left empty once stripped, and a missing name, with validation items', async () => {
    const stripped = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: '(())' } });
    const body = expectErrorBody(stripped, 400, { validation: true });
    expect(body.validation.errors[0].itemId).toBe('name');
    const missing = await http(server, 'POST', '/companies', { auth: client.auth, body: {} });
    expect(expectErrorBody(missing, 400, { validation: true }).validation.errors[0]).toMatchObject({
      itemId: 'name',
      validatorName: 'CreateCompany',
    });
  });

  it('enforces the tag rules: at most 10, keys 1-27 characters, values up to 100', async () => {
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v']));
    const tooMany = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'T', tags: eleven } });
    expect(expectErrorBody(tooMany, 400, { validation: true }).validation.errors[0].itemId).toBe('tags');
    const longKey = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'T', tags: { ['k'.repeat(28)]: 'v' } } });
    expectErrorBody(longKey, 400, { validation: true });
    const longValue = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'T', tags: { k: 'v'.repeat(101) } } });
    expectErrorBody(longValue, 400, { validation: true });
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 'v'.repeat(100)]));
    const ok = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'T', tags: ten } });
    expect(ok.status).toBe(200);
  });

  it('gets, replaces, patches and deletes a company', async () => {
    const created = (
      await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Lifecycle', description: 'd', tags: { a: '1' } } })
    ).body;
    const got = await http(server, 'GET', `/companies/${created.id}`, { auth: client.auth });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created);

    const replaced = await http(server, 'PUT', `/companies/${created.id}`, { auth: client.auth, body: { name: 'Replaced' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: created.id, name: 'Replaced', tags: {}, created: created.created });
    expect(replaced.body).not.toHaveProperty('description');

    const patched = await http(server, 'PATCH', `/companies/${created.id}`, {
      auth: client.auth,
      body: { description: 'new', tags: { b: '2' } },
    });
    expect(patched.body).toMatchObject({ name: 'Replaced', description: 'new', tags: { b: '2' } });
    const untagged = await http(server, 'PATCH', `/companies/${created.id}`, { auth: client.auth, body: { tags: null } });
    expect(untagged.body.tags).toEqual({});
    const retagged = await http(server, 'PATCH', `/companies/${created.id}`, { auth: client.auth, body: { tags: { c: '3' } } });
    expect(retagged.body.tags).toEqual({ c: '3' });
    const emptied = await http(server, 'PATCH', `/companies/${created.id}`, { auth: client.auth, body: { tags: {} } });
    expect(emptied.body.tags).toEqual({});

    const deleted = await http(server, 'DELETE', `/companies/${created.id}`, { auth: client.auth });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await http(server, 'GET', `/companies/${created.id}`, { auth: client.auth });
    expectErrorBody(gone, 404, { error: `No company was found with ID ${created.id}` });
  });

  it('answers 400 for a companyId that is not a GUID and 404 for an unknown GUID', async () => {
    const bad = await http(server, 'GET', '/companies/not-a-guid', { auth: client.auth });
    const body = expectErrorBody(bad, 400, { validation: true });
    expect(body.validation.errors[0]).toMatchObject({ itemId: 'companyId' });
    expect(body.validation.errors[0].message).toMatch(/^companyId must be a GUID\./);
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const res = await http(server, method, '/companies/not-a-guid', { auth: client.auth, body: { name: 'x' } });
      expectErrorBody(res, 400, { validation: true });
    }
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectErrorBody(await http(server, 'GET', `/companies/${unknown}`, { auth: client.auth }), 404, {
      error: `No company was found with ID ${unknown}`,
    });
    expectErrorBody(await http(server, 'DELETE', `/companies/${unknown}`, { auth: client.auth }), 404);
  });

  it('filters GET /companies by tags with =, != and ~', async () => {
    const other = await server.newClient();
    const mk = (name: string, tags: Record<string, string>) =>
      http(server, 'POST', '/companies', { auth: other.auth, body: { name, tags } });
    await mk('UK finance', { region: 'uk', team: 'finance' });
    await mk('UK sales', { region: 'uk', team: 'sales' });
    await mk('US finance', { region: 'us', team: 'finance' });
    const names = async (tags: string) => {
      const res = await http(server, 'GET', `/companies?tags=${encodeURIComponent(tags)}`, { auth: other.auth });
      expect(res.status, res.text).toBe(200);
      return res.body.results.map((c: { name: string }) => c.name).sort();
    };
    expect(await names('region=uk && team=finance')).toEqual(['UK finance']);
    expect(await names('region!=uk')).toEqual(['US finance']);
    expect(await names('team~fin')).toEqual(['UK finance', 'US finance']);
    const bad = await http(server, 'GET', `/companies?tags=${encodeURIComponent('region>uk')}`, { auth: other.auth });
    expect(expectErrorBody(bad, 400, { validation: true }).validation.errors[0].itemId).toBe('tags');
  });
});
