import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValidateFunction } from 'ajv';
import { DATA_PATHS } from '../../src/data/data-paths.js';
import { isDataType } from '../../src/codat-model/data-types.js';
import {
  codatOasOrSkip,
  correctOasDocument,
  resetOasCaches,
  oasDocument,
  oasErrors,
  oasResponseValidator,
  oasValidator,
  type OasDocument,
  type OasFile,
} from '../helpers/oas.js';
import { authorize, companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs } from '../helpers/sandbox.js';
import { http, startTestServer, type HttpResult, type TestClient, type TestServer } from '../helpers/test-server.js';
import {
  platformFor,
  SANDBOX_PLATFORMS,
  STATEMENT_FILE,
  STATEMENT_PLATFORM,
  statementFixture,
  uploadedAccount,
} from '../security/fixtures.js';
import { statementSample } from '../helpers/uploads.js';
import { labelOf, sharedOperations, type OwnDocument, type SharedOperation } from './shared-operations.js';
import { distinctErrors, openObjects, ownContract, requestBodyTypes, strictDocument } from '../helpers/own-openapi.js';
import { compileDocument } from '../helpers/openapi-contract.js';

/**
 * Contract test against Codat's published OpenAPI files. Every operation Ledgerport serves that Codat's Platform,
 * Banking, Commerce or Lending file also defines is called on a running server with real data (a company linked to
 * the accounting, banking and commerce Sandboxes), for its success status and for the error cases that apply to it,
 * and every response body is validated against the schema Codat's file gives for that operation and status, and
 * against our own `/openapi.json`, made strict (test/helpers/own-openapi.ts): a status, a field or a request body
 * that our document does not declare fails.
 */

const oasHere = codatOasOrSkip();

type Ids = Record<string, string>;

/** One request of an operation and the status it must answer. */
interface Case {
  name: string;
  ids: Ids;
  query?: string;
  auth?: string;
  body?: unknown;
  rawBody?: string;
  /** Files sent as multipart/form-data parts named `file` (the file upload), instead of a JSON body. */
  multipart?: { name: string; bytes: Uint8Array }[];
  status: number;
}

/** A success request: the ids that fill its template, its query and body. */
interface Success {
  ids: Ids;
  query?: string;
  body?: unknown;
  multipart?: { name: string; bytes: Uint8Array }[];
}

/**
 * Defects in Codat's own OpenAPI files, corrected in the loaded document before anything is compiled. Each entry
 * says where the defect is, what is wrong, what the correction is and why. Nothing here skips an operation or
 * loosens a schema beyond what Codat's own documentation of the field says.
 */
interface Correction {
  file: OasFile;
  /** The schema or path corrected. */
  where: string;
  /** What is wrong in Codat's file. */
  defect: string;
  /** What the correction is, and why it is right. */
  correction: string;
  apply(document: OasDocument): void;
}

const CODAT_CORRECTIONS: Correction[] = [
  {
    file: 'Codat-Platform.json',
    where: 'paths./apiKeys/{apiKeyId}.delete.responses.204',
    defect:
      "The 204 response is `{ description: 'No Content', $ref: '#/components/responses/Too-Many-Requests' }`: a reference to the " +
      '429 response, so a successful delete would have to carry an ErrorMessage body.',
    correction:
      "`{ description: 'No Content' }`, as for Codat's other 204s (DELETE /companies/{companyId}, DELETE /webhooks/{webhookId}): a 204 " +
      'has no body (RFC 9110 §15.3.5), and the description beside the reference says so; the reference is a copy-paste slip.',
    apply(document) {
      const responses = operation(document, '/apiKeys/{apiKeyId}', 'delete').responses as Record<
        string,
        { $ref?: string; description?: string }
      >;
      if (responses['204']?.$ref !== '#/components/responses/Too-Many-Requests')
        throw new Error('correction: DELETE /apiKeys/{apiKeyId} 204 is no longer the 429 reference');
      responses['204'] = { description: 'No Content' };
    },
  },
];

/** An operation object of a document; throws when Codat's file no longer has it (the correction is then stale). */
function operation(document: OasDocument, path: string, method: string): Record<string, unknown> {
  const found = document.paths[path]?.[method];
  if (!found || typeof found !== 'object' || Array.isArray(found))
    throw new Error(`correction: no ${method.toUpperCase()} ${path} to correct`);
  return found;
}

/** Values of path parameters that exist nowhere, each chosen to be well-formed for its parameter. */
const UNKNOWN: Record<string, () => string> = {
  companyId: randomUUID,
  connectionId: randomUUID,
  datasetId: randomUUID,
  pushOperationKey: randomUUID,
  apiKeyId: randomUUID,
  webhookId: randomUUID,
  recordId: () => 'no-such-record',
  platformKey: () => 'zzzz',
  dataType: () => 'notADataType',
  // Not `accountId` of `.../bankAccounts/{accountId}/bankTransactions`: Ledgerport reads it as a filter on the
  // connection's bank transactions (an unknown account gives an empty page), and Codat's files do not say otherwise.
};

// ---- Corrections to Codat's files, before anything is compiled ----

// Files share a worker's modules: this one starts from, and leaves behind, documents no correction has touched.
resetOasCaches();
afterAll(resetOasCaches);
if (oasHere) for (const correction of CODAT_CORRECTIONS) correctOasDocument(correction.file, correction.apply);

// ---- The shared operations, from the server's own document (at collection time, one test each) ----

const server: TestServer | undefined = oasHere ? await startTestServer({ push: { sandboxDelayMs: 20 } }) : undefined;
afterAll(() => server?.close());

