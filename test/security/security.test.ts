import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { basicAuth, http, startTestServer, type HttpResult, type TestClient } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { createClientsService } from '../../src/access/clients.service.js';
import { companyWithConnection } from '../helpers/sandbox.js';
import {
  firstIdOf,
  linkPlatforms,
  platformFor,
  prepared,
  SANDBOX_PLATFORMS,
  STATEMENT_FILE,
  STATEMENT_PLATFORM,
  statementFixture,
  uploadedAccount,
} from './fixtures.js';
import { statementSample, uploadFiles } from '../helpers/uploads.js';

/**
 * The shared security suite. Endpoints are enumerated from the server's own OpenAPI document, so every
 * authenticated endpoint added later is covered without editing this file.
 */

type JsonSchema = Record<string, any>;
interface OpenApiDoc {
  paths: Record<string, Record<string, any>>;
  security?: unknown[];
  components?: { schemas?: Record<string, JsonSchema> };
}
interface Endpoint {
  method: string;
  /** The OpenAPI path template, e.g. `/companies/{companyId}`. */
  template: string;
  operationId?: string;
  /** Path parameter names, in order. */
  pathParams: string[];
  /** Required query parameters and their schemas. */
  requiredQuery: { name: string; schema: JsonSchema }[];
  /** The request body's schema, when the operation takes one. */
  bodySchema?: JsonSchema;
  /** A plausible JSON body generated from that schema, before the fixture's ids are filled in (see `bodyFor`). */
  body?: unknown;
  /** The 2xx codes the document declares. */
  successCodes: number[];
}

/** Data-set lists readable per company (`/companies/{companyId}/data/<segment>`), each with its `/{recordId}`. */
const COMPANY_DATA_LISTS = [
  'accounts',
  'invoices',
  'bills',
  'billPayments',
  'billCreditNotes',
  'creditNotes',
  'customers',
  'suppliers',
  'items',
  'itemReceipts',
  'taxRates',
  'trackingCategories',
  'journalEntries',
  'journals',
  'payments',
  'paymentMethods',
  'purchaseOrders',
  'salesOrders',
  'banking-transactions',
];
/** Data-set lists readable per connection (`.../connections/{connectionId}/data/<segment>`), each with its `/{recordId}`. */
const CONNECTION_DATA_LISTS = [
  'bankAccounts',
  'accountTransactions',
  'directCosts',
  'directIncomes',
  'transfers',
  'banking-accounts',
  'banking-accountBalances',
  'banking-transactions',
  'banking-transactionCategories',
  'commerce-customers',
  'commerce-disputes',
  'commerce-locations',
  'commerce-orders',
  'commerce-payments',
  'commerce-paymentMethods',
  'commerce-products',
  'commerce-productCategories',
  'commerce-taxComponents',
  'commerce-transactions',
];
const COMPANY_DATA = '/companies/{companyId}/data';
const CONNECTION_DATA = '/companies/{companyId}/connections/{connectionId}/data';

/** Endpoints that exist today; the enumeration must find at least these. */
const KNOWN_ENDPOINTS = [
  'GET /companies',
  'POST /companies',
  'GET /companies/{companyId}',
  'PUT /companies/{companyId}',
  'PATCH /companies/{companyId}',
  'DELETE /companies/{companyId}',
  'GET /profile',
  'PUT /profile',
  'GET /apiKeys',
  'POST /apiKeys',
  'DELETE /apiKeys/{apiKeyId}',
  'GET /integrations',
  'GET /integrations/{platformKey}',
  // Connections
  'GET /companies/{companyId}/connections',
  'POST /companies/{companyId}/connections',
  'GET /companies/{companyId}/connections/{connectionId}',
  'DELETE /companies/{companyId}/connections/{connectionId}',
  'PATCH /companies/{companyId}/connections/{connectionId}',
  'PUT /companies/{companyId}/connections/{connectionId}/authorization',
  // Syncs
  'POST /companies/{companyId}/data/all',
  'POST /companies/{companyId}/data/queue/{dataType}',
  'GET /companies/{companyId}/dataStatus',
  'GET /companies/{companyId}/data/history',
  'GET /companies/{companyId}/data/history/{datasetId}',
  // Sync settings
  'GET /profile/syncSettings',
  'POST /profile/syncSettings',
  'GET /companies/{companyId}/syncSettings',
  'POST /companies/{companyId}/syncSettings',
  // Data sets
  ...COMPANY_DATA_LISTS.flatMap((s) => [`GET ${COMPANY_DATA}/${s}`, `GET ${COMPANY_DATA}/${s}/{recordId}`]),
  `GET ${COMPANY_DATA}/info`,
  ...['balanceSheet', 'profitAndLoss', 'cashFlowStatement'].map((s) => `GET ${COMPANY_DATA}/financials/${s}`),
  ...CONNECTION_DATA_LISTS.flatMap((s) => [`GET ${CONNECTION_DATA}/${s}`, `GET ${CONNECTION_DATA}/${s}/{recordId}`]),
  `GET ${CONNECTION_DATA}/commerce-info`,
  `GET ${CONNECTION_DATA}/bankAccounts/{accountId}/bankTransactions`,
  // Writes
  'POST /companies/{companyId}/connections/{connectionId}/push/{dataType}',
  'PUT /companies/{companyId}/connections/{connectionId}/push/{dataType}/{recordId}',
  'DELETE /companies/{companyId}/connections/{connectionId}/push/{dataType}/{recordId}',
  'GET /companies/{companyId}/push',
  'GET /companies/{companyId}/push/{pushOperationKey}',
  'GET /companies/{companyId}/connections/{connectionId}/options/{dataType}',
  'POST /companies/{companyId}/connections/{connectionId}/push/accounts',
  'POST /companies/{companyId}/connections/{connectionId}/push/bankAccounts/{accountId}/bankTransactions',
  'GET /companies/{companyId}/connections/{connectionId}/options/bankAccounts/{accountId}/bankTransactions',
  'POST /companies/{companyId}/data/info',
  // Webhook consumers
  'GET /webhooks',
  'POST /webhooks',
  'DELETE /webhooks/{webhookId}',
];

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'patch', 'trace'];

