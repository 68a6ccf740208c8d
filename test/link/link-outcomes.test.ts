import { deletionOfOwned } from '../../src/app.js';
import { queueFirstSyncsOf } from '../../src/syncs/first-link.js';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsService } from '../../src/access/clients.service.js';
import { createClientsStore, type Client } from '../../src/clients/clients.store.js';
import { createCompaniesService } from '../../src/companies/companies.service.js';
import { createConnectionsService } from '../../src/connections/connections.service.js';
import { PLATFORMS } from '../../src/connectors/registry.js';
import { createJobEngine } from '../../src/jobs/job-engine.js';
import { registerLinkRoutes } from '../../src/link/link.routes.js';
import { fillPlaceholders, redirectTarget, reservedValues, LINK_OUTCOMES } from '../../src/link/redirect.js';
import { customParamsFromUrl } from '../../src/link/custom-params.js';
import { createListContext } from '../../src/query/list-engine.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';

describe('redirect placeholders', () => {
  const facts = {
    clientId: 'c1',
    companyId: 'co1',
    companyName: 'A & B',
    connectionId: 'cn1',
    integrationId: 'i1',
    sourceId: 's1',
    platformKey: 'bsbx',
    platformName: 'Banking Sandbox',
    sourceType: 'Banking',
    statusCode: 500 as const,
  };

  it('fills reserved values (URL-encoded), custom values, and empties unknown or wrongly-cased names', () => {
    const reserved = reservedValues(facts);
    expect(reserved).toMatchObject({
      sourceType: 'banking',
      statusCode: '500',
      errorMessage: 'Unknown error occurred.',
      statusText: 'Internal Server Error',
    });
    const url = fillPlaceholders(
      'x/{platformName}/{data.company.companyName}/{mine}/{Mine}/{}/{sourceType}',
      reserved,
      new Map([['mine', '1/2']]),
    );
    expect(url).toBe('x/Banking%20Sandbox/A%20%26%20B/1%2F2///banking');
  });

  it('lets reserved names win over custom ones of the same name', () => {
    const custom = customParamsFromUrl('/link/company/x?companyId=evil&statusCode=999&ok=1');
    expect([...custom]).toEqual([['ok', '1']]);
    expect(fillPlaceholders('{companyId}', reservedValues(facts), new Map([['companyId', 'evil']]))).toBe('co1');
  });

  it('has the documented outcomes', () => {
    expect(LINK_OUTCOMES[403].errorMessage).toBe('User cancelled.');
    expect(LINK_OUTCOMES[500].errorMessage).toBe('Unknown error occurred.');
    expect(LINK_OUTCOMES[501].errorMessage).toBe('Not supported.');
    expect(LINK_OUTCOMES[200].errorMessage).toBe('');
    expect(LINK_OUTCOMES[201].errorMessage).toBe('');
  });

  it('only ever yields an http(s) address built from the profile template', () => {
    const reserved = reservedValues(facts);
    const none = new Map<string, string>();
    expect(redirectTarget({ redirectUrl: '' }, reserved, none)).toBeUndefined();
    expect(redirectTarget({ redirectUrl: 'javascript:alert(1)//{companyId}' }, reserved, none)).toBeUndefined();
    expect(redirectTarget({ redirectUrl: '{x}://evil.example' }, reserved, new Map([['x', 'https']]))).toBeUndefined();
    expect(redirectTarget({ redirectUrl: 'https://a.example/{p}' }, reserved, new Map([['p', '//evil.example']]))).toBe(
      'https://a.example/%2F%2Fevil.example',
    );
    expect(redirectTarget({ redirectUrl: 'https://a.example{p}' }, reserved, new Map([['p', '@evil.example']]))).toBeUndefined();
    expect(redirectTarget({ redirectUrl: 'https://x.{cc}/{companyId}' }, reserved, new Map([['cc', 'evil.com']]))).toBeUndefined();
    expect(
      redirectTarget(
        { redirectUrl: 'https://x.{cc}/{companyId}', whiteListUrls: ['https://x.co.uk/'] },
        reserved,
        new Map([['cc', 'co.uk']]),
      ),
    ).toBe('https://x.co.uk/co1');
    expect(redirectTarget({ redirectUrl: 'https://{platform}.example.com/' }, reserved, none)).toBe('https://bsbx.example.com/');
  });
});

describe('Link outcomes the public API cannot provoke', () => {
  let testStore: TestStore;
  let app: FastifyInstance;
  let client: Client;
  let companyId: string;
  let connectionId: string;

  beforeAll(async () => {
    testStore = await createTestStore();
    const { db, dialect } = testStore.store;
    const lists = createListContext(db, dialect);
    const publicUrl = () => 'http://link.test';
    const jobs = await createJobEngine(testStore.store, { log: { error() {}, warn() {}, info() {}, debug() {} } });
    const deleteOwned = deletionOfOwned(jobs);
    const companies = createCompaniesService({ db, dialect, lists, jobs, deleteOwned, publicUrl });
    const deps = {
      db,
      dialect,
      lists,
      jobs,
      wakeJobs: () => {},
      companies,
      deleteOwned,
      queueFirstSyncs: queueFirstSyncsOf(jobs),
      publicUrl,
    };
    const real = createConnectionsService(deps);
    const failing = {
      ...real,
      authorize: async () => {
        throw new Error('platform exploded');
      },
    };
    app = Fastify({ logger: false });
    registerLinkRoutes(app, { ...deps, clients: createClientsStore(db), connections: failing });
    await app.ready();

    client = (await createClientsService({ db }).create({ name: 'Outcomes', plan: 'standard' })).client;
    await createClientsStore(db).setProfile(
      client.id,
      JSON.stringify({ name: 'Outcomes', redirectUrl: 'https://app.example.com/?code={statusCode}&err={errorMessage}&t={statusText}' }),
    );
    companyId = JSON.parse(await companies.create(client, { name: 'Boom Ltd' })).id;
    const banking = PLATFORMS.find((p) => p.sourceType === 'Banking')!;
    connectionId = JSON.parse(await real.create(client, companyId, banking.key)).id;
  });
  afterAll(async () => {
    await app?.close();
    await testStore?.destroy();
  });

  it('redirects with 500 "Unknown error occurred." when authorisation fails unexpectedly', async () => {
    const res = await app.inject({
      method: 'POST',
      url: `/link/companies/${companyId}/connections/${connectionId}/start`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'action=connect&size=small',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('https://app.example.com/?code=500&err=Unknown%20error%20occurred.&t=Internal%20Server%20Error');
  });

  it('renders unexpected failures of its own as an HTML page, not JSON', async () => {
    const res = await app.inject({
      method: 'POST',
      url: `/link/company/${companyId}/connections`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'x'.repeat(64 * 1024),
    });
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<main id="main">');
  });
});
