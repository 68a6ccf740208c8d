import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/schema.js';
import { http, startTestServer, type HttpResult, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';

/*
 * The query language through GET /companies?query=...&orderBy=... on the real server.
 *
 * Client A's companies (created in this order; dates set in the store):
 * | company       | description         | tags                      | created                  | lastSync                 |
 * | Acme Ltd      | Widgets and gadgets | region=uk, team=finance   | 2024-01-01T00:00:00.000Z | 2024-06-01T10:00:00.000Z |
 * | acme holdings | -                   | region=us, team=sales     | 2024-02-15T12:30:00.000Z | -                        |
 * | Beta && Sons  | 100% pure_water     | region=uk                 | 2023-12-31T23:30:00.000Z | 2024-01-01T00:00:00.000Z |
 * | O'Brien & Co  | 1000 pure-water     | -                         | 2022-06-30T08:00:00.000Z | -                        |
 * | Zeta          | back\slash          | team=Finance              | 2024-03-01T00:00:00.000Z | 2024-03-01T00:00:00.000Z |
 */

/*
 * The service named in query errors. The facts (section 3) show `ClientsApi` for a malformed query on
 * Codat; Ledgerport answers as its public API component everywhere (see the report).
 */
const QUERY_ERROR_SERVICE = 'PublicApi';
const MALFORMED = 'Error parsing query - Malformed query.';

const COMPANIES: { name: string; description?: string; tags?: Record<string, string>; created: string; lastSync: string | null }[] = [
  {
    name: 'Acme Ltd',
    description: 'Widgets and gadgets',
    tags: { region: 'uk', team: 'finance' },
    created: '2024-01-01T00:00:00.000Z',
    lastSync: '2024-06-01T10:00:00.000Z',
  },
  { name: 'acme holdings', tags: { region: 'us', team: 'sales' }, created: '2024-02-15T12:30:00.000Z', lastSync: null },
  {
    name: 'Beta && Sons',
    description: '100% pure_water',
    tags: { region: 'uk' },
    created: '2023-12-31T23:30:00.000Z',
    lastSync: '2024-01-01T00:00:00.000Z',
  },
  { name: "O'Brien & Co", description: '1000 pure-water', created: '2022-06-30T08:00:00.000Z', lastSync: null },
  {
    name: 'Zeta',
    description: 'back\\slash',
    tags: { team: 'Finance' },
    created: '2024-03-01T00:00:00.000Z',
    lastSync: '2024-03-01T00:00:00.000Z',
  },
];
const ALL = COMPANIES.map((c) => c.name);
const ACME = 'Acme Ltd';
const HOLDINGS = 'acme holdings';
const BETA = 'Beta && Sons';
const OBRIEN = "O'Brien & Co";
const ZETA = 'Zeta';

let server: TestServer;
let db: Kysely<Database>;
let clientA: TestClient;
let clientB: TestClient;
const idsByName = new Map<string, string>();

async function bumpCompaniesVersion(trx: Kysely<Database>, clientId: string): Promise<void> {
  // What every write to a client's companies does in the same transaction: it keys the count cache.
  await trx
    .updateTable('clients')
    .set((eb) => ({ companies_version: eb('companies_version', '+', 1) }))
    .where('id', '=', clientId)
    .execute();
}

async function createCompany(
  client: TestClient,
  body: { name: string; description?: string; tags?: Record<string, string> },
): Promise<string> {
  const res = await http(server, 'POST', '/companies', { auth: client.auth, body });
  expect(res.status, res.text).toBe(200);
  return res.body.id;
}

beforeAll(async () => {
  server = await startTestServer();
  db = server.store.db;
  clientA = await server.newClient();
  clientB = await server.newClient();
  for (const { name, description, tags, created, lastSync } of COMPANIES) {
    const id = await createCompany(clientA, { name, description, tags });
    idsByName.set(name, id);
    const row = await db.selectFrom('companies').select('doc').where('id', '=', id).executeTakeFirstOrThrow();
    const doc = { ...JSON.parse(row.doc), created };
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('companies')
        .set({ created, last_sync: lastSync, doc: JSON.stringify(doc) })
        .where('id', '=', id)
        .execute();
      await bumpCompaniesVersion(trx, clientA.clientId);
    });
  }
  // Another client's companies, which no query of client A may reach.
  await createCompany(clientB, { name: 'Acme Ltd', tags: { region: 'uk' } });
  await createCompany(clientB, { name: 'Other client', description: '100% pure_water' });
});
afterAll(() => server?.close());