// ---- Enumeration (at collection time, so each endpoint gets its own named tests) ----

// With the emulator on, so its controls under /emulator/ are enumerated and checked like every other endpoint.
const server = await startTestServer({ emulator: true });
afterAll(() => server.close());

const docResponse = await http<OpenApiDoc>(server, 'GET', '/openapi.json');
if (docResponse.status !== 200 || !docResponse.body?.paths) {
  throw new Error(`GET /openapi.json answered ${docResponse.status}: cannot enumerate endpoints`);
}
const doc = docResponse.body;
const publicOperations: string[] = [];
const endpoints: Endpoint[] = enumerate(doc);

function resolve(schema: JsonSchema | undefined): JsonSchema {
  let current = schema ?? {};
  for (let i = 0; i < 20 && typeof current.$ref === 'string'; i++) {
    const name = decodeURIComponent(current.$ref.replace(/^#\/components\/schemas\//, ''));
    const target = doc.components?.schemas?.[name];
    if (!target) throw new Error(`unresolved $ref ${current.$ref}`);
    current = target;
  }
  return current;
}

function enumerate(openapi: OpenApiDoc): Endpoint[] {
  const found: Endpoint[] = [];
  for (const [template, item] of Object.entries(openapi.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const label = `${method.toUpperCase()} ${template}`;
      const security = op.security ?? openapi.security ?? [];
      if (Array.isArray(security) && security.length === 0) {
        publicOperations.push(label);
        continue;
      }
      const parameters: any[] = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      const pathParams = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const requiredQuery = parameters
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => {
          // A parameter's example (OpenAPI puts a query schema's `examples` on the parameter) is its simplest valid value.
          const example = p.example ?? (p.examples ? (Object.values(p.examples)[0] as any)?.value : undefined);
          return { name: p.name, schema: example !== undefined ? { ...resolve(p.schema), examples: [example] } : resolve(p.schema) };
        });
      const content = op.requestBody?.content?.['application/json'];
      const bodySchema = ['POST', 'PUT', 'PATCH'].includes(method.toUpperCase()) ? (content?.schema ?? { type: 'object' }) : undefined;
      const body = bodySchema ? sampleOf(bodySchema) : undefined;
      const successCodes = Object.keys(op.responses ?? {})
        .map(Number)
        .filter((c) => c >= 200 && c < 300);
      found.push({
        method: method.toUpperCase(),
        template,
        operationId: op.operationId,
        pathParams,
        requiredQuery,
        bodySchema,
        body,
        successCodes,
      });
    }
  }
  return found;
}

/** A small valid instance of a JSON schema: required properties only, the simplest value of each. */
function sampleOf(input: JsonSchema, depth = 0): unknown {
  const schema = resolve(input);
  if (depth > 8) return undefined;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('default' in schema && schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  for (const key of ['anyOf', 'oneOf']) {
    if (Array.isArray(schema[key])) {
      const option = schema[key].find((s: JsonSchema) => resolve(s).type !== 'null') ?? schema[key][0];
      return sampleOf(option, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s: JsonSchema) => sampleOf(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
    case undefined: {
      const out: Record<string, unknown> = {};
      for (const name of schema.required ?? []) out[name] = sampleOf(schema.properties?.[name] ?? {}, depth + 1);
      return out;
    }
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sampleOf(schema.items ?? {}, depth + 1));
    case 'integer':
    case 'number':
      return schema.minimum ?? schema.exclusiveMinimum ?? 1;
    case 'boolean':
      return false;
    case 'string':
      return sampleString(schema);
    default:
      return null;
  }
}

function sampleString(schema: JsonSchema): string {
  switch (schema.format) {
    case 'uuid':
      return randomUUID();
    case 'date-time':
      return new Date().toISOString();
    case 'date':
      return new Date().toISOString().slice(0, 10);
    case 'uri':
    case 'url':
      return 'https://example.com/security-suite';
    case 'email':
      return 'security@example.com';
  }
  const candidates = ['Security suite', 'https://example.com/security-suite', 'abcd', 'x', ''];
  const fits = (s: string) =>
    s.length >= (schema.minLength ?? 0) &&
    s.length <= (schema.maxLength ?? Infinity) &&
    (!schema.pattern || new RegExp(schema.pattern).test(s));
  return candidates.find(fits) ?? 'x'.repeat(Math.max(1, schema.minLength ?? 1));
}

// ---- Fixtures ----

const clientA = await server.newClient({ name: 'Client A' });
const clientB = await server.newClient({ name: 'Client B' });
const clientsService = createClientsService({ db: server.store.db });

async function createCompany(client: TestClient, name: string, tags: Record<string, string> = {}): Promise<{ id: string; name: string }> {
  const res = await http(server, 'POST', '/companies', { auth: client.auth, body: { name, tags } });
  if (res.status !== 200) throw new Error(`creating a company answered ${res.status}: ${res.text}`);
  return res.body;
}

/**
 * Client A's company every request of the suite points at, the negative ones and the read-only controls alike:
 * linked through the API to the accounting, banking and commerce Sandboxes and fully synced, so every path has
 * real data behind it. It must come out unchanged.
 */
const companyOfA = await createCompany(clientA, 'A target company', { owner: 'client-a' });
// 1,000 invoices rather than the small 200: every data type then has records to take ids from (at 200, sparse
// types such as bill credit notes are empty for about one seed in forty).
const connectionsOfA = await linkPlatforms(server, clientA, companyOfA.id, Object.values(SANDBOX_PLATFORMS), { invoices: '1000' });
// And a Bank statement files connection with a statement uploaded, an upload configuration and an open session.
const statementsOfA = await statementFixture(server, clientA, companyOfA.id);
connectionsOfA[STATEMENT_PLATFORM] = statementsOfA.connectionId;
const companyOfB = await createCompany(clientB, 'B own company', { owner: 'client-b' });

/** A write in client A's company, so its push history has an operation to read. */
const pushOfA = await http(
  server,
  'POST',
  `/companies/${companyOfA.id}/connections/${connectionsOfA[SANDBOX_PLATFORMS.accounting]}/push/customers`,
  {
    auth: clientA.auth,
    body: { customerName: 'Security fixture Ltd', status: 'Active' },
  },
);
if (pushOfA.status !== 200) throw new Error(`fixture: the write answered ${pushOfA.status}: ${pushOfA.text}`);

const WEBHOOK_CONSUMER = { url: 'https://hooks.example.com/ledgerport', eventTypes: ['company.created'] };
async function createWebhookConsumer(): Promise<string> {
  const res = await http(server, 'POST', '/webhooks', { auth: clientA.auth, body: WEBHOOK_CONSUMER });
  if (res.status !== 201) throw new Error(`fixture: creating a webhook consumer answered ${res.status}: ${res.text}`);
  return res.body.id;
}
/** Client A's webhook consumer that `{webhookId}` points at in the negative requests; it must survive them. */
const webhookOfA = await createWebhookConsumer();

/** A test clock of client A's (the emulator's controls): `{clockId}` in the negative requests and the shared reads. */
async function createClock(): Promise<string> {
  const res = await http(server, 'POST', '/emulator/clocks', { auth: clientA.auth, body: { frozenTime: '2030-01-01T00:00:00Z' } });
  if (res.status !== 201) throw new Error(`fixture: creating a test clock answered ${res.status}: ${res.text}`);
  return res.body.id;
}
const clockOfA = await createClock();

/** A fault rule of client A's that never fires on the suite's requests (it matches a company nobody has). */
async function createFault(): Promise<string> {
  const res = await http(server, 'POST', '/emulator/faults', {
    auth: clientA.auth,
    body: { match: { companyId: randomUUID() }, action: { type: 'latency', delayMs: 0 } },
  });
  if (res.status !== 201) throw new Error(`fixture: creating a fault rule answered ${res.status}: ${res.text}`);
  return res.body.id;
}
const faultOfA = await createFault();

/** The emulator's controls whose bodies name a clock, a rule or a count that the generic sample cannot. */
const EMULATOR_BODIES: Record<string, (ids: Record<string, string>) => unknown> = {
  'POST /emulator/clocks': () => ({ frozenTime: '2030-01-01T00:00:00Z' }),
  'POST /emulator/clocks/{clockId}/advance': () => ({ by: 'PT1H' }),
  'PUT /emulator/companies/{companyId}/clock': () => ({ clockId: clockOfA }),
  'PUT /emulator/client/clock': () => ({ clockId: clockOfA }),
  'POST /emulator/faults': () => ({ match: { companyId: randomUUID() }, action: { type: 'latency', delayMs: 0 } }),
  'POST /emulator/requests/verify': () => ({ operationId: 'get-company', count: 0, companyId: randomUUID() }),
  'POST /emulator/events': () => ({ type: 'company.created', companyId: companyOfA.id }),
};

/** A key of client A that expired yesterday. */
const outdatedKey = await clientsService.createKey(clientA.clientId, new Date(Date.now() - 86_400_000).toISOString());
if (!outdatedKey) throw new Error('could not create the outdated key');

/** A valid key of client A that `{apiKeyId}` points at in the negative requests; it must survive them. */
const targetKeyOfA = await clientsService.createKey(clientA.clientId).then((key) => {
  if (!key) throw new Error('could not create the target key');
  return key;
});

/** A key that belongs to nobody. */
const unknownKey = randomBytes(30).toString('base64url').slice(0, 40);

/** Every raw key the suite uses: none of them may ever appear in an error response. */
const secrets = new Set<string>([clientA.apiKey, clientB.apiKey, outdatedKey.apiKey, targetKeyOfA.apiKey, unknownKey]);

type Ids = Record<string, string>;

/** Path parameters that name a value rather than a resource: the same in every request. */
const VALUE_PARAMS: Ids = { platformKey: SANDBOX_PLATFORMS.accounting, dataType: 'invoices' };
/** Data integrity names a data type it matches. */
const valueOf = (endpoint: Endpoint, name: string) =>
  name === 'dataType' && endpoint.template.includes('/dataIntegrity/') ? 'accountTransactions' : VALUE_PARAMS[name];

/** Substitutes `{name}` in a template; every parameter must have a value. */
function fill(template: string, ids: Ids): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (ids[name] === undefined) throw new Error(`no value for {${name}} in ${template}`);
    return encodeURIComponent(ids[name]);
  });
}

