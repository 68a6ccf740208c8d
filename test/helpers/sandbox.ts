import { expect } from 'vitest';
import { DATA_TYPES } from '../../src/codat-model/data-types.js';
import { http, type TestClient } from './test-server.js';

/** Anything answering the API: an in-process test server or a service process. */
type Server = { url: string };
/** Whoever calls: only the Authorization header is needed. */
type Caller = Pick<TestClient, 'auth'>;

export interface LinkedCompany {
  companyId: string;
  connectionId: string;
}

/** Creates a company with a connection to `platformKey`, unlinked (PendingAuth). */
export async function companyWithConnection(
  server: Server,
  client: Caller,
  platformKey = 'mqjo',
  companyId?: string,
): Promise<LinkedCompany> {
  const id =
    companyId ?? (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: `Sandbox ${platformKey}` } })).body.id;
  const connection = await http(server, 'POST', `/companies/${id}/connections`, { auth: client.auth, body: { platformKey } });
  expect(connection.status, connection.text).toBe(200);
  return { companyId: id, connectionId: connection.body.id };
}

/** Links a connection through the API (no browser), picking the Sandbox data set. */
export async function authorize(server: Server, client: Caller, linked: LinkedCompany, body: Record<string, string> = { size: 'small' }) {
  const res = await http(server, 'PUT', `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`, {
    auth: client.auth,
    body,
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** A company linked to the Sandbox platform, its first-link syncs queued. */
export async function linkedSandbox(
  server: Server,
  client: Caller,
  platformKey = 'mqjo',
  body?: Record<string, string>,
): Promise<LinkedCompany> {
  const linked = await companyWithConnection(server, client, platformKey);
  await authorize(server, client, linked, body);
  return linked;
}

/**
 * Saves company sync settings in which only `dataTypes` are fetched on first link, so that a test waits for the
 * syncs it is about and no others.
 */
export async function fetchOnFirstLinkOnly(server: Server, client: Caller, companyId: string, dataTypes: readonly string[]): Promise<void> {
  const settings = DATA_TYPES.map((dataType, syncOrder) => ({
    dataType,
    fetchOnFirstLink: dataTypes.includes(dataType),
    syncSchedule: 24,
    syncOrder,
  }));
  const res = await http(server, 'POST', `/companies/${companyId}/syncSettings`, { auth: client.auth, body: { companyId, settings } });
  expect(res.status, res.text).toBe(204);
}

/** A sync not yet finished: queued, running, or an ended upload session's waiting for the sync ahead of it. */
const UNFINISHED = new Set(['Queued', 'Fetching', 'ProcessingQueued']);

/** Polls the company's data status until no sync is queued, running or waiting to run (ProcessingQueued); returns the final status object. */
export async function waitForSyncs(
  server: Server,
  client: Caller,
  companyId: string,
  timeoutMs = 60_000,
): Promise<Record<string, { currentStatus: string }>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await http(server, 'GET', `/companies/${companyId}/dataStatus`, { auth: client.auth });
    expect(res.status, res.text).toBe(200);
    const statuses = Object.values(res.body as Record<string, { currentStatus: string }>);
    if (!statuses.some((s) => UNFINISHED.has(s.currentStatus))) return res.body;
    if (Date.now() > deadline) throw new Error(`syncs still running after ${timeoutMs} ms: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls a push operation until the platform has settled it (no longer Pending). */
export async function waitForPush(server: Server, client: Caller, companyId: string, key: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await http(server, 'GET', `/companies/${companyId}/push/${key}`, { auth: client.auth });
    expect(res.status, res.text).toBe(200);
    if (res.body.status !== 'Pending') return res.body;
    if (Date.now() > deadline) throw new Error(`push ${key} still Pending: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Polls one pull operation until it has finished. */
export async function waitForOperation(server: Server, client: Caller, companyId: string, id: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await http(server, 'GET', `/companies/${companyId}/data/history/${id}`, { auth: client.auth });
    expect(res.status, res.text).toBe(200);
    if (!UNFINISHED.has(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`operation ${id} still running: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
