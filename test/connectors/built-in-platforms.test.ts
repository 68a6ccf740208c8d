import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { linkedSandbox, waitForSyncs } from '../helpers/sandbox.js';
import { readsEveryClaimedType } from '../helpers/claimed-reads.js';
import { statementFixture } from '../security/fixtures.js';
import { http } from '../helpers/test-server.js';

/*
 * The built-in platforms serve every data type their declarations claim to Get, through the API, each answer valid
 * against the server's own /openapi.json: the three Sandboxes (a company of 500 invoices, so that even the sparse
 * types such as bill credit notes have records whatever the connection's seed) and Bank statement files (one MT940
 * statement uploaded). Each type read is recorded for the capability matrix.
 */

let server: TestServer;
let client: TestClient;

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient();
});
afterAll(() => server?.close());

describe('the built-in platforms', () => {
  it.each(['mqjo', 'bsbx', 'aiwb'])(
    'the %s Sandbox serves every data type it claims to Get, valid against its own OpenAPI document',
    async (key) => {
      const linked = await linkedSandbox(server, client, key, { invoices: '500' });
      await waitForSyncs(server, client, linked.companyId, 120_000);
      await readsEveryClaimedType(server, client, linked, key);
    },
    120_000,
  );

  it('Bank statement files serve every data type they claim to Get, from an uploaded statement', async () => {
    const company = await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Statement files' } });
    const { connectionId } = await statementFixture(server, client, company.body.id);
    await waitForSyncs(server, client, company.body.id);
    await readsEveryClaimedType(server, client, { companyId: company.body.id, connectionId }, 'fstm');
  });
});