async function ownDocument(): Promise<OwnDocument & OasDocument> {
  const res = await http<OwnDocument & OasDocument>(server!, 'GET', '/openapi.json');
  if (res.status !== 200 || !res.body?.paths) throw new Error(`GET /openapi.json answered ${res.status}`);
  return res.body;
}
const served = server ? await ownDocument() : undefined;
const shared: SharedOperation[] = served ? sharedOperations(served) : [];
/** Our own document, strict: every response below is checked against it too. */
const own = served ? ownContract(served) : undefined;

// ---- Fixtures ----

let clientA: TestClient;
let clientB: TestClient;
let companyA: string;
let connectionsA: Record<string, string>;
let pushKeyA: string;
/** Client A's company linked to the three Sandboxes with nothing synced: its data reads answer 409. */
let unsynced: { companyId: string; connections: Record<string, string> };

const get = (path: string, client: TestClient = clientA) => http(server!, 'GET', path, { auth: client.auth });

async function send(method: string, path: string, body: unknown, expected: number, client: TestClient = clientA): Promise<HttpResult> {
  const res = await http(server!, method, path, { auth: client.auth, body });
  if (res.status !== expected) throw new Error(`fixture: ${method} ${path} answered ${res.status}: ${res.text}`);
  return res;
}

const newCompany = async (name: string): Promise<string> => (await send('POST', '/companies', { name }, 200)).body.id;

/**
 * A fresh company with one connection to `platformKey` that fetches nothing on first link, so an operation that
 * changes state acts on a resource of its own and leaves no sync behind. `link: false` leaves it PendingAuth.
 */
async function quietCompany(name: string, platformKey: string, link = true): Promise<{ companyId: string; connectionId: string }> {
  const companyId = await newCompany(name);
  await fetchOnFirstLinkOnly(server!, clientA, companyId, []);
  const linked = await companyWithConnection(server!, clientA, platformKey, companyId);
  if (link) await authorize(server!, clientA, linked, { size: 'small' });
  return linked;
}

/**
 * The data types the shared read operations serve (so company A waits for those syncs only): each `data/<segment>`
 * is looked up in Ledgerport's data paths; financial statements and bank-account transactions are named by their path.
 */
function dataTypesRead(operations: SharedOperation[]): string[] {
  const types = new Set<string>();
  for (const { template } of operations) {
    const segment = /\/data\/([^/{]+)/.exec(template)?.[1];
    const path = DATA_PATHS.find((p) => p.segment === segment && (p.scope === 'connection') === template.includes('/connections/{'));
    if (path) types.add(path.dataType);
    const statement = /\/data\/financials\/([^/]+)$/.exec(template)?.[1];
    if (statement && isDataType(statement)) types.add(statement);
    if (template.endsWith('/bankTransactions')) types.add('bankTransactions');
    // Commerce metrics read the connection's orders, customers and company info.
    if (template.includes('/commerceMetrics/'))
      for (const type of ['commerce-orders', 'commerce-customers', 'commerce-companyInfo']) types.add(type);
    // Data integrity matches both sides' bank movements and accounts.
    if (template.includes('/dataIntegrity/'))
      for (const type of ['accountTransactions', 'bankAccounts', 'banking-transactions', 'banking-accounts']) types.add(type);
  }
  return [...types];
}

/** The id of the first record of a list of client A's, or undefined when the list is empty. */
async function firstIdOrNone(listPath: string): Promise<string | undefined> {
  const res = await get(`${listPath}?page=1&pageSize=1`);
  if (res.status !== 200) throw new Error(`fixture: GET ${listPath} answered ${res.status}: ${res.text}`);
  return res.body.results[0]?.id;
}

/** Fills `{name}` in a template. */
function fill(template: string, ids: Ids): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (ids[name] === undefined) throw new Error(`no value for {${name}} in ${template}`);
    return encodeURIComponent(ids[name]);
  });
}

/**
 * Real ids for a read, in company A: record ids are the first of the list the parameter indexes. A small Sandbox
 * company can have no record of a sparse type (bill credit notes: about 3 at the small size, none for about one seed
 * in forty); then the read goes to a spare company, linked with another seed, that syncs only what the read needs.
 */
async function readIds(op: SharedOperation): Promise<Ids> {
  let owner = { companyId: companyA, connectionId: connectionsA[platformFor(op.template)] };
  for (let attempt = 1; ; attempt++) {
    const ids = await idsIn(op, owner);
    if (ids) return ids;
    if (attempt === 5) throw new Error(`${labelOf(op)}: no record to read in ${attempt} Sandbox companies`);
    owner = await spareCompany(op);
  }
}

async function idsIn(op: SharedOperation, owner: { companyId: string; connectionId: string }): Promise<Ids | undefined> {
  const ids: Ids = {};
  for (const name of op.pathParams) {
    if (name === 'companyId' || name === 'connectionId') ids[name] = owner[name];
    else if (name === 'platformKey') ids[name] = SANDBOX_PLATFORMS.accounting;
    else if (name === 'dataType') ids[name] = op.template.includes('/dataIntegrity/') ? 'accountTransactions' : 'invoices';
    else if (name === 'pushOperationKey') ids[name] = pushKeyA;
    else {
      // A write model's `options/bankAccounts/{accountId}` names one of the connection's bank accounts.
      const list = op.template.slice(0, op.template.indexOf(`/{${name}}`)).replace(/\/options\/bankAccounts$/, '/data/bankAccounts');
      const id = await firstIdOrNone(fill(list, ids));
      if (id === undefined) return undefined;
      ids[name] = id;
    }
  }
  return ids;
}