function list(client: TestClient, params: Record<string, string | number>): Promise<HttpResult> {
  const qs = Object.entries(params)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return http(server, 'GET', `/companies?${qs}`, { auth: client.auth });
}

/** Names of client A's companies matching `query`, sorted; also checks that totalResults counts them. */
async function names(query: string, client = clientA): Promise<string[]> {
  const res = await list(client, { query });
  expect(res.status, `${query}: ${res.text}`).toBe(200);
  expect(res.body.totalResults).toBe(res.body.results.length);
  return res.body.results.map((c: { name: string }) => c.name).sort();
}

/** Names in the order served, for orderBy. */
async function orderedNames(params: Record<string, string | number>): Promise<string[]> {
  const res = await list(clientA, params);
  expect(res.status, res.text).toBe(200);
  return res.body.results.map((c: { name: string }) => c.name);
}

const sorted = (...list: string[]) => [...list].sort();

/** Asserts the 400 body of a query error, with its one validation item for `itemId`. */
async function expectQueryError(params: Record<string, string | number>, error: string, itemId = 'query') {
  const res = await list(clientA, params);
  const body = expectErrorBody(res, 400, { error, validation: true, service: QUERY_ERROR_SERVICE });
  expect(body.validation.errors).toHaveLength(1);
  expect(body.validation.errors[0]).toMatchObject({
    itemId,
    validatorName: itemId === 'orderBy' ? 'OrderByParser' : 'QueryParser',
  });
  // The item's message is the error's detail, then the documentation reference.
  expect(body.validation.errors[0].message.startsWith(error.replace(/^Error parsing \w+ - /, ''))).toBe(true);
  return body;
}

