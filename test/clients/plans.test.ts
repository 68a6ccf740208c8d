import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';

const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function createCompanies(client: TestClient, count: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const res = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: `${prefix} ${i}` } });
    expect(res.status, `company ${i}: ${res.text}`).toBe(200);
    ids.push(res.body.id);
  }
  return ids;
}

/** Asserts the spec's exact 402 body for POST /companies on a full Free trial. */
function expectCompanyLimitExceeded(res: Awaited<ReturnType<typeof http>>) {
  const body = expectErrorBody(res, 402, {
    error: 'CompanyValidationException: Company limit exceeded',
    service: 'PublicApi',
    validation: true,
  });
  expect(body.validation.errors).toHaveLength(1);
  const item = body.validation.errors[0];
  expect(Object.keys(item).sort()).toEqual(['itemId', 'message', 'validatorName']);
  expect(item.itemId).toBe('Company');
  expect(item.validatorName).toBe('CreateCompany');
  expect(item.message.startsWith('Company limit exceeded.'), item.message).toBe(true);
  expect(item.message.endsWith('/docs/errors'), item.message).toBe(true);
  expect(body.validation.warnings).toEqual([]);
  expect(body).toEqual({
    statusCode: 402,
    service: 'PublicApi',
    error: 'CompanyValidationException: Company limit exceeded',
    correlationId: body.correlationId,
    validation: { errors: [{ itemId: 'Company', message: item.message, validatorName: 'CreateCompany' }], warnings: [] },
  });
}

describe('free-trial company limit', () => {
  it('allows 50 companies, answers 402 on the 51st, and allows one again after a deletion', async () => {
    const client = await server.newClient({ plan: 'free-trial' });
    const ids = await createCompanies(client, 50, 'Trial');

    const list = await http(server, 'GET', '/companies?pageSize=100', { auth: client.auth });
    expect(list.status).toBe(200);
    expect(list.body.totalResults).toBe(50);

    const over = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'One too many' } });
    expectCompanyLimitExceeded(over);

    // The refused company was not stored.
    const after = await http(server, 'GET', '/companies?pageSize=100', { auth: client.auth });
    expect(after.body.totalResults).toBe(50);
    expect(after.body.results.map((c: { name: string }) => c.name)).not.toContain('One too many');

    const deleted = await http(server, 'DELETE', `/companies/${ids[0]}`, { auth: client.auth });
    expect(deleted.status).toBe(204);

    const again = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Replacement' } });
    expect(again.status, again.text).toBe(200);
    expect(again.body.name).toBe('Replacement');

    // Back at 50: the next one is refused again.
    expectCompanyLimitExceeded(await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Still too many' } }));
  });

  it('counts companies per client: another free-trial client is not affected', async () => {
    const full = await server.newClient({ plan: 'free-trial' });
    await createCompanies(full, 50, 'Full');
    expectCompanyLimitExceeded(await http(server, 'POST', '/companies', { auth: full.auth, body: { name: 'Over' } }));

    const other = await server.newClient({ plan: 'free-trial' });
    const res = await http(server, 'POST', '/companies', { auth: other.auth, body: { name: 'Fresh' } });
    expect(res.status, res.text).toBe(200);
  });

  it('puts no company limit on a standard client', async () => {
    const client = await server.newClient({ plan: 'standard' });
    await createCompanies(client, 51, 'Standard');
    const list = await http(server, 'GET', '/companies?pageSize=100', { auth: client.auth });
    expect(list.body.totalResults).toBe(51);
  });
});

describe('free-trial account expiry', () => {
  const endpoints: Array<[string, string, unknown?]> = [
    ['GET', '/companies'],
    ['POST', '/companies', { name: 'Expired Co' }],
    ['GET', '/profile'],
    ['GET', '/apiKeys'],
    ['GET', '/integrations'],
  ];

  it('answers 402 Payment Required on every endpoint once the account is older than 365 days', async () => {
    const client = await server.newClient({ plan: 'free-trial', createdAt: daysAgo(366) });
    for (const [method, path, body] of endpoints) {
      const res = await http(server, method, path, { auth: client.auth, body });
      const err = expectErrorBody(res, 402, { error: 'Payment Required', service: 'PublicApi', validation: true });
      expect(err.validation.errors, `${method} ${path}`).toHaveLength(1);
      const item = err.validation.errors[0];
      expect(Object.keys(item), `${method} ${path}`).toEqual(['message']);
      expect(item.message.startsWith('Account expired.'), item.message).toBe(true);
      expect(item.message.endsWith('/docs/errors'), item.message).toBe(true);
    }
    // Nothing was created while expired.
    const rows = await server.store.db.selectFrom('companies').select('id').where('client_id', '=', client.clientId).execute();
    expect(rows).toEqual([]);
  });

  it('still serves a free-trial account 364 days old', async () => {
    const client = await server.newClient({ plan: 'free-trial', createdAt: daysAgo(364) });
    for (const [method, path, body] of endpoints) {
      const res = await http(server, method, path, { auth: client.auth, body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
    }
  });

  it('never expires a standard account', async () => {
    const client = await server.newClient({ plan: 'standard', createdAt: daysAgo(400) });
    for (const [method, path, body] of endpoints) {
      const res = await http(server, method, path, { auth: client.auth, body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
    }
  });
});