async function spareCompany(op: SharedOperation): Promise<{ companyId: string; connectionId: string }> {
  const companyId = await newCompany(`Contract spare for ${labelOf(op)}`);
  await fetchOnFirstLinkOnly(server!, clientA, companyId, dataTypesRead([op]));
  const linked = await companyWithConnection(server!, clientA, platformFor(op.template), companyId);
  await authorize(server!, clientA, linked, { size: 'small' });
  await waitForSyncs(server!, clientA, companyId);
  return linked;
}

/** Query strings a read needs: financial statements require a period length and a number of periods. */
function requiredQuery(op: SharedOperation): string | undefined {
  const required = Object.entries(op.query)
    .filter(([, isRequired]) => isRequired)
    .map(([name]) => name);
  if (required.length === 0) return undefined;
  const values: Record<string, string> = {
    periodLength: '1',
    periodsToCompare: '2',
    reportDate: '31-03-2026',
    numberOfPeriods: '3',
    periodUnit: 'Month',
  };
  return required
    .map((name) => {
      if (values[name] === undefined) throw new Error(`${labelOf(op)}: no value for the required query parameter ${name}`);
      return `${name}=${values[name]}`;
    })
    .join('&');
}

/**
 * The success request of each operation that changes state, on resources of its own. Any shared write added later
 * without an entry here fails the test that names it.
 */
const WRITES: Record<string, (op: SharedOperation) => Promise<Success>> = {
  // Writes to company A's accounting Sandbox, with no sync after them, to leave the data the reads see still.
  'POST /companies/{companyId}/connections/{connectionId}/push/accounts': async () => ({
    ids: { companyId: companyA, connectionId: connectionsA[SANDBOX_PLATFORMS.accounting] },
    query: 'allowSyncOnPushComplete=false',
    body: { name: 'Contract account', nominalCode: '4998', type: 'Income', status: 'Active', currency: 'GBP' },
  }),
  'POST /companies/{companyId}/connections/{connectionId}/push/bankAccounts/{accountId}/bankTransactions': async () => {
    const ids = { companyId: companyA, connectionId: connectionsA[SANDBOX_PLATFORMS.accounting] };
    const accountId = await firstIdOrNone(fill('/companies/{companyId}/connections/{connectionId}/data/bankAccounts', ids));
    if (!accountId) throw new Error('fixture: company A has no bank account');
    return {
      ids: { ...ids, accountId },
      query: 'allowSyncOnPushComplete=false',
      body: { accountId, transactions: [{ amount: 12.5, date: '2024-06-01', description: 'Contract', balance: 112.5 }] },
    };
  },
  'PUT /profile': async () => ({
    ids: {},
    body: { name: 'Contract client', redirectUrl: 'https://example.com/{companyId}', whiteListUrls: ['https://example.com'] },
  }),
  'POST /apiKeys': async () => ({ ids: {}, body: { name: 'contract key' } }),
  'DELETE /apiKeys/{apiKeyId}': async () => ({ ids: { apiKeyId: (await send('POST', '/apiKeys', { name: 'to delete' }, 201)).body.id } }),
  'POST /companies': async () => ({
    ids: {},
    body: { name: 'Contract company', description: 'made by the contract test', tags: { suite: 'contract' } },
  }),
  'PUT /companies/{companyId}': async () => ({
    ids: { companyId: await newCompany('Contract put') },
    body: { name: 'Contract replaced', description: 'replaced' },
  }),
  'PATCH /companies/{companyId}': async () => ({
    ids: { companyId: await newCompany('Contract patch') },
    body: { description: 'patched', tags: { a: '1' } },
  }),
  'DELETE /companies/{companyId}': async () => ({ ids: { companyId: await newCompany('Contract delete') } }),
  'POST /companies/{companyId}/connections': async () => ({
    ids: { companyId: await newCompany('Contract connect') },
    body: { platformKey: SANDBOX_PLATFORMS.accounting },
  }),
  'DELETE /companies/{companyId}/connections/{connectionId}': async () => ({
    ids: { ...(await quietCompany('Contract disconnect', SANDBOX_PLATFORMS.commerce, false)) },
  }),
  'PATCH /companies/{companyId}/connections/{connectionId}': async () => ({
    ids: { ...(await quietCompany('Contract unlink', SANDBOX_PLATFORMS.banking)) },
    body: { status: 'Unlinked' },
  }),
  'PUT /companies/{companyId}/connections/{connectionId}/authorization': async () => ({
    ids: { ...(await quietCompany('Contract authorize', SANDBOX_PLATFORMS.banking, false)) },
    body: { size: 'small' },
  }),
  // The banking Sandbox has four data types: the syncs these queue are few and small.
  'POST /companies/{companyId}/data/all': async () => ({
    ids: { companyId: (await quietCompany('Contract sync all', SANDBOX_PLATFORMS.banking)).companyId },
  }),
  'POST /companies/{companyId}/data/queue/{dataType}': async () => ({
    ids: { companyId: (await quietCompany('Contract queue', SANDBOX_PLATFORMS.banking)).companyId, dataType: 'banking-accounts' },
  }),
  'POST /profile/syncSettings': async () => {
    // Posts back what is there, so companies created later in this file keep the defaults.
    const current = (await get('/profile/syncSettings')).body;
    return { ids: {}, body: { ...current, clientId: clientA.clientId, overridesDefaults: true } };
  },
  'POST /companies/{companyId}/syncSettings': async () => {
    const companyId = await newCompany('Contract sync settings');
    return { ids: { companyId }, body: { ...(await get(`/companies/${companyId}/syncSettings`)).body, companyId } };
  },
  // Uploads, on a Bank statement files connection of their own (a statement uploaded, account acc-1 configured, a
  // banking-accounts session open).
  'POST /companies/{companyId}/connections/{connectionId}/files': async () => {
    const companyId = await newCompany('Contract upload');
    return {
      ids: { companyId, connectionId: (await statementFixture(server!, clientA, companyId)).connectionId },
      multipart: [{ name: STATEMENT_FILE.name, bytes: statementSample(STATEMENT_FILE.path) }],
    };
  },
  'POST /companies/{companyId}/connections/{connectionId}/bankStatements/upload/configuration': async () => {
    const companyId = await newCompany('Contract upload configuration');
    return {
      ids: { companyId, connectionId: (await statementFixture(server!, clientA, companyId)).connectionId },
      body: { source: 'codat', accountId: 'acc-2' },
    };
  },
  'POST /companies/{companyId}/connections/{connectionId}/bankStatements/upload/startSession': async () => {
    const companyId = await newCompany('Contract upload session');
    return {
      ids: { companyId, connectionId: (await statementFixture(server!, clientA, companyId)).connectionId },
      body: { dataType: 'banking-transactions' },
    };
  },
  'POST /companies/{companyId}/connections/{connectionId}/bankStatements/upload/dataset/{datasetId}/upload': async () => {
    const companyId = await newCompany('Contract upload data');
    return { ids: { companyId, ...(await statementFixture(server!, clientA, companyId)) }, body: uploadedAccount() };
  },
  'POST /companies/{companyId}/connections/{connectionId}/bankStatements/upload/dataset/{datasetId}/endSession': async () => {
    const companyId = await newCompany('Contract end session');
    return { ids: { companyId, ...(await statementFixture(server!, clientA, companyId)) }, body: { status: 'Process' } };
  },
  'POST /webhooks': async () => ({ ids: {}, body: { url: 'https://hooks.example.com/contract', eventTypes: ['company.created'] } }),
  'DELETE /webhooks/{webhookId}': async () => ({
    ids: {
      webhookId: (
        await send('POST', '/webhooks', { url: 'https://hooks.example.com/contract-delete', eventTypes: ['company.created'] }, 201)
      ).body.id,
    },
  }),
};

