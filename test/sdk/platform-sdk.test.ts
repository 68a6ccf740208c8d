import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { ErrorMessage } from '@codat/platform/sdk/models/errors/index.js';
import { basicAuth, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';

/**
 * The official SDK (`@codat/platform` 6.x) as a real client: every call must succeed without a
 * ResponseValidationError / SDKError, and failures must come back as the SDK's typed ErrorMessage.
 * delete-api-key is not exercised: SDK 6.2.1 cannot accept a correct 204 there (facts §10).
 */

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let server: TestServer;
let client: TestClient;
let sdk: CodatPlatform;

function sdkFor(authHeader: string): CodatPlatform {
  return new CodatPlatform({ authHeader, serverURL: server.url, retryConfig: { strategy: 'none' } });
}

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient({ name: 'SDK client' });
  sdk = sdkFor(client.auth);
});
afterAll(() => server.close());

/** Awaits a call that must fail with the SDK's typed ErrorMessage; checks what a caller can read from it. */
async function expectErrorMessage(call: Promise<unknown>, status: number): Promise<ErrorMessage> {
  let caught: unknown;
  try {
    await call;
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected the call to fail with ${status}`).toBeDefined();
  if (!(caught instanceof ErrorMessage)) throw new Error(`expected a typed ErrorMessage, got ${String(caught)}`);
  expect(caught.statusCode).toBe(status);
  expect(caught.data$.statusCode).toBe(status);
  expect(caught.service).toBe('PublicApi');
  expect(typeof caught.error).toBe('string');
  expect(caught.correlationId).toMatch(GUID);
  expect(caught.rawResponse.headers.get('x-correlation-id')).toBe(caught.correlationId);
  expect(caught.contentType).toMatch(/^application\/json/);
  return caught;
}

describe('companies via @codat/platform', () => {
  it('create returns the Company, with forbidden characters stripped', async () => {
    const company = await sdk.companies.create({ name: 'SDK Create (Ltd[1])', description: 'made by the SDK', tags: { source: 'sdk' } });
    expect(company.id).toMatch(GUID);
    expect(company).toMatchObject({
      name: 'SDK Create Ltd1',
      description: 'made by the SDK',
      tags: { source: 'sdk' },
      products: [],
      dataConnections: [],
      referenceSubsidiaryCompanies: [],
      redirect: `${server.url}/link/company/${company.id}`,
    });
    expect(Date.parse(company.created!)).not.toBeNaN();
    const bare = await sdk.companies.create({ name: 'SDK Bare' });
    expect(bare.description).toBeUndefined();
    expect(bare.tags).toEqual({});
  });

  it('list without parameters returns the first page with links', async () => {
    const page = await sdk.companies.list();
    expect(page.pageNumber).toBe(1);
    expect(page.pageSize).toBe(100);
    expect(page.totalResults).toBe(page.results!.length);
    expect(page.results!.map((c) => c.name)).toEqual(expect.arrayContaining(['SDK Create Ltd1', 'SDK Bare']));
    expect(page.links.self.href).toBe('/companies');
    expect(page.links.current.href).toBe('/companies?page=1&pageSize=100');
    expect(page.links.next).toBeUndefined();
    expect(page.links.previous).toBeUndefined();
    expect((await sdk.companies.list({})).totalResults).toBe(page.totalResults);
  });

  it('list honours page, pageSize, query, orderBy and tags', async () => {
    for (const [name, team] of [
      ['Paged Alpha', 'red'],
      ['Paged Beta', 'blue'],
      ['Paged Gamma', 'red'],
    ]) {
      await sdk.companies.create({ name, tags: { team } });
    }
    const second = await sdk.companies.list({ page: 2, pageSize: 1, query: 'name~Paged', orderBy: '-name' });
    expect(second.pageNumber).toBe(2);
    expect(second.pageSize).toBe(1);
    expect(second.totalResults).toBe(3);
    expect(second.results!.map((c) => c.name)).toEqual(['Paged Beta']);
    expect(second.links.self.href).toBe('/companies');
    expect(second.links.next?.href).toBeDefined();
    expect(second.links.previous?.href).toBeDefined();

    const ascending = await sdk.companies.list({ query: 'name~Paged', orderBy: 'name' });
    expect(ascending.results!.map((c) => c.name)).toEqual(['Paged Alpha', 'Paged Beta', 'Paged Gamma']);

    const spaced = await sdk.companies.list({ query: 'name = Paged Gamma' });
    expect(spaced.results!.map((c) => c.name)).toEqual(['Paged Gamma']);

    const red = await sdk.companies.list({ tags: 'team=red', orderBy: 'name' });
    expect(red.results!.map((c) => c.name)).toEqual(['Paged Alpha', 'Paged Gamma']);

    const past = await sdk.companies.list({ page: 50, pageSize: 10, query: 'name~Paged' });
    expect(past.results).toEqual([]);
    expect(past.totalResults).toBe(3);
  });

  it('get, replace (PUT), update (PATCH) and delete a company', async () => {
    const created = await sdk.companies.create({ name: 'SDK Lifecycle', description: 'd', tags: { a: '1' } });
    expect(await sdk.companies.get({ companyId: created.id })).toEqual(created);

    const replaced = await sdk.companies.replace({ companyId: created.id, companyRequestBody: { name: 'SDK Replaced' } });
    expect(replaced).toMatchObject({ id: created.id, name: 'SDK Replaced', tags: {}, created: created.created });
    expect(replaced.description).toBeUndefined();

    const updated = await sdk.companies.update({
      companyId: created.id,
      companyUpdateRequest: { description: 'patched', tags: { b: '2' } },
    });
    expect(updated).toMatchObject({ id: created.id, name: 'SDK Replaced', description: 'patched', tags: { b: '2' } });

    const untouched = await sdk.companies.update({ companyId: created.id, companyUpdateRequest: {} });
    expect(untouched).toEqual(updated);

    await expect(sdk.companies.delete({ companyId: created.id })).resolves.toBeUndefined();
    await expectErrorMessage(sdk.companies.get({ companyId: created.id }), 404);
  });
});

describe('settings via @codat/platform', () => {
  it('listApiKeys and createApiKey', async () => {
    const before = await sdk.settings.listApiKeys();
    expect(before.results!.length).toBeGreaterThanOrEqual(1);
    for (const key of before.results!) {
      expect(key!.id).toMatch(GUID);
      expect(key!.apiKey).toBeUndefined();
    }

    const created = await sdk.settings.createApiKey({ name: 'sdk key' });
    expect(created.id).toMatch(GUID);
    expect(created.name).toBe('sdk key');
    expect(created.apiKey).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(Date.parse(created.createdDate!)).not.toBeNaN();

    const unnamed = await sdk.settings.createApiKey();
    expect(unnamed.name).toBeNull();
    const explicitNull = await sdk.settings.createApiKey({ name: null });
    expect(explicitNull.name).toBeNull();

    const after = await sdk.settings.listApiKeys();
    const listed = after.results!.find((k) => k!.id === created.id);
    expect(listed).toMatchObject({ id: created.id, name: 'sdk key', createdDate: created.createdDate });
    expect(listed!.apiKey).toBeUndefined();
    expect(after.results!.length).toBe(before.results!.length + 3);

    // The new key works with a fresh SDK instance.
    const other = sdkFor(basicAuth(created.apiKey!));
    expect((await other.settings.getProfile()).name).toBe('SDK client');
  });

  it('getProfile and updateProfile', async () => {
    const initial = await sdk.settings.getProfile();
    expect(initial).toMatchObject({ name: 'SDK client', redirectUrl: '' });

    const wanted = {
      name: 'SDK Profile',
      redirectUrl: 'https://example.com/done/{companyId}?status={statusCode}',
      logoUrl: 'https://example.com/logo.png',
      iconUrl: 'https://example.com/icon.png',
      whiteListUrls: ['https://example.com'],
    };
    const updated = await sdk.settings.updateProfile(wanted);
    expect(updated).toEqual(wanted);
    expect(await sdk.settings.getProfile()).toEqual(wanted);

    // The deprecated apiKey field is accepted but never stored or served.
    const withKey = await sdk.settings.updateProfile({ name: 'SDK Profile 2', redirectUrl: '', apiKey: 'ignored' });
    expect(withKey).toEqual({ name: 'SDK Profile 2', redirectUrl: '', whiteListUrls: [] });
  });
});

describe('integrations via @codat/platform', () => {
  it('list with and without parameters', async () => {
    const all = await sdk.integrations.list();
    expect(all.pageNumber).toBe(1);
    expect(all.pageSize).toBe(100);
    expect(all.totalResults).toBe(all.results!.length);
    expect(all.results!.length).toBeGreaterThanOrEqual(1);
    expect(all.links.self.href).toBe('/integrations');
    expect(all.results!.map((i) => i.key)).toContain('mqjo');
    for (const integration of all.results!) {
      expect(integration.key).toMatch(/^[a-z]{4}$/);
      expect(integration.logoUrl).toBe(`${server.url}/integrations/${integration.key}/logo.svg`);
      expect(typeof integration.enabled).toBe('boolean');
    }

    const accounting = await sdk.integrations.list({
      query: 'sourceType=Accounting&&enabled=true',
      orderBy: '-name',
      page: 1,
      pageSize: 1,
    });
    expect(accounting.pageSize).toBe(1);
    expect(accounting.results!.length).toBe(1);
    expect(accounting.results![0].sourceType).toBe('Accounting');
    expect(accounting.totalResults).toBe(all.results!.filter((i) => i.sourceType === 'Accounting' && i.enabled).length);

    const one = await sdk.integrations.list({ query: 'key=mqjo' });
    expect(one.results!.map((i) => i.key)).toEqual(['mqjo']);
  });

  it('get returns one integration', async () => {
    const integration = await sdk.integrations.get({ platformKey: 'mqjo' });
    expect(integration).toMatchObject({ key: 'mqjo', enabled: true, logoUrl: `${server.url}/integrations/mqjo/logo.svg` });
    expect(integration.integrationId).toMatch(GUID);
    expect(integration.datatypeFeatures!.length).toBeGreaterThan(0);
    for (const feature of integration.datatypeFeatures!) expect(feature.supportedFeatures.length).toBeGreaterThan(0);
    // The SDK reads `dataType`; Codat's schema requires `datatype`: both are served, equal.
    expect(integration.datatypeFeatures!.map((f) => f.dataType)).toContain('invoices');
    const raw = await fetch(`${server.url}/integrations/mqjo`, { headers: { authorization: client.auth } }).then((r) => r.json());
    for (const feature of raw.datatypeFeatures) expect(feature.datatype).toBe(feature.dataType);
  });
});

describe('errors come back as the typed ErrorMessage', () => {
  it('404 on an unknown company and an unknown integration', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const err = await expectErrorMessage(sdk.companies.get({ companyId: unknown }), 404);
    expect(err.error).toBe(`No company was found with ID ${unknown}`);
    await expectErrorMessage(sdk.companies.update({ companyId: unknown, companyUpdateRequest: { name: 'x' } }), 404);
    await expectErrorMessage(sdk.companies.delete({ companyId: unknown }), 404);
    await expectErrorMessage(sdk.integrations.get({ platformKey: 'zzzz' }), 404);
  });

  it('409 on the 11th API key', async () => {
    const limited = await server.newClient({ name: 'Key limit' });
    const limitedSdk = sdkFor(limited.auth);
    for (let held = (await limitedSdk.settings.listApiKeys()).results!.length; held < 10; held++) {
      await limitedSdk.settings.createApiKey({ name: `key ${held + 1}` });
    }
    expect((await limitedSdk.settings.listApiKeys()).results!.length).toBe(10);
    const err = await expectErrorMessage(limitedSdk.settings.createApiKey({ name: 'eleventh' }), 409);
    expect(err.error).toMatch(/10/);
    expect((await limitedSdk.settings.listApiKeys()).results!.length).toBe(10);
  });

  it('400 on a malformed query or orderBy, with validation details', async () => {
    const err = await expectErrorMessage(sdk.companies.list({ query: '{name=x' }), 400);
    expect(err.error).toBe('Error parsing query - Malformed query.');
    expect(err.validation?.errors?.[0]).toMatchObject({ itemId: 'query' });
    const unknownProperty = await expectErrorMessage(sdk.companies.list({ query: 'nope=1' }), 400);
    expect(unknownProperty.error).toMatch(/Could not resolve property nope/);
    const badOrder = await expectErrorMessage(sdk.integrations.list({ orderBy: 'name desc' }), 400);
    expect(badOrder.validation?.errors?.[0]).toMatchObject({ itemId: 'orderBy' });
  });

  it('401 for an unknown key and 403 for another client’s company', async () => {
    const stranger = sdkFor(basicAuth('NoSuchKey0000000000000000000000000000000'));
    const unauthorized = await expectErrorMessage(stranger.companies.list(), 401);
    expect(unauthorized.error).toBe('Unauthorized: send the API key as Authorization: Basic <base64(key)>');
    await expectErrorMessage(stranger.settings.getProfile(), 401);

    const other = await server.newClient({ name: 'Other' });
    const otherSdk = sdkFor(other.auth);
    const foreign = await otherSdk.companies.create({ name: 'Not yours' });
    const forbidden = await expectErrorMessage(sdk.companies.get({ companyId: foreign.id }), 403);
    expect(forbidden.error).toContain(foreign.id);
    await expectErrorMessage(sdk.companies.replace({ companyId: foreign.id, companyRequestBody: { name: 'Mine now' } }), 403);
    await expectErrorMessage(sdk.companies.delete({ companyId: foreign.id }), 403);
    expect((await otherSdk.companies.get({ companyId: foreign.id })).name).toBe('Not yours');
  });
});