describe('GET /companies?query=', () => {
  it('returns every company of the caller without a query (fixture check)', async () => {
    const res = await list(clientA, {});
    expect(res.status).toBe(200);
    expect(res.body.totalResults).toBe(COMPANIES.length);
    expect(res.body.results.map((c: { name: string }) => c.name)).toEqual(ALL);
  });

  describe('strings', () => {
    it.each([
      ['name=Acme Ltd', [ACME]],
      ['name=ACME LTD', [ACME]],
      ['name = acme ltd', [ACME]],
      ['name=acme', []],
      ['name!=acme ltd', sorted(HOLDINGS, BETA, OBRIEN, ZETA)],
      ['name~ACME', sorted(ACME, HOLDINGS)],
      ['name~ & ', sorted(BETA, OBRIEN)],
      ["name=o'brien & co", [OBRIEN]],
      ['description~WIDGETS', [ACME]],
      ['description~pure', sorted(BETA, OBRIEN)],
      // A company without a description is "not equal".
      ['description!=widgets and gadgets', sorted(HOLDINGS, BETA, OBRIEN, ZETA)],
      [`id=${'00000000-0000-4000-8000-000000000000'}`, []],
    ])('%s', async (query, expected) => {
      expect(await names(query)).toEqual(expected);
    });

    it('finds one company by id (single-record lookup)', async () => {
      expect(await names(`id=${idsByName.get(ZETA)}`)).toEqual([ZETA]);
    });

    it.each([
      ['description~%', [BETA]],
      ['description~0%', [BETA]],
      ['description~_', [BETA]],
      ['description~pure_water', [BETA]],
      ['description~\\', [ZETA]],
    ])('matches LIKE wildcards literally: %s', async (query, expected) => {
      expect(await names(query)).toEqual(expected);
    });

    it.each([
      ['name="Beta && Sons"', [BETA]],
      ["name='Beta && Sons' || name=zeta", sorted(BETA, ZETA)],
      ['name~"&&"', [BETA]],
    ])('matches quoted values containing &&: %s', async (query, expected) => {
      expect(await names(query)).toEqual(expected);
    });

    it.each(['>', '<', '>=', '<='])('rejects %s on a string with 400', async (op) => {
      await expectQueryError(
        { query: `name${op}acme` },
        `Error parsing query - Operator ${op} cannot be applied to property name of type string`,
      );
    });
  });

  describe('tags (dotted properties)', () => {
    it.each([
      ['tags.region=uk', sorted(ACME, BETA)],
      ['tags.region=UK', sorted(ACME, BETA)],
      ['tags.team=finance', sorted(ACME, ZETA)],
      // Companies without the tag are "not equal" too.
      ['tags.team!=finance', sorted(HOLDINGS, BETA, OBRIEN)],
      ['tags.team~ale', [HOLDINGS]],
      ['tags.region = uk && tags.team = finance', [ACME]],
    ])('%s', async (query, expected) => {
      expect(await names(query)).toEqual(expected);
    });

    it('combines with the tags parameter', async () => {
      const res = await list(clientA, { tags: 'region=uk', query: 'name~acme' });
      expect(res.status).toBe(200);
      expect(res.body.results.map((c: { name: string }) => c.name)).toEqual([ACME]);
      expect(res.body.totalResults).toBe(1);
    });
  });

  describe('dates', () => {
    it.each([
      ['created=2024-01-01', [ACME]],
      ['created>2024-01-01', sorted(HOLDINGS, ZETA)],
      ['created>=2024-01-01', sorted(ACME, HOLDINGS, ZETA)],
      ['created<2024-01-01', sorted(BETA, OBRIEN)],
      ['created <= 2023-12-31T23:30:00Z', sorted(BETA, OBRIEN)],
      ['created!=2024-01-01', sorted(HOLDINGS, BETA, OBRIEN, ZETA)],
      ['created=2024-01-01T00:00:00Z', [ACME]],
      ['created=2024-01-01T01:00:00+01:00', [ACME]],
      ['created=2023-12-31T18:30:00-05:00', [BETA]],
      // The offset moves the bound before Beta's 23:30Z.
      ['created>=2024-01-01T00:30:00+01:00', sorted(ACME, HOLDINGS, BETA, ZETA)],
      ['created>=2024-01-01T00:30:00Z', sorted(HOLDINGS, ZETA)],
      ['lastSync>=2024-03-01', sorted(ACME, ZETA)],
      ['lastSync<2024-03-01', [BETA]],
      // Companies never synced are "not equal".
      ['lastSync!=2024-03-01T00:00:00Z', sorted(ACME, HOLDINGS, BETA, OBRIEN)],
    ])('%s', async (query, expected) => {
      expect(await names(query)).toEqual(expected);
    });

    it('rejects ~ on a date, and values that are not dates, with 400', async () => {
      await expectQueryError(
        { query: 'created~2024' },
        'Error parsing query - Operator ~ cannot be applied to property created of type date',
      );
      await expectQueryError({ query: 'created>yesterday' }, 'Error parsing query - Value yesterday is not a date for property created');
      await expectQueryError(
        { query: 'lastSync=2023-02-29' },
        'Error parsing query - Value 2023-02-29 is not a date for property lastSync',
      );
    });
  });

  describe('&&, || and grouping', () => {
    it.each([
      ['name~acme && tags.region=uk', [ACME]],
      ['name~acme || tags.region=uk', sorted(ACME, HOLDINGS, BETA)],
      ['name~acme||tags.region=uk', sorted(ACME, HOLDINGS, BETA)],
      // a || b && c is a || (b && c); read left to right it would be only acme holdings.
      ['name=Zeta || name~acme && tags.region=us', sorted(ZETA, HOLDINGS)],
      ['{name=Zeta || name~acme} && tags.region=us', [HOLDINGS]],
      ['{created > 2024-01-01 || created < 2023-01-01} && name != zeta', sorted(HOLDINGS, OBRIEN)],
      ['{{tags.region=uk && {description~pure || name~acme}} || {tags.team=finance && created>2024-02-01}}', sorted(ACME, BETA, ZETA)],
      ['{{{name=zeta}}}', [ZETA]],
    ])('%s', async (query, expected) => {
      expect(await names(query)).toEqual(expected);
    });

    it("never reaches another client's companies, even through ||", async () => {
      expect(await names('name~acme || name!=acme')).toEqual(sorted(...ALL));
      expect(await names('description~pure_water || tags.region=uk')).toEqual(sorted(ACME, BETA));
      expect(await names('name=acme ltd', clientB)).toEqual([ACME]);
    });
  });

  describe('malformed queries', () => {
    it.each([
      ['=acme', 'empty property'],
      ['name', 'no operator'],
      ['name acme', 'no operator, two words'],
      ['name=', 'no value'],
      ['name=   ', 'blank value'],
      [' ', 'blank query'],
      ['{name=acme', 'unbalanced {'],
      ['name=acme}', 'unbalanced }'],
      ['{{name=acme}', 'unbalanced nested {'],
      ['}', 'a lone }'],
      ['{}', 'an empty group'],
      ['name=acme &&', 'trailing &&'],
      ['name=acme ||', 'trailing ||'],
      ['|| name=acme', 'leading ||'],
      ['name=acme && && name=x', 'doubled &&'],
      ['name="acme', 'unterminated quote'],
      ['name="acme" ltd', 'text after a quoted value'],
      ['name) OR (1=1', 'SQL in the property'],
      ["tags.region'='uk", 'quote in the property'],
      ['tags.a-b=1', 'hyphen in the property'],
    ])('%j is 400 Malformed query (%s)', async (query) => {
      await expectQueryError({ query }, MALFORMED);
    });

    it('groups nested deeper than 32 are 400 naming the limit', async () => {
      await expectQueryError(
        { query: `${'{'.repeat(40)}name=x${'}'.repeat(40)}` },
        'Error parsing query - Query groups ({ }) must not nest deeper than 32 levels.',
      );
    });
  });

  describe('properties that cannot be queried', () => {
    it.each([
      'nope',
      'products',
      'products.x',
      'dataConnections',
      'dataConnections.status.x',
      'dataConnections.nope',
      'referenceSubsidiaryCompanies',
      'referenceSubsidiaryCompanies.name',
      'redirect',
      'tags',
      'tags.region.x',
      'name.first',
      'constructor',
      '__proto__',
      'toString',
      'dataConnections.constructor',
      'dataConnections.__proto__',
    ])('%s is 400 Could not resolve property', async (property) => {
      await expectQueryError({ query: `${property}=x` }, `Error parsing query - Could not resolve property ${property} on Company`);
    });
  });

  describe('query length', () => {
    it('accepts 2047 characters and rejects 2048 or more with 400', async () => {
      const longest = `name~${'a'.repeat(2042)}`;
      expect(longest).toHaveLength(2047);
      expect(await names(longest)).toEqual([]);
      await expectQueryError({ query: `${longest}a` }, 'Error parsing query - Query must be under 2048 characters.');
      await expectQueryError({ query: `name~${'a'.repeat(6000)}` }, 'Error parsing query - Query must be under 2048 characters.');
    });

    it('runs a long query of many terms', async () => {
      let query = '';
      while (query.length + 'name=nobody||'.length + 'name=zeta'.length < 2048) query += 'name=nobody||';
      query += 'name=zeta';
      expect(query.length).toBeGreaterThan(2030);
      expect(await names(query)).toEqual([ZETA]);
    });
  });

  describe('SQL injection', () => {
    it.each([
      "name=x' OR '1'='1",
      'name=x; DROP TABLE companies',
      "name=acme ltd'; DELETE FROM companies; --",
      'name=acme ltd) OR (1=1',
      "name~%' OR 1=1 --",
      "tags.region=uk' OR client_id IS NOT NULL OR 'a'='a",
    ])('%s matches nothing and changes nothing', async (query) => {
      expect(await names(query)).toEqual([]);
    });

    it('leaves every company in place afterwards', async () => {
      for (const query of ['name=x; DROP TABLE companies', "name=x'; DELETE FROM companies; --"]) {
        expect(await names(query)).toEqual([]);
      }
      expect(await names('name!=nobody')).toEqual(sorted(...ALL));
      const { n } = await db
        .selectFrom('companies')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(n)).toBe(COMPANIES.length + 2);
    });
  });
});

