import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { linkedSandbox, waitForSyncs } from '../helpers/sandbox.js';

/** The official SDK reads push history, one push operation and write options without a validation error. */

let server: TestServer;
let client: TestClient;
let sdk: CodatPlatform;

beforeAll(async () => {
  server = await startTestServer({ push: { sandboxDelayMs: 20 } });
  client = await server.newClient();
  sdk = new CodatPlatform({ authHeader: client.auth, serverURL: server.url, retryConfig: { strategy: 'none' } });
});
afterAll(() => server.close());

describe('@codat/platform against push operations', () => {
  it('lists push history and reads an operation, Pending and settled', async () => {
    const linked = await linkedSandbox(server, client);
    await waitForSyncs(server, client, linked.companyId);
    const path = `/companies/${linked.companyId}/connections/${linked.connectionId}/push/customers`;
    const ok = await http(server, 'POST', path, { auth: client.auth, body: { customerName: 'SDK Ltd', status: 'Active' } });
    const refused = await http(server, 'PUT', `${path}/no-such-customer`, {
      auth: client.auth,
      body: { customerName: 'Ghost Ltd', status: 'Active' },
    });
    expect(ok.status, ok.text).toBe(200);

    const pending = await sdk.pushData.getOperation({ companyId: linked.companyId, pushOperationKey: ok.body.pushOperationKey });
    expect(pending.pushOperationKey).toBe(ok.body.pushOperationKey);

    for (let i = 0; i < 200; i++) {
      const history = await sdk.pushData.listOperations({ companyId: linked.companyId, query: 'status=Pending' });
      if (history.totalResults === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const history = await sdk.pushData.listOperations({ companyId: linked.companyId, orderBy: '-requestedOnUtc', pageSize: 10 });
    expect(history.totalResults).toBe(2);
    expect(history.results?.map((op) => op.status)).toEqual(['Failed', 'Success']);
    const success = await sdk.pushData.getOperation({ companyId: linked.companyId, pushOperationKey: ok.body.pushOperationKey });
    expect(success).toMatchObject({ status: 'Success', dataType: 'customers', statusCode: 200 });
    expect(success.changes?.[0]?.recordRef?.id).toEqual(expect.any(String));
    const failed = await sdk.pushData.getOperation({ companyId: linked.companyId, pushOperationKey: refused.body.pushOperationKey });
    expect(failed.validation?.errors?.[0]?.validatorName).toBe('Sandbox');

    const options = await sdk.pushData.getModelOptions({
      companyId: linked.companyId,
      connectionId: linked.connectionId,
      dataType: 'invoices' as never,
    });
    expect(options.properties?.issueDate?.required).toBe(true);
  }, 120_000);
});
