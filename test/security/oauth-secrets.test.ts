import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientsService } from '../../src/access/clients.service.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';
import { basicAuth, http } from '../helpers/test-server.js';
import { answering, exited, startService, type ServiceProcess } from '../helpers/processes.js';
import { companyWithConnection, waitForOperation, waitForSyncs } from '../helpers/sandbox.js';
import { assertCliBuilt, CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { startXeroFake } from '../fakes/xero/xero-fake.js';
import { startQboFake } from '../fakes/quickbooks/qbo-fake.js';
import { startSquareFake } from '../fakes/square/square-fake.js';

/** What the test needs of a vendor's fake: its configuration, the secrets it handed out, and consent to take back. */
interface OAuthFake {
  readonly clientSecret: string;
  readonly issued: Set<string>;
  env(): Record<string, string>;
  expireTokens(): void;
  revokeConsents(): void;
  close(): Promise<void>;
}

/** Each OAuth platform: its fake with one organisation, a type read after the token expired, one read after revocation. */
const PLATFORMS: {
  name: string;
  key: string;
  start: () => Promise<OAuthFake>;
  refreshed: string;
  refused: string;
  write?: { dataType: string; record: unknown };
}[] = [
  {
    name: 'Xero',
    key: 'gbol',
    start: async () => {
      const fake = await startXeroFake();
      fake.addTenant('Secretive Ltd').seedInvoices(20, 'ACCREC');
      return fake;
    },
    refreshed: 'chartOfAccounts',
    refused: 'taxRates',
    write: { dataType: 'customers', record: { customerName: 'New customer', status: 'Active' } },
  },
  {
    name: 'QuickBooks Online',
    key: 'qhyg',
    start: async () => {
      const fake = await startQboFake();
      fake.addRealm('Secretive Books').seedInvoices(20);
      return fake;
    },
    refreshed: 'chartOfAccounts',
    refused: 'taxRates',
  },
  {
    name: 'Square',
    key: 'zsth',
    start: async () => {
      const fake = await startSquareFake();
      fake.addMerchant('Secretive Corner').seedCustomers(5);
      return fake;
    },
    refreshed: 'commerce-locations',
    refused: 'commerce-customers',
  },
];

/**
 * OAuth secrets never leave the service: a real `ledgerport serve` at LOG_LEVEL=trace links each OAuth platform (its
 * fake) by following the linkUrl, syncs, refreshes an expired token, writes back (Xero), meets a revoked consent, and
 * deletes the connection (revoking its token at the vendor). The client secret, the authorization codes and every
 * access and refresh token the fake issued are then looked for in every log line and every answer: none may be there.
 */
describe.each(PLATFORMS)('OAuth secrets of $name', { timeout: CLI_TEST_TIMEOUT }, (platform) => {
  let store: TestStore;
  let fake: OAuthFake;
  let service: ServiceProcess;

  beforeAll(async () => {
    assertCliBuilt();
    store = await createTestStore();
    fake = await platform.start();
    service = await startService(store.databaseUrl, 'all', { LOG_LEVEL: 'trace', ...fake.env() });
    await answering(service);
  }, CLI_TEST_TIMEOUT);
  afterAll(async () => {
    service?.child.kill('SIGTERM');
    if (service) await exited(service.child);
    await fake?.close();
    await store?.destroy();
  });

  it('appear in no log line and no answer', async () => {
    const { key } = await createClientsService({ db: store.store.db }).create({ name: 'Secrets', plan: 'standard' });
    const client = { auth: basicAuth(key.apiKey) };
    const answers: string[] = [];
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await http(service, method, path, { auth: client.auth, body });
      answers.push(res.text, [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n'));
      return res;
    };
    const linked = await companyWithConnection(service, client, platform.key);
    const connectionPath = `/companies/${linked.companyId}/connections/${linked.connectionId}`;
    const { linkUrl } = (await api('GET', connectionPath)).body;
    // Every hop of the browser's journey, as a browser would see it.
    for (let url: string | null = linkUrl; url;) {
      const hop: Response = await fetch(url, { redirect: 'manual' });
      const text = await hop.text();
      // The vendor's own answers (its redirect carries the code to the callback) are not the service's.
      if (url.startsWith(service.url)) answers.push(text, [...hop.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n'));
      const location = hop.headers.get('location');
      url = location ? new URL(location, url).toString() : null;
    }
    expect((await api('GET', connectionPath)).body.status).toBe('Linked');
    await waitForSyncs(service, client, linked.companyId);

    fake.expireTokens();
    const queued = await api('POST', `/companies/${linked.companyId}/data/queue/${platform.refreshed}`);
    expect((await waitForOperation(service, client, linked.companyId, queued.body.id)).status).toBe('Complete');
    if (platform.write) {
      const pushed = await api('POST', `${connectionPath}/push/${platform.write.dataType}`, platform.write.record);
      expect(pushed.status, pushed.text).toBe(200);
      await waitForSyncs(service, client, linked.companyId);
      await api('GET', `/companies/${linked.companyId}/push/${pushed.body.pushOperationKey}`);
    }

    fake.revokeConsents();
    const refused = await api('POST', `/companies/${linked.companyId}/data/queue/${platform.refused}`);
    expect((await waitForOperation(service, client, linked.companyId, refused.body.id)).status).toBe('AuthError');
    await api('GET', connectionPath);
    await api('GET', `/companies/${linked.companyId}/data/history`);
    await api('GET', `/companies/${linked.companyId}/dataStatus`);
    await api('DELETE', connectionPath);

    const secrets = [fake.clientSecret, ...fake.issued];
    expect(secrets.length).toBeGreaterThan(4);
    const log = service.output();
    expect(log.length).toBeGreaterThan(1000);
    for (const secret of secrets) {
      expect(
        log.split('\n').filter((line) => line.includes(secret)),
        'a secret in a log line',
      ).toEqual([]);
      for (const answer of answers) expect(answer, 'a secret in an answer').not.toContain(secret);
    }
  });
});