describe('GET /companies?orderBy=', () => {
  it.each([
    [{ orderBy: 'created' }, [OBRIEN, BETA, ACME, HOLDINGS, ZETA]],
    [{ orderBy: '-created' }, [ZETA, HOLDINGS, ACME, BETA, OBRIEN]],
    // Never-synced companies sort as the smallest, in creation order among themselves.
    [{ orderBy: 'lastSync' }, [HOLDINGS, OBRIEN, BETA, ZETA, ACME]],
    [{ orderBy: '-lastSync' }, [ACME, ZETA, BETA, HOLDINGS, OBRIEN]],
    [{ orderBy: 'name', query: 'name!=acme holdings' }, [ACME, BETA, OBRIEN, ZETA]],
    [{ orderBy: '-name', query: 'name!=acme holdings' }, [ZETA, OBRIEN, BETA, ACME]],
    [{ orderBy: '-created', query: 'tags.region=uk || tags.team=finance' }, [ZETA, ACME, BETA]],
  ])('%j', async (params, expected) => {
    expect(await orderedNames(params)).toEqual(expected);
  });

  it('pages through a filtered, ordered list, with totalResults counting only the matches', async () => {
    const params = { query: 'created>=2023-01-01', orderBy: '-created', pageSize: 2 };
    const first = await list(clientA, { ...params, page: 1 });
    expect(first.status).toBe(200);
    expect(first.body.results.map((c: { name: string }) => c.name)).toEqual([ZETA, HOLDINGS]);
    expect(first.body.totalResults).toBe(4);
    expect(first.body._links.next).toBeDefined();
    const second = await http(server, 'GET', first.body._links.next.href, { auth: clientA.auth });
    expect(second.status).toBe(200);
    expect(second.body.results.map((c: { name: string }) => c.name)).toEqual([ACME, BETA]);
    expect(second.body.totalResults).toBe(4);
    expect(second.body._links.next).toBeUndefined();
    const past = await list(clientA, { ...params, page: 3 });
    expect(past.body.results).toEqual([]);
    expect(past.body.totalResults).toBe(4);
  });

  it.each([
    ['nope', 'Error parsing orderBy - Could not resolve property nope on Company'],
    ['products', 'Error parsing orderBy - Could not resolve property products on Company'],
    ['-dataConnections', 'Error parsing orderBy - Could not resolve property dataConnections on Company'],
    ['constructor', 'Error parsing orderBy - Could not resolve property constructor on Company'],
    ['name desc', 'Error parsing orderBy - Malformed orderBy.'],
    ['-', 'Error parsing orderBy - Malformed orderBy.'],
    ['name; DROP TABLE companies', 'Error parsing orderBy - Malformed orderBy.'],
    ['dataConnections.status', 'Error parsing orderBy - Cannot order by property dataConnections.status'],
  ])('orderBy=%j is 400 with itemId orderBy', async (orderBy, error) => {
    await expectQueryError({ orderBy }, error, 'orderBy');
  });

  it('reports a bad query before a bad orderBy', async () => {
    await expectQueryError({ query: 'nope=1', orderBy: 'nope' }, 'Error parsing query - Could not resolve property nope on Company');
  });
});

