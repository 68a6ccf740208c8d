import { expect } from 'vitest';
import { http, type TestClient, type TestServer } from './test-server.js';
import { companyWithConnection, fetchOnFirstLinkOnly, waitForOperation } from './sandbox.js';

/**
 * A politeness run against a vendor's fake: a new company links an OAuth platform by following its `linkUrl`
 * (the fake consents), then `types` are queued at once, so that their reads share the organisation's limits, and
 * each sync must complete. Answers the time from queueing to the last sync complete, and how many invoices it read.
 */
export async function syncAtOnce(
  server: TestServer,
  client: TestClient,
  platformKey: string,
  types: readonly string[],
): Promise<{ elapsedMs: number; invoices: number }> {
  const linked = await companyWithConnection(server, client, platformKey);
  await fetchOnFirstLinkOnly(server, client, linked.companyId, []);
  const { linkUrl } = (
    await http(server, 'GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`, { auth: client.auth })
  ).body;
  expect((await fetch(linkUrl, { redirect: 'follow' })).status).toBe(200);
  const started = Date.now();
  const queued = await Promise.all(
    types.map((type) => http(server, 'POST', `/companies/${linked.companyId}/data/queue/${type}`, { auth: client.auth })),
  );
  for (const res of queued) {
    expect(res.status, res.text).toBe(200);
    const op = await waitForOperation(server, client, linked.companyId, res.body.id, 180_000);
    expect(op.status, JSON.stringify(op)).toBe('Complete');
  }
  const elapsedMs = Date.now() - started;
  const invoices = (await http(server, 'GET', `/companies/${linked.companyId}/data/invoices?pageSize=1`, { auth: client.auth })).body
    .totalResults;
  return { elapsedMs, invoices };
}
