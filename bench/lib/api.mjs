// A small client of the Ledgerport API: the calls the run makes to build its data and follow syncs.
import { SYNC_TIMEOUT_MS } from './config.mjs';
import { request } from './http.mjs';
import { ACCOUNTING_DATA_TYPES } from '../../dist/codat-model/data-types.js';

/** Codat's authorisation header: Basic with the Base64 of the API key alone. */
export const authorizationOf = (apiKey) => `Basic ${Buffer.from(apiKey).toString('base64')}`;

/**
 * The accounting data types the run's sync settings list (the Sandbox `mqjo` provides them): the service's own list,
 * from the build every benchmark starts with.
 */
export const ACCOUNTING_TYPES = ACCOUNTING_DATA_TYPES;

/** Paged lists of those types and where they are read: company-scoped, or under the connection. */
export const LISTS = [
  ['chartOfAccounts', 'accounts', 'company'],
  ['bills', 'bills', 'company'],
  ['billPayments', 'billPayments', 'company'],
  ['billCreditNotes', 'billCreditNotes', 'company'],
  ['creditNotes', 'creditNotes', 'company'],
  ['customers', 'customers', 'company'],
  ['suppliers', 'suppliers', 'company'],
  ['items', 'items', 'company'],
  ['itemReceipts', 'itemReceipts', 'company'],
  ['taxRates', 'taxRates', 'company'],
  ['trackingCategories', 'trackingCategories', 'company'],
  ['journalEntries', 'journalEntries', 'company'],
  ['journals', 'journals', 'company'],
  ['payments', 'payments', 'company'],
  ['paymentMethods', 'paymentMethods', 'company'],
  ['purchaseOrders', 'purchaseOrders', 'company'],
  ['salesOrders', 'salesOrders', 'company'],
  ['invoices', 'invoices', 'company'],
  ['bankAccounts', 'bankAccounts', 'connection'],
  ['accountTransactions', 'accountTransactions', 'connection'],
  ['directCosts', 'directCosts', 'connection'],
  ['directIncomes', 'directIncomes', 'connection'],
  ['transfers', 'transfers', 'connection'],
].map(([dataType, segment, scope]) => ({ dataType, segment, scope }));

const ACTIVE = new Set(['Queued', 'Fetching']);

export function createApi(baseUrl, apiKey) {
  const authorization = authorizationOf(apiKey);

  async function call(method, path, body) {
    const res = await request(baseUrl + path, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = res.bytes.toString('utf8');
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : undefined;
  }

  return {
    authorization,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),

    /** `GET path` as {status, bytes}: sizes the ceiling's body. */
    raw: (path) => request(baseUrl + path, { headers: { authorization } }),

    /** Saves company sync settings in which only `firstLinkTypes` are fetched on first link (and by data/all). */
    setFirstLinkTypes(companyId, firstLinkTypes) {
      const settings = ACCOUNTING_TYPES.map((dataType, syncOrder) => ({
        dataType,
        fetchOnFirstLink: firstLinkTypes.includes(dataType),
        syncSchedule: 24,
        syncOrder,
        ...(['balanceSheet', 'profitAndLoss', 'cashFlowStatement'].includes(dataType) ? { monthsToSync: 24 } : {}),
      }));
      return call('POST', `/companies/${companyId}/syncSettings`, { companyId, settings });
    },

    /** Polls the company's data status until every one of `dataTypes` is Complete; throws on a failed sync or timeout. */
    async waitForComplete(companyId, dataTypes) {
      const started = performance.now();
      for (;;) {
        const status = await call('GET', `/companies/${companyId}/dataStatus`);
        const states = dataTypes.map((t) => status[t]?.currentStatus);
        if (states.some((s) => s === 'FetchError')) throw new Error(`a sync failed: ${JSON.stringify(status)}`);
        if (states.every((s) => s === 'Complete')) return;
        if (performance.now() - started > SYNC_TIMEOUT_MS) throw new Error('the syncs did not finish');
        await sleep(1000);
      }
    },

    /** Polls one pull operation until it is no longer Queued/Fetching; returns it. */
    async waitForOperation(companyId, operationId, { intervalMs = 200, onProgress } = {}) {
      const deadline = Date.now() + SYNC_TIMEOUT_MS;
      for (;;) {
        const op = await call('GET', `/companies/${companyId}/data/history/${operationId}`);
        if (!ACTIVE.has(op.status)) return op;
        onProgress?.(op);
        if (Date.now() > deadline)
          throw new Error(`sync ${operationId} (${op.dataType}) still ${op.status} after ${SYNC_TIMEOUT_MS / 60000} min`);
        await sleep(intervalMs);
      }
    },

    /** Polls dataStatus until `dataType` has a sync that is not Queued/Fetching; returns its status entry. */
    async waitForDataType(companyId, dataType, { intervalMs = 200, onProgress } = {}) {
      const deadline = Date.now() + SYNC_TIMEOUT_MS;
      for (;;) {
        const status = (await call('GET', `/companies/${companyId}/dataStatus`))[dataType];
        if (status && status.currentStatus !== 'Initial' && !ACTIVE.has(status.currentStatus)) return status;
        onProgress?.(status);
        if (Date.now() > deadline) throw new Error(`${dataType} still ${status?.currentStatus} after ${SYNC_TIMEOUT_MS / 60000} min`);
        await sleep(intervalMs);
      }
    },

    /** Polls dataStatus until no type is Queued/Fetching; returns the final dataStatus. */
    async waitForIdle(companyId, { intervalMs = 1000, onProgress } = {}) {
      const deadline = Date.now() + SYNC_TIMEOUT_MS;
      for (;;) {
        const statuses = await call('GET', `/companies/${companyId}/dataStatus`);
        const active = Object.values(statuses).filter((s) => ACTIVE.has(s.currentStatus));
        if (active.length === 0) return statuses;
        onProgress?.(statuses, active);
        if (Date.now() > deadline)
          throw new Error(`syncs still running after ${SYNC_TIMEOUT_MS / 60000} min: ${active.map((s) => s.dataType).join(', ')}`);
        await sleep(intervalMs);
      }
    },
  };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `task(i)` for i in [0, count) with at most `concurrency` at once. */
export async function pool(count, concurrency, task) {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
