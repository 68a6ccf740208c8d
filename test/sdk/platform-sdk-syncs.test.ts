import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { ErrorMessage } from '@codat/platform/sdk/models/errors/index.js';
import { startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { waitForOperation, waitForSyncs } from '../helpers/sandbox.js';

/** The official SDK drives connections, refreshes and sync history without a validation error. */

let server: TestServer;
let client: TestClient;
let sdk: CodatPlatform;

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient();
  sdk = new CodatPlatform({ authHeader: client.auth, serverURL: server.url, retryConfig: { strategy: 'none' } });
});
afterAll(() => server.close());

describe('@codat/platform against connections and syncs', () => {
  it('creates, authorises, lists, unlinks and deletes connections', async () => {
    const company = await sdk.companies.create({ name: 'SDK syncs' });
    const created = await sdk.connections.create({ companyId: company.id, requestBody: { platformKey: 'mqjo' } });
    expect(created).toMatchObject({ integrationKey: 'mqjo', sourceType: 'Accounting', status: 'PendingAuth' });
    const linked = await sdk.connections.updateAuthorization({
      companyId: company.id,
      connectionId: created.id,
      requestBody: { size: 'small' },
    });
    expect(linked.status).toBe('Linked');
    const list = await sdk.connections.list({ companyId: company.id, query: 'status=Linked' });
    expect(list.totalResults).toBe(1);
    expect(list.links.self.href).toBe(`/companies/${company.id}/connections`);
    expect((await sdk.connections.get({ companyId: company.id, connectionId: created.id })).id).toBe(created.id);
    const bank = await sdk.connections.create({ companyId: company.id, requestBody: { platformKey: 'bsbx' } });
    await sdk.connections.updateAuthorization({ companyId: company.id, connectionId: bank.id, requestBody: {} });
    const withConnections = await sdk.companies.get({ companyId: company.id });
    expect(withConnections.dataConnections).toHaveLength(2);

    await waitForSyncs(server, client, company.id);
    const unlinked = await sdk.connections.unlink({
      companyId: company.id,
      connectionId: bank.id,
      updateConnectionStatus: { status: 'Unlinked' as never },
    });
    expect(unlinked.status).toBe('Unlinked');
    await sdk.connections.delete({ companyId: company.id, connectionId: bank.id });
    expect((await sdk.connections.list({ companyId: company.id })).totalResults).toBe(1);
  }, 120_000);

  it('refreshes data and reads data status and pull-operation history', async () => {
    const company = await sdk.companies.create({ name: 'SDK refresh' });
    const connection = await sdk.connections.create({ companyId: company.id, requestBody: { platformKey: 'aiwb' } });
    await sdk.connections.updateAuthorization({ companyId: company.id, connectionId: connection.id, requestBody: { size: 'small' } });
    await waitForSyncs(server, client, company.id);

    const status = await sdk.refreshData.get({ companyId: company.id });
    expect(Object.keys(status)).toContain('commerceOrders');
    expect(status.commerceOrders?.currentStatus).toBe('Complete');

    const op = await sdk.refreshData.byDataType({ companyId: company.id, dataType: 'commerce-orders' as never });
    expect(op).toMatchObject({ dataType: 'commerce-orders', status: 'Queued', isCompleted: false });
    await waitForOperation(server, client, company.id, op.id);
    await sdk.refreshData.all({ companyId: company.id });
    await waitForSyncs(server, client, company.id);

    const history = await sdk.refreshData.listPullOperations({
      companyId: company.id,
      query: 'dataType=commerce-orders',
      orderBy: '-requested',
    });
    expect(history.totalResults).toBe(3);
    expect(history.results?.[0].status).toBe('Complete');
    const one = await sdk.refreshData.getPullOperation({ companyId: company.id, datasetId: op.id });
    expect(one).toMatchObject({ id: op.id, status: 'Complete', progress: 100, isCompleted: true });

    const unsupported = await sdk.refreshData.byDataType({ companyId: company.id, dataType: 'invoices' as never }).catch((e: unknown) => e);
    expect(unsupported).toBeInstanceOf(ErrorMessage);
    expect((unsupported as ErrorMessage).data$.error).toBe('Datatype invoices not supported by platform(s) Commerce Sandbox');
  }, 120_000);

  it('reads and sets sync settings', async () => {
    const settings = await sdk.settings.getSyncSettings();
    expect(settings.settings?.length).toBe(43);
    await sdk.settings.updateSyncSettings({
      clientId: client.clientId,
      overridesDefaults: true,
      settings: [{ dataType: 'invoices' as never, fetchOnFirstLink: true, syncSchedule: 12, syncOrder: 0 }],
    });
    const after = await sdk.settings.getSyncSettings();
    expect(after.settings?.find((s) => s.dataType === 'invoices')?.syncSchedule).toBe(12);
    const company = await sdk.companies.create({ name: 'SDK settings' });
    const companySettings = await sdk.companies.getCompanySyncSettings({ companyId: company.id });
    expect(companySettings.settings?.find((s) => s.dataType === 'invoices')?.syncSchedule).toBe(12);
  });
});