/** Error cases particular to one operation, beside the generic ones of `casesOf`. */
const EXTRA_CASES: Record<string, (success: Success) => Promise<Case[]>> = {
  ...Object.fromEntries(
    ['status', 'summaries', 'details'].map((part) => [
      `GET /data/companies/{companyId}/assess/dataTypes/{dataType}/dataIntegrity/${part}`,
      async (success: Success) => [
        // The other three data types (the success case asks for account transactions).
        ...['banking-transactions', 'bankAccounts', 'banking-accounts'].map((dataType) => ({
          name: `${dataType} matched`,
          ...success,
          ids: { ...success.ids, dataType },
          auth: clientA.auth,
          status: 200,
        })),
        // Nothing synced: Codat's answer is a status of DoesNotExist and empty summaries and details, never 409.
        {
          name: 'inputs never synced',
          ...success,
          ids: { ...success.ids, companyId: unsynced.companyId },
          auth: clientA.auth,
          status: 200,
        },
      ],
    ]),
  ),
  'GET /companies': async (success) => [
    { name: 'pageSize out of range', ...success, query: 'pageSize=0', auth: clientA.auth, status: 400 },
    { name: 'malformed orderBy', ...success, query: 'orderBy=name%20desc', auth: clientA.auth, status: 400 },
  ],
  'POST /companies': async (success) => [{ name: 'no name', ...success, body: {}, auth: clientA.auth, status: 400 }],
  'PUT /profile': async (success) => [{ name: 'no redirectUrl', ...success, body: { name: 'x' }, auth: clientA.auth, status: 400 }],
  'POST /webhooks': async (success) => [
    { name: 'no event types', ...success, body: { url: 'https://hooks.example.com/x', eventTypes: [] }, auth: clientA.auth, status: 400 },
  ],
  'POST /apiKeys': async (success) => {
    // A client holds at most ten keys: the eleventh is refused with 409.
    const full = await server!.newClient({ name: 'Contract full of keys' });
    for (let held = 1; held < 10; held++) await send('POST', '/apiKeys', { name: `key ${held + 1}` }, 201, full);
    return [{ name: 'eleventh key', ...success, auth: full.auth, status: 409 }];
  },
  'POST /companies/{companyId}/connections': async (success) => [
    // An unknown platform key is a field of the body, so a validation error rather than a missing resource.
    { name: 'unknown platform', ...success, body: { platformKey: 'zzzz' }, auth: clientA.auth, status: 400 },
    { name: 'second accounting connection', ...success, ids: { companyId: companyA }, auth: clientA.auth, status: 409 },
  ],
  'PATCH /companies/{companyId}/connections/{connectionId}': async (success) => [
    { name: 'status other than Unlinked', ...success, body: { status: 'Linked' }, auth: clientA.auth, status: 400 },
  ],
  'GET /companies/{companyId}/data/financials/balanceSheet': async (success) => [
    { name: 'periodLength out of range', ...success, query: 'periodLength=0&periodsToCompare=2', auth: clientA.auth, status: 400 },
  ],
  ...Object.fromEntries(
    ['agedDebtor', 'agedCreditor'].flatMap((report) => [
      [
        `GET /companies/{companyId}/reports/${report}`,
        async (success: Success) => [
          { name: 'numberOfPeriods out of range', ...success, query: 'numberOfPeriods=121', auth: clientA.auth, status: 400 },
          // Codat declares no status for a report whose inputs have not synced: Ledgerport's 409, Codat's error body.
          { name: 'inputs never synced', ...success, ids: { companyId: unsynced.companyId }, auth: clientA.auth, status: 409 },
        ],
      ],
      [
        `GET /companies/{companyId}/reports/${report}/available`,
        async (success: Success) => [
          { name: 'inputs never synced: false', ...success, ids: { companyId: unsynced.companyId }, auth: clientA.auth, status: 200 },
        ],
      ],
    ]),
  ),
  ...Object.fromEntries(
    ['enhancedProfitAndLoss', 'enhancedBalanceSheet'].map((report) => [
      `GET /companies/{companyId}/reports/${report}/accounts`,
      async (success: Success) => [
        {
          name: 'numberOfPeriods out of range',
          ...success,
          query: 'reportDate=31-03-2026&numberOfPeriods=121',
          auth: clientA.auth,
          status: 400,
        },
        { name: 'reportDate not a date', ...success, query: 'reportDate=31-02-2026', auth: clientA.auth, status: 400 },
        ...(report === 'enhancedBalanceSheet'
          ? [{ name: 'reportDate missing', ...success, query: undefined, auth: clientA.auth, status: 400 }]
          : [{ name: 'reportDate left out: the last month with data', ...success, query: undefined, auth: clientA.auth, status: 200 }]),
        // Codat declares no status for a report whose inputs have not synced: Ledgerport's 409, Codat's error body.
        { name: 'inputs never synced', ...success, ids: { companyId: unsynced.companyId }, auth: clientA.auth, status: 409 },
      ],
    ]),
  ),
  'POST /companies/{companyId}/syncSettings': async (success) => [
    {
      name: 'settings not a list',
      ...success,
      body: { companyId: success.ids.companyId, settings: 'daily' },
      auth: clientA.auth,
      status: 400,
    },
  ],
};

