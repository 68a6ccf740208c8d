import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { linkedSandbox, waitForOperation, waitForSyncs, type LinkedCompany } from '../helpers/sandbox.js';

/**
 * A sync whose store fails outside the platform read (here: the table of versions is away) ends InternalError, with
 * nothing internal in its message, and the type can be synced again at once: it is never left Queued or Fetching.
 */
let server: TestServer;
let client: TestClient;
let linked: LinkedCompany;

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient();
  linked = await linkedSandbox(server, client);
  await waitForSyncs(server, client, linked.companyId);
}, 120_000);
afterAll(async () => server?.close());

describe('a sync the store fails', () => {
  it('ends InternalError instead of staying unfinished, and the type syncs again', async () => {
    const queue = () => http(server, 'POST', `/companies/${linked.companyId}/data/queue/invoices`, { auth: client.auth });
    await sql`ALTER TABLE record_versions RENAME TO record_versions_away`.execute(server.store.db);
    let failed;
    try {
      const queued = await queue();
      expect(queued.status, queued.text).toBe(200);
      failed = await waitForOperation(server, client, linked.companyId, queued.body.id, 15_000);
    } finally {
      await sql`ALTER TABLE record_versions_away RENAME TO record_versions`.execute(server.store.db);
    }
    expect(failed).toMatchObject({ status: 'InternalError', isErrored: true });
    expect(failed.errorMessage).toBe('The sync failed inside the service; the previous data is still served. Queue it again.');

    const again = await queue();
    expect(again.status, again.text).toBe(200);
    expect(await waitForOperation(server, client, linked.companyId, again.body.id)).toMatchObject({ status: 'Complete' });
  });
});