/**
 * The list a path parameter indexes: the template up to that parameter (`.../data/invoices` for `{recordId}`); a
 * write's or its options' `bankAccounts/{accountId}` indexes the connection's bank accounts; an account's category
 * (`connections/{connectionId}/accounts/{accountId}`) the company's accounts.
 */
function listTemplateOf(template: string, name: string): string {
  return template
    .slice(0, template.indexOf(`/{${name}}`))
    .replace(/\/(push|options)\/bankAccounts$/, '/data/bankAccounts')
    .replace(/\/connections\/\{connectionId\}\/accounts$/, '/data/accounts');
}

const firstIds = new Map<string, Promise<string>>();
/** The first id of a list of client A's (read once, then shared). */
function firstId(listPath: string): Promise<string> {
  let id = firstIds.get(listPath);
  if (!id) firstIds.set(listPath, (id = prepared(firstIdOf(server, clientA, listPath))));
  return id;
}

/**
 * Real ids in the shared fixtures for every path parameter: companyId → companyOfA; connectionId → its
 * connection to the platform the path reads (banking- → bsbx, commerce- → aiwb, else mqjo); apiKeyId → the target
 * key; any other id (`recordId`, `accountId`, `datasetId`, ...) → the first result of the list it indexes.
 */
async function sharedIds(endpoint: Endpoint): Promise<Ids> {
  const ids: Ids = {};
  for (const name of endpoint.pathParams) {
    if (name === 'companyId') ids[name] = companyOfA.id;
    else if (name === 'connectionId') ids[name] = connectionsOfA[platformFor(endpoint.template)];
    else if (name === 'apiKeyId') ids[name] = targetKeyOfA.id;
    else if (name === 'pushOperationKey') ids[name] = pushOfA.body.pushOperationKey;
    else if (name === 'webhookId') ids[name] = webhookOfA;
    else if (name === 'clockId') ids[name] = clockOfA;
    else if (name === 'faultId') ids[name] = faultOfA;
    else if (name === 'datasetId' && endpoint.template.includes('/bankStatements/upload/')) ids[name] = statementsOfA.datasetId;
    else if (name in VALUE_PARAMS) ids[name] = valueOf(endpoint, name);
    else if (name === 'recordId' && isWrite(endpoint)) ids[name] = await firstId(`/companies/${ids.companyId}/data/${ids.dataType}`);
    else ids[name] = await firstId(fill(listTemplateOf(endpoint.template, name), ids));
  }
  if (isWrite(endpoint)) ids.customerId = await firstId(`/companies/${ids.companyId}/data/customers`);
  return ids;
}

