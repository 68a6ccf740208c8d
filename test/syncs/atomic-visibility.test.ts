import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { authorize, companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs } from '../helpers/sandbox.js';

let server: TestServer;
let client: TestClient;

beforeAll(async () => {
  server = await startTestServer({ jobs: { concurrency: 1 } });
  client = await server.newClient();
});
afterAll(() => server.close());

describe('atomic visibility', () => {
  it('shows readers the previous complete version or the new one, never part of one', async () => {
    const linked = await companyWithConnection(server, client);
    const { companyId, connectionId } = linked;
    // Invoices only, so the second sync below is the only work running.
    await fetchOnFirstLinkOnly(server, { auth: client.auth }, companyId, ['invoices']);
    await authorize(server, client, linked, { size: 'small' });
    await waitForSyncs(server, client, companyId);
    const oldTotal = (await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth: client.auth })).body
      .totalResults;
    expect(oldTotal).toBe(200);

    // Relinked with a larger data set: the next invoices sync replaces 200 invoices with 200 + 60,000.
    const base = `/companies/${companyId}/connections/${connectionId}`;
    expect((await http(server, 'PATCH', base, { auth: client.auth, body: { status: 'Unlinked' } })).status).toBe(200);
    await authorize(server, client, linked, { invoices: '60000' });
    const op = (await http(server, 'GET', `/companies/${companyId}/data/history?query=status%21%3DComplete`, { auth: client.auth })).body
      .results[0];
    expect(op.dataType).toBe('invoices');

    const seen = new Set<number>();
    let readsWhileFetching = 0;
    for (;;) {
      const status = (await http(server, 'GET', `/companies/${companyId}/data/history/${op.id}`, { auth: client.auth })).body.status;
      const page = await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=100`, { auth: client.auth });
      expect(page.status).toBe(200);
      seen.add(page.body.totalResults);
      expect(page.body.results.length).toBe(Math.min(100, page.body.totalResults));
      if (status === 'Fetching' && page.body.totalResults === oldTotal) readsWhileFetching++;
      if (status === 'Complete') break;
      expect(['Queued', 'Fetching']).toContain(status);
    }
    const newTotal = (await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth: client.auth })).body
      .totalResults;
    expect(newTotal).toBeGreaterThan(60_000);
    expect([...seen].sort()).toEqual([oldTotal, newTotal].filter((n) => seen.has(n)).sort());
    expect([...seen].every((n) => n === oldTotal || n === newTotal)).toBe(true);
    // The reads above really happened while the new version was being written.
    expect(readsWhileFetching).toBeGreaterThan(0);
  }, 180_000);
});
