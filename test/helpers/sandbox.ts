import { expect } from 'vitest';
import { http, type TestClient, type TestServer } from './test-server.js';

export interface LinkedCompany {
  companyId: string;
  connectionId: string;
}

/** Creates a company with a connection to `platformKey`, unlinked (PendingAuth). */
export async function companyWithConnection(server: TestServer, client: TestClient, platformKey = 'mqjo', companyId?: string): Promise<LinkedCompany> {
  const id = companyId ?? (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: `Sandbox ${platformKey}` } })).body.id;
  const connection = await http(server, 'POST', `/companies/${id}/connections`, { auth: client.auth, body: { platformKey } });
  expect(connection.status, connection.text).toBe(200);
  return { companyId: id, connectionId: connection.body.id };
}

/** Links a connection through the API (no browser), picking the Sandbox data set. */
export async function authorize(server: TestServer, client: TestClient, linked: LinkedCompany, body: Record<string, string> = { size: 'small' }) {
  const res = await http(server, 'PUT', `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`, { auth: client.auth, body });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** A company linked to the Sandbox platform, its first-link syncs queued. */
export async function linkedSandbox(server: TestServer, client: TestClient, platformKey = 'mqjo', body?: Record<string, string>): Promise<LinkedCompany> {
  const linked = await companyWithConnection(server, client, platformKey);
  await authorize(server, client, linked, body);
  return linked;
}

/** Polls the company's data status until no sync is Queued or Fetching; returns the final status object. */
export async function waitForSyncs(server: TestServer, client: TestClient, companyId: string, timeoutMs = 60_000): Promise<Record<string, { currentStatus: string }>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await http(server, 'GET', `/companies/${companyId}/dataStatus`, { auth: client.auth });
    expect(res.status, res.text).toBe(200);
    const statuses = Object.values(res.body as Record<string, { currentStatus: string }>);
    if (!statuses.some((s) => s.currentStatus === 'Queued' || s.currentStatus === 'Fetching')) return res.body;
    if (Date.now() > deadline) throw new Error(`syncs still running after ${timeoutMs} ms: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls one pull operation until it has finished. */
export async function waitForOperation(server: TestServer, client: TestClient, companyId: string, id: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await http(server, 'GET', `/companies/${companyId}/data/history/${id}`, { auth: client.auth });
    expect(res.status, res.text).toBe(200);
    if (res.body.status !== 'Queued' && res.body.status !== 'Fetching') return res.body;
    if (Date.now() > deadline) throw new Error(`operation ${id} still running: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