/**
 * Fresh resources of client A for a control that changes state (anything but GET), so that writes and deletes
 * never touch the shared fixtures: a new company; in it a connection to the path's platform, linked and synced
 * (left PendingAuth for the authorization endpoint, whose job is to link it); for a company's sync endpoints a
 * linked, synced connection to sync from; a new API key.
 */
async function throwawayIds(endpoint: Endpoint): Promise<Ids> {
  const ids: Ids = {};
  const platformKey = platformFor(endpoint.template);
  const linksItself = endpoint.template.endsWith('/authorization');
  for (const name of endpoint.pathParams) {
    if (name === 'companyId')
      ids[name] = (await createCompany(clientA, `Control ${endpoint.method} ${endpoint.operationId ?? ''}`.trim())).id;
    else if (name === 'connectionId') {
      if (platformKey === STATEMENT_PLATFORM) {
        const fixture = await statementFixture(server, clientA, ids.companyId);
        ids[name] = fixture.connectionId;
        ids.datasetId = fixture.datasetId;
      } else if (linksItself) ids[name] = (await companyWithConnection(server, clientA, platformKey, ids.companyId)).connectionId;
      else ids[name] = (await linkPlatforms(server, clientA, ids.companyId, [platformKey], THROWAWAY_SIZE))[platformKey];
    } else if (name === 'apiKeyId') {
      const key = await clientsService.createKey(clientA.clientId);
      if (!key) throw new Error('could not create a throwaway key');
      secrets.add(key.apiKey);
      ids[name] = key.id;
    } else if (name in VALUE_PARAMS) ids[name] = valueOf(endpoint, name);
    else if (name === 'recordId' && isWrite(endpoint))
      ids[name] = await firstIdOf(server, clientA, `/companies/${ids.companyId}/data/${ids.dataType}`);
    else if (name === 'webhookId') ids[name] = await createWebhookConsumer();
    else if (name === 'clockId') ids[name] = await createClock();
    else if (name === 'faultId') ids[name] = await createFault();
    else if (name === 'accountId') ids[name] = await firstIdOf(server, clientA, fill(listTemplateOf(endpoint.template, name), ids));
    else if (name === 'datasetId' && ids.datasetId) continue;
    else throw new Error(`${label(endpoint)}: no throwaway fixture for {${name}}; add one here`);
  }
  if (isWrite(endpoint)) ids.customerId = await firstIdOf(server, clientA, `/companies/${ids.companyId}/data/customers`);
  // Taking a company off its clock needs it on one.
  if (label(endpoint) === 'DELETE /emulator/companies/{companyId}/clock') {
    const joined = await http(server, 'PUT', `/emulator/companies/${ids.companyId}/clock`, {
      auth: clientA.auth,
      body: { clockId: clockOfA },
    });
    if (joined.status !== 200) throw new Error(`fixture: putting a company on a clock answered ${joined.status}: ${joined.text}`);
  }
  if (ids.companyId && !ids.connectionId && /^\/companies\/\{companyId\}\/data(\/|$)/.test(endpoint.template)) {
    await linkPlatforms(server, clientA, ids.companyId, [platformKey], THROWAWAY_SIZE);
  }
  return ids;
}

