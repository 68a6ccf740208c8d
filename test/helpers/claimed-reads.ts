import { expect } from 'vitest';
import { findConnector } from '../../src/connectors/registry.js';
import { servedAt } from './connection-calls.js';
import type { OasDocument } from './oas.js';
import { distinctErrors, ownContract, type OwnContract } from './own-openapi.js';
import { exercised } from './capabilities.js';
import { http, type TestClient } from './test-server.js';
import type { LinkedCompany } from './sandbox.js';

/** The financial statements a platform may provide, served at `data/financials/{dataType}` (src/data/financials.routes.ts). */
const STATEMENTS = new Set(['balanceSheet', 'profitAndLoss', 'cashFlowStatement']);

const contracts = new WeakMap<object, OwnContract>();

/**
 * Reads every data type the platform's declaration claims to `Get`, through the API, from one linked connection
 * whose syncs have completed: each answers 200, valid against the server's own `/openapi.json` made strict
 * (test/helpers/own-openapi.ts), with at least one record; each is then recorded as exercised (capability matrix).
 * `except` leaves out data types this connection's data has no record of yet, for a later test to prove with `only`.
 */
export async function readsEveryClaimedType(
  server: { url: string },
  client: Pick<TestClient, 'auth'>,
  linked: LinkedCompany,
  platform: string,
  options: { except?: readonly string[]; only?: readonly string[] } = {},
): Promise<void> {
  const declaration = findConnector(platform)?.declaration;
  if (!declaration) throw new Error(`no platform ${platform}`);
  let own = contracts.get(server);
  if (!own) {
    const served = await http<OasDocument>(server, 'GET', '/openapi.json');
    expect(served.status).toBe(200);
    own = ownContract(served.body);
    contracts.set(server, own);
  }
  const get: Get = (path) => http(server, 'GET', path, { auth: client.auth });
  const company = `/companies/${linked.companyId}`;
  const connection = `${company}/connections/${linked.connectionId}`;
  const problems: string[] = [];
  for (const [dataType, { features }] of Object.entries(declaration.dataTypes)) {
    if (!features.includes('Get') || options.except?.includes(dataType)) continue;
    if (options.only && !options.only.includes(dataType)) continue;
    const read = await readOf(dataType, get, company, connection);
    const declared = own.response('GET', read.template, 200);
    if (declared.kind !== 'schema') throw new Error(`/openapi.json declares no JSON answer for GET ${read.template}`);
    if (read.answer.status !== 200) problems.push(`${dataType}: HTTP ${read.answer.status} ${read.answer.text.slice(0, 200)}`);
    else if (!declared.validate(read.answer.body)) problems.push(`${dataType}: ${distinctErrors(declared.validate)}`);
    else if (read.records === 0) problems.push(`${dataType}: no record served`);
    else exercised(platform, dataType, 'Get');
  }
  // Every type is read before the verdict, so one run names every type that failed.
  expect(problems).toEqual([]);
}

type Get = (path: string) => Promise<Awaited<ReturnType<typeof http<any>>>>;

/** Where a data type is read, the template `/openapi.json` names that path by, and how many records came. */
async function readOf(dataType: string, get: Get, company: string, connection: string) {
  if (STATEMENTS.has(dataType)) {
    const answer = await get(`${company}/data/financials/${dataType}?periodLength=1&periodsToCompare=3`);
    return { answer, template: `/companies/{companyId}/data/financials/${dataType}`, records: answer.body?.reports?.length ?? 0 };
  }
  if (dataType === 'bankTransactions') {
    // Served per bank account: the first account that has any.
    const accounts = await get(`${connection}/data/bankAccounts?pageSize=100`);
    const template = '/companies/{companyId}/connections/{connectionId}/data/bankAccounts/{accountId}/bankTransactions';
    let answer = accounts;
    for (const account of accounts.body?.results ?? []) {
      answer = await get(`${connection}/data/bankAccounts/${encodeURIComponent(account.id)}/bankTransactions?pageSize=100`);
      if (answer.status !== 200 || answer.body.results.length > 0) break;
    }
    return { answer, template, records: answer.body?.results?.length ?? 0 };
  }
  const { template, kind } = servedAt(dataType);
  const path = template.replace('/companies/{companyId}/connections/{connectionId}', connection).replace('/companies/{companyId}', company);
  const answer = await get(`${path}${kind === 'list' ? '?pageSize=100' : ''}`);
  const records = kind === 'list' ? (answer.body?.results?.length ?? 0) : answer.body && typeof answer.body === 'object' ? 1 : 0;
  return { answer, template, records };
}