async function successOf(op: SharedOperation): Promise<Success> {
  if (op.method === 'GET') return { ids: await readIds(op), query: requiredQuery(op) };
  const write = WRITES[labelOf(op)];
  if (!write) throw new Error(`${labelOf(op)}: a shared operation that changes state has no fixture; add one to WRITES`);
  return write(op);
}

/**
 * The requests of an operation: without a key (401); for each path parameter, a value that exists nowhere (404);
 * another client's key on a company (403); a malformed `query` (400); a body that is not JSON (400); and last the
 * success request (last, since a DELETE consumes its resource).
 */
function casesOf(op: SharedOperation, success: Success): Case[] {
  const base = { ids: success.ids, query: success.query, body: success.body, multipart: success.multipart };
  const cases: Case[] = [{ name: 'no Authorization header', ...base, status: 401 }];
  for (const name of op.pathParams) {
    const unknown = UNKNOWN[name];
    if (unknown)
      cases.push({ name: `unknown {${name}}`, ...base, ids: { ...success.ids, [name]: unknown() }, auth: clientA.auth, status: 404 });
  }
  if (op.pathParams.includes('companyId')) cases.push({ name: "another client's key", ...base, auth: clientB.auth, status: 403 });
  if ('query' in op.query) {
    const query = [success.query, `query=${encodeURIComponent('{name=x')}`].filter(Boolean).join('&');
    cases.push({ name: 'malformed query', ...base, query, auth: clientA.auth, status: 400 });
  }
  if (op.method === 'GET' && declares(op, 409)) {
    const ids = { ...success.ids, companyId: unsynced.companyId };
    if ('connectionId' in ids) ids.connectionId = unsynced.connections[platformFor(op.template)];
    cases.push({ name: 'data never synced', ...base, ids, auth: clientA.auth, status: 409 });
  }
  if (op.takesBody)
    cases.push({ name: 'body is not JSON', ids: success.ids, query: success.query, rawBody: '{"name": ', auth: clientA.auth, status: 400 });
  cases.push({ name: 'success', ...base, auth: clientA.auth, status: successStatusOf(op) });
  return cases;
}

/** Whether any of Codat's files declares a status for an operation. */
function declares(op: SharedOperation, status: number): boolean {
  return op.codat.some(
    ({ file, path }) => String(status) in (oasDocument(file).paths[path][op.method.toLowerCase()] as { responses: object }).responses,
  );
}

/** The success status Codat's files declare for an operation (they agree where several define it). */
function successStatusOf(op: SharedOperation): number {
  const statuses = new Set<number>();
  for (const { file, path } of op.codat) {
    const responses = (oasDocument(file).paths[path][op.method.toLowerCase()] as { responses: Record<string, unknown> }).responses;
    for (const status of Object.keys(responses)) if (/^2\d\d$/.test(status)) statuses.add(Number(status));
  }
  if (statuses.size !== 1) throw new Error(`${labelOf(op)}: Codat's files declare ${statuses.size} success statuses (${[...statuses]})`);
  return [...statuses][0];
}

// ---- Validation and what it covered ----

/** Per operation, the statuses validated. */
const covered = new Map<string, Set<number>>();
let validatedResponses = 0;
let validations = 0;
/** Real 2xx bodies that passed, per `<file> <label>`, kept for the test that shows the check can fail. */
const passed = new Map<string, { body: unknown; validate: ValidateFunction }>();

const isJson = (res: HttpResult) => (res.headers.get('content-type') ?? '').split(';')[0].trim() === 'application/json';

/**
 * Checks one response against every Codat file that defines the operation: the body against the schema declared
 * for its status (or `default`); a status the file does not declare against Codat's `ErrorMessage`; a declared
 * response without a JSON body (a 204, a PDF) by status only. Returns the problems found.
 */