/**
 * A throwaway company's Sandbox: a control only needs its ids, and dozens of controls each link one, so a small data set
 * (every data type still has records) keeps the suite's syncs from crowding the job runner under a loaded CI.
 */
const THROWAWAY_SIZE = { invoices: '20' };

/** A write to a platform (`.../push/{dataType}`): its fixtures include a customer for the record to name. */
function isWrite(endpoint: Endpoint): boolean {
  return endpoint.template.includes('/push/{dataType}');
}

function sampleInvoice(customerId: string): Record<string, unknown> {
  return {
    customerRef: { id: customerId },
    issueDate: '2024-05-01',
    currency: 'GBP',
    status: 'Submitted',
    lineItems: [{ description: 'Security fixture', unitAmount: 10, quantity: 1 }],
    subTotal: 10,
    totalTaxAmount: 0,
    totalAmount: 10,
    amountDue: 10,
  };
}

/** A value fits a (simple) schema: its const, enum, alternatives and string pattern. */
function admits(input: JsonSchema, value: unknown): boolean {
  const schema = resolve(input);
  if ('const' in schema) return schema.const === value;
  if (Array.isArray(schema.enum)) return schema.enum.includes(value);
  for (const key of ['anyOf', 'oneOf']) if (Array.isArray(schema[key])) return schema[key].some((s: JsonSchema) => admits(s, value));
  if (typeof value === 'string' && schema.pattern) return new RegExp(schema.pattern).test(value);
  return true;
}

/**
 * The request body: the sample generated from the operation's schema, with the fields that must name the
 * caller or the target filled in: clientId → client A, companyId → the path's company, platformKey → a key a
 * company can take besides its accounting connection, status → Unlinked (the one value an unlink accepts).
 */
function bodyFor(endpoint: Endpoint, ids: Ids): unknown {
  if (!endpoint.bodySchema) return undefined;
  // A write's body is a record of the path's data type, which no generic sample makes valid.
  if (isWrite(endpoint)) return sampleInvoice(ids.customerId);
  if (endpoint.template.endsWith('/push/accounts')) return { name: 'Security account', type: 'Income', status: 'Active' };
  if (endpoint.template.endsWith('/push/bankAccounts/{accountId}/bankTransactions'))
    return { transactions: [{ amount: 10, date: '2024-06-01', description: 'Security fixture' }] };
  if (endpoint.template === '/webhooks') return WEBHOOK_CONSUMER;
  const emulatorBody = EMULATOR_BODIES[label(endpoint)];
  if (emulatorBody) return emulatorBody(ids);
  // A page of the session's data type (banking-accounts), for the configured account.
  if (endpoint.template.endsWith('/bankStatements/upload/dataset/{datasetId}/upload')) return uploadedAccount();
  const body = structuredClone(endpoint.body);
  const schema = resolve(endpoint.bodySchema);
  if (!body || typeof body !== 'object' || Array.isArray(body) || !schema.properties) return body;
  const values: Record<string, string | undefined> = {
    clientId: clientA.clientId,
    companyId: ids.companyId,
    platformKey: SANDBOX_PLATFORMS.banking,
    status: 'Unlinked',
  };
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && name in schema.properties && admits(schema.properties[name], value))
      (body as Record<string, unknown>)[name] = value;
  }
  return body;
}