describe('totalResults', () => {
  it('counts only matching rows, and follows companies created and deleted', async () => {
    const client = await server.newClient();
    await createCompany(client, { name: 'Count one', tags: { kind: 'match' } });
    await createCompany(client, { name: 'Count two', tags: { kind: 'match' } });
    await createCompany(client, { name: 'Count three', tags: { kind: 'other' } });
    const count = async (query: string) => {
      const res = await list(client, { query, pageSize: 1 });
      expect(res.status).toBe(200);
      expect(res.body.results).toHaveLength(Math.min(1, res.body.totalResults));
      return res.body.totalResults;
    };
    expect(await count('tags.kind=match')).toBe(2);
    expect(await count('tags.kind!=match')).toBe(1);
    const added = await createCompany(client, { name: 'Count four', tags: { kind: 'match' } });
    expect(await count('tags.kind=match')).toBe(3);
    expect((await http(server, 'DELETE', `/companies/${added}`, { auth: client.auth })).status).toBe(204);
    expect(await count('tags.kind=match')).toBe(2);
  });
});

describe('dataConnections', () => {
  let client: TestClient;
  const company = new Map<string, string>();

  async function addConnection(companyName: string, c: { status: string; sourceType: string; platformKey: string; created: string }) {
    const id = randomUUID();
    const doc = {
      id,
      integrationId: randomUUID(),
      integrationKey: c.platformKey,
      sourceId: randomUUID(),
      sourceType: c.sourceType,
      platformName: 'Test platform',
      linkUrl: `${server.url}/link/${id}`,
      status: c.status,
      created: c.created,
    };
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('connections')
        .values({
          id,
          client_id: client.clientId,
          company_id: company.get(companyName)!,
          platform_key: c.platformKey,
          source_type: c.sourceType,
          status: c.status,
          created: c.created,
          doc: JSON.stringify(doc),
        })
        .execute();
      await bumpCompaniesVersion(trx, client.clientId);
    });
    return id;
  }

  beforeAll(async () => {
    client = await server.newClient();
    for (const name of ['Pending co', 'Linked co', 'Mixed co', 'Bare co']) company.set(name, await createCompany(client, { name }));
  });

  it('compiles dataConnections.status and matches nothing while no company has connections', async () => {
    expect(await names('dataConnections.status=PendingAuth', client)).toEqual([]);
    expect(await names('dataConnections.sourceType=Accounting', client)).toEqual([]);
  });

  it('matches companies with at least one such connection', async () => {
    await addConnection('Pending co', {
      status: 'PendingAuth',
      sourceType: 'Accounting',
      platformKey: 'gbol',
      created: '2024-01-01T00:00:00.000Z',
    });
    const linked = await addConnection('Linked co', {
      status: 'Linked',
      sourceType: 'Banking',
      platformKey: 'zqjo',
      created: '2024-02-01T00:00:00.000Z',
    });
    await addConnection('Mixed co', {
      status: 'Linked',
      sourceType: 'Accounting',
      platformKey: 'gbol',
      created: '2024-03-01T00:00:00.000Z',
    });
    await addConnection('Mixed co', {
      status: 'Deauthorized',
      sourceType: 'Commerce',
      platformKey: 'mqjo',
      created: '2024-04-01T00:00:00.000Z',
    });

    // The same query as before the connections existed: its cached count must not be reused.
    expect(await names('dataConnections.status=PendingAuth', client)).toEqual(['Pending co']);
    expect(await names('dataConnections.status=pendingauth', client)).toEqual(['Pending co']);
    expect(await names('dataConnections.status=LINKED', client)).toEqual(['Linked co', 'Mixed co']);
    expect(await names('dataConnections.status~auth', client)).toEqual(['Mixed co', 'Pending co']);
    expect(await names('dataConnections.status!=Linked', client)).toEqual(['Mixed co', 'Pending co']);
    expect(await names('dataConnections.sourceType=accounting', client)).toEqual(['Mixed co', 'Pending co']);
    expect(await names('dataConnections.integrationKey=gbol', client)).toEqual(['Mixed co', 'Pending co']);
    expect(await names('dataConnections.created>2024-02-15', client)).toEqual(['Mixed co']);
    expect(await names(`dataConnections.id=${linked}`, client)).toEqual(['Linked co']);
    // Both conditions on one company, met by different connections.
    expect(await names('dataConnections.status=Deauthorized && dataConnections.integrationKey=gbol', client)).toEqual(['Mixed co']);
    expect(await names('dataConnections.status=Linked || name=bare co', client)).toEqual(['Bare co', 'Linked co', 'Mixed co']);

    const res = await list(client, { query: 'dataConnections.status=Linked && dataConnections.sourceType=Banking' });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1);
    expect(res.body.results[0].dataConnections).toEqual([expect.objectContaining({ id: linked, status: 'Linked', sourceType: 'Banking' })]);
  });

  it('rejects ordering operators on the connection status with 400', async () => {
    await expectQueryError(
      { query: 'dataConnections.status>Linked' },
      'Error parsing query - Operator > cannot be applied to property dataConnections.status of type enum',
    );
    await expectQueryError(
      { query: 'dataConnections.integrationKey<gbol' },
      'Error parsing query - Operator < cannot be applied to property dataConnections.integrationKey of type string',
    );
  });
});