function validateResponse(op: SharedOperation, res: HttpResult): string[] {
  const problems: string[] = [];
  for (const { file, path } of op.codat) {
    const declared = oasResponseValidator(file, op.method, path, res.status);
    let validate: ValidateFunction | undefined;
    if (declared.kind === 'schema') validate = declared.validate;
    else if (declared.kind === 'undeclared') {
      if (res.status < 400) {
        problems.push(`${file} does not declare ${res.status} for ${op.method} ${path}`);
        continue;
      }
      validate = oasValidator('Codat-Platform.json', 'ErrorMessage');
    }
    if (!validate) continue; // Declared without a JSON body: the status is all there is to check.
    if (!isJson(res)) {
      problems.push(
        `${file}: ${res.status} should be application/json, got '${res.headers.get('content-type')}' ${res.text.slice(0, 100)}`,
      );
      continue;
    }
    validations++;
    if (!validate(res.body))
      problems.push(`${file} ${declared.kind === 'schema' ? declared.pointer : 'ErrorMessage'}: ${oasErrors(validate)}`);
    else if (res.status < 300) passed.set(`${file} ${labelOf(op)}`, { body: structuredClone(res.body), validate });
  }
  return problems;
}

/** Per operation, the statuses validated against our own document. */
const ownCovered = new Map<string, Set<number>>();
let ownValidations = 0;
/** Real bodies that passed our own document, per `<label> <status>`, for the test that shows the check can fail. */
const ownPassed = new Map<string, unknown>();

const mediaTypeOf = (res: HttpResult) => (res.headers.get('content-type') ?? '').split(';')[0].trim();

/**
 * Checks one exchange against our own strict document: the request body's media type must be one the operation
 * declares; the status must be declared (there is no `default` to fall back on); a JSON body must match the
 * status's schema, in which every listed object refuses other properties; a body declared as something else must
 * have one of its media types, and a status declared without content must have no body.
 */
function validateOwn(op: SharedOperation, c: Case, res: HttpResult): string[] {
  const problems: string[] = [];
  const sent =
    c.multipart && c.rawBody === undefined
      ? 'multipart/form-data'
      : c.body !== undefined || c.rawBody !== undefined
        ? 'application/json'
        : undefined;
  if (sent && !requestBodyTypes(own!.document, op.method, op.template).includes(sent))
    problems.push(`/openapi.json declares no ${sent} request body for ${labelOf(op)}`);
  const declared = own!.response(op.method, op.template, res.status);
  if (declared.kind === 'undeclared') return [...problems, `/openapi.json does not declare ${res.status} for ${labelOf(op)}`];
  if (declared.kind === 'no-json') {
    if (declared.types.length === 0 && res.text !== '')
      problems.push(`/openapi.json declares no body for ${res.status}, got ${res.text.slice(0, 100)}`);
    if (declared.types.length > 0 && !declared.types.includes(mediaTypeOf(res)))
      problems.push(`/openapi.json declares ${declared.types.join(', ')} for ${res.status}, got '${mediaTypeOf(res)}'`);
  } else if (mediaTypeOf(res) !== 'application/json') {
    problems.push(`/openapi.json declares JSON for ${res.status}, got '${res.headers.get('content-type')}' ${res.text.slice(0, 100)}`);
  } else {
    ownValidations++;
    if (!declared.validate(res.body)) problems.push(`/openapi.json #${declared.pointer}: ${distinctErrors(declared.validate)}`);
    else ownPassed.set(`${labelOf(op)} ${res.status}`, structuredClone(res.body));
  }
  if (problems.length === 0) {
    const statuses = ownCovered.get(labelOf(op)) ?? new Set<number>();
    ownCovered.set(labelOf(op), statuses.add(res.status));
  }
  return problems;
}