/** The path with its ids and the required query parameters (their smallest valid values). */
function pathFor(endpoint: Endpoint, ids: Ids): string {
  let path = fill(endpoint.template, ids);
  if (endpoint.requiredQuery.length > 0) {
    const query = endpoint.requiredQuery.map((q) => `${encodeURIComponent(q.name)}=${encodeURIComponent(String(sampleOf(q.schema)))}`);
    path += `?${query.join('&')}`;
  }
  return path;
}

/** The endpoint's request, by default on the shared fixtures' real ids. */
async function call(endpoint: Endpoint, auth: string | undefined, ids?: Ids): Promise<HttpResult> {
  const resolved = ids ?? (await sharedIds(endpoint));
  // The file upload takes multipart/form-data: a statement file.
  if (endpoint.method === 'POST' && /\/connections\/\{connectionId\}\/files$/.test(endpoint.template)) {
    return uploadFiles(server, auth, resolved.companyId, resolved.connectionId, [
      { name: STATEMENT_FILE.name, bytes: statementSample(STATEMENT_FILE.path) },
    ]);
  }
  return http(server, endpoint.method, pathFor(endpoint, resolved), { auth, body: bodyFor(endpoint, resolved) });
}

/** No key, in any form, is echoed back: not in the body, not in a header. */
function expectNoSecrets(res: HttpResult): void {
  const headerText = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
  for (const key of secrets) {
    for (const form of [key, Buffer.from(key).toString('base64')]) {
      expect(res.text, 'an API key was echoed in the response body').not.toContain(form);
      expect(headerText, 'an API key was echoed in a response header').not.toContain(form);
    }
  }
}

function expectUnauthorized(res: HttpResult): void {
  expectErrorBody(res, 401, { error: 'Unauthorized: send the API key as Authorization: Basic <base64(key)>' });
  expect(res.headers.get('www-authenticate')).toMatch(/^Basic\b/);
  expectNoSecrets(res);
}

const label = (e: Endpoint) => `${e.method} ${e.template}`;
const companyEndpoints = endpoints.filter((e) => e.pathParams.includes('companyId'));

/** Each write control's throwaway resources, prepared now (their syncs run while the negative tests do). */
const throwaways = new Map(endpoints.filter((e) => e.method !== 'GET').map((e) => [label(e), prepared(throwawayIds(e))] as const));

// ---- Tests ----

describe('endpoint enumeration', () => {
  it('finds at least every authenticated endpoint known today, from GET /openapi.json', () => {
    const found = endpoints.map(label);
    for (const known of KNOWN_ENDPOINTS) expect(found, `enumeration lost ${known}`).toContain(known);
    expect(endpoints.length).toBeGreaterThanOrEqual(KNOWN_ENDPOINTS.length);
    expect(companyEndpoints.length).toBeGreaterThanOrEqual(4);
  });

  it('treats only operations marked `security: []` as public, and none of the known ones', () => {
    for (const known of KNOWN_ENDPOINTS) expect(publicOperations).not.toContain(known);
    expect(doc.security, 'the document must require a key by default').toEqual([expect.any(Object)]);
  });
});

describe.each(endpoints.map((e) => [label(e), e] as const))('%s', (_name, endpoint) => {
  it('answers 401 without an Authorization header', async () => {
    expectUnauthorized(await call(endpoint, undefined));
  });

  it('answers 401 for malformed Authorization headers', async () => {
    const malformed = [
      'Bearer x',
      'Basic !!!',
      'Basic',
      'Basic ',
      `Basic ${Buffer.from('').toString('base64')}`,
      `Basic ${Buffer.from('x'.repeat(500)).toString('base64')}`,
      `Bearer ${clientA.apiKey}`,
      `Bearer ${Buffer.from(clientA.apiKey).toString('base64')}`,
      clientA.apiKey,
      Buffer.from(clientA.apiKey).toString('base64'),
      `Digest ${Buffer.from(clientA.apiKey).toString('base64')}`,
      `Basic ${clientA.apiKey}!`,
    ];
    for (const header of malformed) {
      const res = await call(endpoint, header);
      expect(res.status, `Authorization: ${header}`).toBe(401);
      expectUnauthorized(res);
    }
  });

  it('answers 401 for an unknown key', async () => {
    expectUnauthorized(await call(endpoint, basicAuth(unknownKey)));
  });

  it('answers 403 for an outdated key, naming the key as outdated', async () => {
    const res = await call(endpoint, basicAuth(outdatedKey.apiKey));
    const body = expectErrorBody(res, 403);
    expect(body.error).toContain(outdatedKey.id);
    expect(body.error).toMatch(/outdated/i);
    expectNoSecrets(res);
  });

  if (endpoint.pathParams.includes('companyId'))
    it("answers 403 to client B's valid key on client A's company", async () => {
      const res = await call(endpoint, clientB.auth);
      const body = expectErrorBody(res, 403);
      expect(body.error).toContain(companyOfA.id);
      expectNoSecrets(res);
    });

  if (endpoint.pathParams.includes('clockId') || endpoint.pathParams.includes('faultId'))
    it("answers 404 to client B's valid key on client A's test clock or fault rule", async () => {
      const res = await call(endpoint, clientB.auth);
      expectErrorBody(res, 404);
      expectNoSecrets(res);
    });

  it("accepts client A's own valid key (the control: the failures above come from authentication)", async () => {
    // Reads repeat the very requests above; writes act on fresh resources made for this control.
    let ids = endpoint.method === 'GET' ? await sharedIds(endpoint) : await throwaways.get(label(endpoint))!;
    // A rule made now: `DELETE /emulator/faults` (whose control runs first) deletes every rule client A had made before.
    if (endpoint.pathParams.includes('faultId')) ids = { ...ids, faultId: await createFault() };
    // Client A on a clock only for the length of its own control: every other request of the suite runs in real time.
    const onClock = (method: string) =>
      http(server, method, '/emulator/client/clock', { auth: clientA.auth, ...(method === 'PUT' ? { body: { clockId: clockOfA } } : {}) });
    if (label(endpoint) === 'DELETE /emulator/client/clock') expect((await onClock('PUT')).status).toBe(200);
    // A reset would take client A's fixtures away from every test after it: a client of its own resets, with a company.
    let auth = clientA.auth;
    if (label(endpoint) === 'POST /emulator/reset') {
      const own = await server.newClient({ name: 'Reset control' });
      await createCompany(own, 'Reset away');
      auth = own.auth;
    }
    const res = await call(endpoint, auth, ids);
    if (label(endpoint) === 'PUT /emulator/client/clock') expect((await onClock('DELETE')).status).toBe(204);
    expect(res.status, res.text).toBeGreaterThanOrEqual(200);
    expect(res.status, res.text).toBeLessThan(300);
    expect(endpoint.successCodes, `${label(endpoint)} answered ${res.status}, which the document does not declare`).toContain(res.status);
  });
});

describe('cross-client isolation', () => {
  it("leaves client A's company untouched after client B's attempts", async () => {
    const res = await http(server, 'GET', `/companies/${companyOfA.id}`, { auth: clientA.auth });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: companyOfA.id, name: 'A target company', tags: { owner: 'client-a' } });
  });

  it("leaves client A's shared fixtures untouched: its connections linked, its target key and webhook consumer listed", async () => {
    const connections = await http(server, 'GET', `/companies/${companyOfA.id}/connections`, { auth: clientA.auth });
    expect(connections.status, connections.text).toBe(200);
    const byId = new Map(connections.body.results.map((c: { id: string; status: string }) => [c.id, c.status]));
    expect(byId.size).toBe(Object.keys(connectionsOfA).length);
    for (const id of Object.values(connectionsOfA)) expect(byId.get(id), `connection ${id}`).toBe('Linked');
    const keys = await http(server, 'GET', '/apiKeys', { auth: clientA.auth });
    expect(keys.body.results.map((k: { id: string }) => k.id)).toContain(targetKeyOfA.id);
    const webhooks = await http(server, 'GET', '/webhooks', { auth: clientA.auth });
    expect(webhooks.body.results.map((w: { id: string }) => w.id)).toContain(webhookOfA);
    const webhooksOfB = await http(server, 'GET', '/webhooks', { auth: clientB.auth });
    expect(webhooksOfB.body.results.map((w: { id: string }) => w.id)).not.toContain(webhookOfA);
  });

  it("keeps client B's requests out of client A's journal, even those that name A's company", async () => {
    const marker = randomUUID();
    const path = `/companies/${companyOfA.id}/data/history/${marker}`;
    expectErrorBody(await http(server, 'GET', path, { auth: clientB.auth }), 403);
    const journalOf = async (client: { auth: string }) => {
      const res = await http(server, 'GET', `/emulator/requests?companyId=${companyOfA.id}&pageSize=5000`, { auth: client.auth });
      expect(res.status, res.text).toBe(200);
      return (res.body.results as { path: string; status: number }[]).filter((entry) => entry.path === path);
    };
    expect(await journalOf(clientA)).toEqual([]);
    expect((await journalOf(clientB)).map((entry) => entry.status)).toEqual([403]);
  });

  it("fires no event about client A's company or connection with B's key: 403 and 404", async () => {
    const fire = (body: Record<string, unknown>) => http(server, 'POST', '/emulator/events', { auth: clientB.auth, body });
    expectErrorBody(await fire({ type: 'company.created', companyId: companyOfA.id }), 403);
    const connectionId = connectionsOfA[SANDBOX_PLATFORMS.accounting];
    expectErrorBody(await fire({ type: 'connection.connected', connectionId }), 404);
    expectErrorBody(await fire({ type: 'connection.connected', companyId: companyOfB.id, connectionId }), 404);
  });

  it("answers 403, not 404, when client A's company is addressed with B's key, and 404 for a company nobody has", async () => {
    const unknown = randomUUID();
    expectErrorBody(await http(server, 'GET', `/companies/${unknown}`, { auth: clientB.auth }), 404);
    expectErrorBody(await http(server, 'GET', `/companies/${companyOfA.id}`, { auth: clientB.auth }), 403);
  });

  it("GET /companies never returns another client's companies", async () => {
    const listIds = async (client: TestClient, query = '') => {
      const res = await http(server, 'GET', `/companies?pageSize=5000${query}`, { auth: client.auth });
      expect(res.status, res.text).toBe(200);
      return { ids: res.body.results.map((c: { id: string }) => c.id) as string[], total: res.body.totalResults as number };
    };
    const a = await listIds(clientA);
    const b = await listIds(clientB);
    expect(a.ids).toContain(companyOfA.id);
    expect(b.ids).toContain(companyOfB.id);
    expect(a.ids.filter((id) => b.ids.includes(id))).toEqual([]);
    expect(b.total).toBe(b.ids.length);
    expect(a.total).toBe(a.ids.length);

    // Neither a query, a tag filter, an order nor paging reaches across clients.
    expect((await listIds(clientB, `&query=${encodeURIComponent(`id=${companyOfA.id}`)}`)).ids).toEqual([]);
    expect((await listIds(clientB, `&query=${encodeURIComponent('name~target')}`)).ids).toEqual([]);
    expect((await listIds(clientB, `&tags=${encodeURIComponent('owner=client-a')}`)).ids).toEqual([]);
    expect((await listIds(clientB, `&orderBy=-name`)).ids.sort()).toEqual([...b.ids].sort());
    const paged: string[] = [];
    for (let page = 1; page <= b.ids.length + 1; page++) {
      const res = await http(server, 'GET', `/companies?page=${page}&pageSize=1`, { auth: clientB.auth });
      paged.push(...res.body.results.map((c: { id: string }) => c.id));
    }
    expect(paged.sort()).toEqual([...b.ids].sort());
  });

  it("GET /apiKeys never lists another client's keys", async () => {
    const idsOf = async (client: TestClient) => {
      const res = await http(server, 'GET', '/apiKeys', { auth: client.auth });
      expect(res.status, res.text).toBe(200);
      return res.body.results.map((k: { id: string }) => k.id) as string[];
    };
    const a = await idsOf(clientA);
    const b = await idsOf(clientB);
    expect(a).toContain(outdatedKey.id);
    expect(b).not.toContain(outdatedKey.id);
    expect(a.filter((id) => b.includes(id))).toEqual([]);
  });

  it("cannot delete another client's API key", async () => {
    const res = await http(server, 'DELETE', `/apiKeys/${outdatedKey.id}`, { auth: clientB.auth });
    expect([403, 404]).toContain(res.status);
    expectErrorBody(res, res.status);
    const stillThere = await http(server, 'GET', '/apiKeys', { auth: clientA.auth });
    expect(stillThere.body.results.map((k: { id: string }) => k.id)).toContain(outdatedKey.id);
  });
});