/** A multipart/form-data request, as Codat's SDKs upload files. */
async function sendFiles(
  method: string,
  path: string,
  auth: string | undefined,
  files: { name: string; bytes: Uint8Array }[],
): Promise<HttpResult> {
  const form = new FormData();
  for (const file of files) form.append('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>]), file.name);
  const response = await fetch(`${server!.url}${path}`, { method, headers: auth ? { authorization: auth } : {}, body: form });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (response.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : undefined,
    text,
  };
}

async function run(op: SharedOperation, c: Case): Promise<string[]> {
  const path = fill(op.template, c.ids) + (c.query ? `?${c.query}` : '');
  const headers = c.rawBody !== undefined ? { 'content-type': 'application/json' } : undefined;
  const res =
    c.multipart && c.rawBody === undefined
      ? await sendFiles(op.method, path, c.auth, c.multipart)
      : await http(server!, op.method, path, { auth: c.auth, body: c.body, rawBody: c.rawBody, headers });
  const problems: string[] = [];
  if (res.status !== c.status) problems.push(`answered ${res.status}, expected ${c.status}: ${res.text.slice(0, 300)}`);
  problems.push(...validateResponse(op, res));
  problems.push(...validateOwn(op, c, res));
  validatedResponses++;
  if (problems.length === 0) {
    const statuses = covered.get(labelOf(op)) ?? new Set<number>();
    statuses.add(res.status);
    covered.set(labelOf(op), statuses);
  }
  return problems.map((p) => `${c.name} (${op.method} ${path}): ${p}`);
}

// ---- Tests ----

describe.skipIf(!oasHere)("responses match Codat's OpenAPI files", () => {
  beforeAll(async () => {
    clientA = await server!.newClient({ name: 'Contract client A' });
    clientB = await server!.newClient({ name: 'Contract client B' });
    companyA = await newCompany('Contract company A');
    // Only the data types the shared operations read are fetched on first link.
    await fetchOnFirstLinkOnly(server!, clientA, companyA, dataTypesRead(shared));
    connectionsA = {};
    for (const platformKey of Object.values(SANDBOX_PLATFORMS)) {
      const linked = await companyWithConnection(server!, clientA, platformKey, companyA);
      await authorize(server!, clientA, linked, { size: 'small' });
      connectionsA[platformKey] = linked.connectionId;
    }
    connectionsA[STATEMENT_PLATFORM] = (await statementFixture(server!, clientA, companyA)).connectionId;
    const unsyncedId = await newCompany('Contract company never synced');
    await fetchOnFirstLinkOnly(server!, clientA, unsyncedId, []);
    unsynced = { companyId: unsyncedId, connections: {} };
    for (const platformKey of Object.values(SANDBOX_PLATFORMS)) {
      const linked = await companyWithConnection(server!, clientA, platformKey, unsyncedId);
      await authorize(server!, clientA, linked, { size: 'small' });
      unsynced.connections[platformKey] = linked.connectionId;
    }
    await waitForSyncs(server!, clientA, companyA);
    // A write, so the company's push history has an operation to read; no sync after it, to leave the data still.
    const push = await send(
      'POST',
      `/companies/${companyA}/connections/${connectionsA[SANDBOX_PLATFORMS.accounting]}/push/customers?allowSyncOnPushComplete=false`,
      {
        customerName: 'Contract Ltd',
        status: 'Active',
      },
      200,
    );
    pushKeyA = push.body.pushOperationKey;
  }, 120_000);

  it('finds the shared operations programmatically', () => {
    expect(shared.length).toBeGreaterThan(50);
    expect(shared.map(labelOf)).toContain('GET /companies/{companyId}');
  });

  for (const op of shared) {
    it(labelOf(op), async () => {
      const success = await successOf(op);
      const extra = (await EXTRA_CASES[labelOf(op)]?.(success)) ?? [];
      const cases = casesOf(op, success);
      // The extra cases go before the success, which may consume its resource.
      cases.splice(cases.length - 1, 0, ...extra);
      const problems: string[] = [];
      for (const c of cases) problems.push(...(await run(op, c)));
      expect(problems).toEqual([]);
    });
  }

  it('covered every shared operation with a validated 2xx', () => {
    const missing = shared.map(labelOf).filter((label) => ![...(covered.get(label) ?? [])].some((s) => s >= 200 && s < 300));
    expect(missing).toEqual([]);
    const statuses = [...covered.values()].reduce((n, s) => n + s.size, 0);
    console.log(
      `contract: ${shared.length - missing.length} of ${shared.length} shared operations covered with a validated 2xx ` +
        `(${statuses} operation/status pairs), ${validatedResponses} responses validated against Codat's schemas ` +
        `(${validations} validations: one per Codat file that defines the operation)`,
    );
    for (const [label, seen] of [...covered].sort()) console.log(`contract: ${label}: ${[...seen].sort().join(', ')}`);
  });

  it.each([
    ['Codat-Platform.json', 'GET /companies/{companyId}', (body: Body) => ({ ...body, name: 42 }), '/name'],
    [
      'Codat-Platform.json',
      'GET /companies/{companyId}/data/history/{datasetId}',
      (body: Body) => ({ ...body, status: 'Bogus' }),
      '/status',
    ],
    [
      'Codat-Lending.yaml',
      'GET /companies/{companyId}/data/invoices/{recordId}',
      (body: Body) => ({ ...body, status: 'Bogus' }),
      '/status',
    ],
    [
      'Codat-Banking.json',
      'GET /companies/{companyId}/connections/{connectionId}/data/banking-accounts',
      firstAccountAvailable('lots'),
      '/results/0/balance/available',
    ],
  ] as const)('%s rejects a real %s response with one field made wrong', (file, label, spoil, errorAt) => {
    const real = passed.get(`${file} ${label}`);
    expect(real, `a validated response of ${label}`).toBeDefined();
    const { body, validate } = real!;
    expect(validate(body)).toBe(true);
    expect(validate(spoil(body as Body))).toBe(false);
    expect(oasErrors(validate)).toContain(errorAt);
  });

  it('covered every shared operation with a 2xx that matches our own /openapi.json', () => {
    const missing = shared.map(labelOf).filter((label) => ![...(ownCovered.get(label) ?? [])].some((s) => s >= 200 && s < 300));
    const statuses = [...ownCovered.values()].reduce((n, s) => n + s.size, 0);
    console.log(
      `own contract: ${shared.length - missing.length} of ${shared.length} operations with a 2xx matching our own /openapi.json ` +
        `(${statuses} operation/status pairs, ${ownValidations} JSON bodies validated strictly)`,
    );
    expect(missing).toEqual([]);
  });

  it.each([
    ['GET /companies/{companyId} 200', ''],
    ['GET /companies/{companyId}/data/invoices 200', '/results/0'],
    ['GET /companies/{companyId}/data/invoices 200', '/results/0/lineItems/0'],
    ['GET /companies/{companyId}/data/financials/profitAndLoss 200', ''],
    ['GET /companies/{companyId}/data/financials/profitAndLoss 200', '/reports/0/income/items/0'],
    ['GET /companies/{companyId}/connections 200', '/results/0'],
    ['POST /companies/{companyId}/connections/{connectionId}/files 200', '/files/0/statements/0'],
    ['GET /companies 401', ''],
  ] as const)('our own /openapi.json refuses a real %s response with an undeclared field at "%s"', (key, at) => {
    const body = ownPassed.get(key);
    expect(body, `a validated response of ${key}`).toBeDefined();
    const [method, template, status] = key.split(' ');
    const declared = own!.response(method, template, Number(status));
    if (declared.kind !== 'schema') throw new Error(`${key}: no JSON schema`);
    expect(declared.validate(body)).toBe(true);
    const spoilt = structuredClone(body) as Body;
    const target =
      at === ''
        ? spoilt
        : at
            .slice(1)
            .split('/')
            .reduce<unknown>((node, step) => (node as Body)[step], spoilt);
    expect(target, `${at} is an object of the real body`).toBeTypeOf('object');
    (target as Body).undeclaredByTheTest = 'x';
    expect(declared.validate(spoilt)).toBe(false);
    expect(oasErrors(declared.validate)).toContain(`${at || '/'} must NOT have`);
    expect(oasErrors(declared.validate)).toContain('undeclaredByTheTest');
  });

  it('our own /openapi.json refuses a status or a request body an operation does not declare', () => {
    const op = shared.find((o) => labelOf(o) === 'GET /companies/{companyId}')!;
    const real = {
      status: 200,
      headers: new Headers({ 'content-type': 'application/json' }),
      text: '{}',
      body: ownPassed.get(`${labelOf(op)} 200`),
    };
    expect(validateOwn(op, { name: 'real', ids: {}, status: 200 }, real)).toEqual([]);
    expect(validateOwn(op, { name: 'teapot', ids: {}, status: 418 }, { ...real, status: 418 })).toEqual([
      `/openapi.json does not declare 418 for ${labelOf(op)}`,
    ]);
    expect(validateOwn(op, { name: 'with a body', ids: {}, body: {}, status: 200 }, real)).toEqual([
      `/openapi.json declares no application/json request body for ${labelOf(op)}`,
    ]);
  });

  it('our own /openapi.json leaves open only the objects that are free by definition', () => {
    // Each accepts any property by saying so, which strictness cannot reach: anything else open is under-declared.
    const open = openObjects(served!);
    expect(open.filter((at) => !FREE_OBJECTS.some(({ at: free }) => free.test(at)))).toEqual([]);
    expect(FREE_OBJECTS.filter(({ at: free }) => !open.some((at) => free.test(at))).map(({ why }) => why)).toEqual([]);
  });
});

/** The response objects of our own document that accept any property, each free in Codat's files too. */
const FREE_OBJECTS: { at: RegExp; why: string }[] = [
  { at: /^Connection\/properties\/connectionInfo$/, why: 'connectionInfo: what a platform says of the connection, in its own terms' },
  {
    at: /^Data_\w+\/properties\/supplementalData\/properties\/content\/(anyOf\/0\/)?additionalProperties$/,
    why: 'supplementalData.content: the fields a client asked of the platform, by its own names',
  },
];

describe('making our own document strict', () => {
  /** A validator of one schema, made strict as the contract test makes our own document. */
  function strict(schema: object) {
    const document = strictDocument({ paths: {}, components: { schemas: { S: schema } } } as unknown as OasDocument);
    const id = 'https://oas.ledgerport.test/strictness';
    return compileDocument(id, document).getSchema(`${id}#/components/schemas/S`)!;
  }
  const a = { type: 'string' };

  it('closes an object that lists its properties', () => {
    const validate = strict({ type: 'object', properties: { a } });
    expect(validate({ a: 'x' })).toBe(true);
    expect(validate({ a: 'x', b: 'y' })).toBe(false);
  });

  it('keeps what a schema says of other properties', () => {
    const map = strict({ type: 'object', properties: { a }, additionalProperties: { type: 'number' } });
    expect(map({ a: 'x', n: 1 })).toBe(true);
    expect(map({ a: 'x', n: 'y' })).toBe(false);
    expect(strict({ type: 'object', properties: { a }, patternProperties: { '^x-': {} } })({ 'x-y': 1 })).toBe(true);
  });

  it('closes an allOf as one object, not each part', () => {
    const validate = strict({
      allOf: [
        { type: 'object', properties: { a } },
        { type: 'object', properties: { b: a } },
      ],
    });
    expect(validate({ a: 'x', b: 'y' })).toBe(true);
    expect(validate({ a: 'x', b: 'y', c: 'z' })).toBe(false);
  });

  it('closes each alternative of an anyOf, and the parts beside listed properties as one object', () => {
    const nullable = strict({ anyOf: [{ type: 'object', properties: { a } }, { type: 'null' }] });
    expect(nullable(null)).toBe(true);
    expect(nullable({ a: 'x' })).toBe(true);
    expect(nullable({ a: 'x', b: 'y' })).toBe(false);
    const parts = strict({
      type: 'object',
      properties: { a },
      anyOf: [
        { properties: { b: a }, required: ['b'] },
        { properties: { c: a }, required: ['c'] },
      ],
    });
    expect(parts({ a: 'x', b: 'y' })).toBe(true);
    expect(parts({ a: 'x', c: 'y', d: 'z' })).toBe(false);
  });

  it('refuses a $ref it cannot open as one part of an object', () => {
    expect(() => strict({ allOf: [{ $ref: '#/components/schemas/T' }, { type: 'object', properties: { a } }] })).toThrow(/\$ref/);
  });
});

type Body = Record<string, unknown>;

/** A page of bank accounts whose first account's available balance is `value`. */
function firstAccountAvailable(value: unknown): (page: Body) => Body {
  return (page) => {
    const [first, ...rest] = page.results as Body[];
    return { ...page, results: [{ ...first, balance: { ...(first.balance as Body), available: value } }, ...rest] };
  };
}