describe('key lifecycle', () => {
  it('a deleted key answers 401 at once, on every endpoint', async () => {
    const created = await http(server, 'POST', '/apiKeys', { auth: clientA.auth, body: { name: 'to be deleted' } });
    expect(created.status, created.text).toBe(201);
    const key: string = created.body.apiKey;
    secrets.add(key);
    expect((await http(server, 'GET', '/companies', { auth: basicAuth(key) })).status).toBe(200);

    const deleted = await http(server, 'DELETE', `/apiKeys/${created.body.id}`, { auth: clientA.auth });
    expect(deleted.status, deleted.text).toBe(204);
    for (const endpoint of endpoints) {
      const res = await call(endpoint, basicAuth(key));
      expect(res.status, `${label(endpoint)} with a deleted key`).toBe(401);
      expectUnauthorized(res);
    }
  });

  it('a key that deletes itself is refused on the very next request', async () => {
    const created = await http(server, 'POST', '/apiKeys', { auth: clientA.auth, body: { name: 'self-deleting' } });
    expect(created.status, created.text).toBe(201);
    const auth = basicAuth(created.body.apiKey);
    secrets.add(created.body.apiKey);
    const deleted = await http(server, 'DELETE', `/apiKeys/${created.body.id}`, { auth });
    expect(deleted.status, deleted.text).toBe(204);
    expectUnauthorized(await http(server, 'GET', '/profile', { auth }));
    expectUnauthorized(await http(server, 'DELETE', `/apiKeys/${created.body.id}`, { auth }));
  });

  it('a key with an expiry still in the future is accepted', async () => {
    const key = await clientsService.createKey(clientA.clientId, new Date(Date.now() + 86_400_000).toISOString());
    secrets.add(key!.apiKey);
    const res = await http(server, 'GET', '/profile', { auth: basicAuth(key!.apiKey) });
    expect(res.status, res.text).toBe(200);
  });

  it('GET /apiKeys never shows a key in full', async () => {
    const res = await http(server, 'GET', '/apiKeys', { auth: clientA.auth });
    expect(res.status).toBe(200);
    expectNoSecrets(res);
  });
});
