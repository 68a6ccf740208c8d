import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createTestStore, type TestStore } from '../../helpers/test-store.js';
import { createClientsService } from '../../../src/access/clients.service.js';
import { basicAuth, http } from '../../helpers/test-server.js';
import { answering, exited, startService, type ServiceProcess } from '../../helpers/processes.js';
import { companyWithConnection, waitForSyncs } from '../../helpers/sandbox.js';
import { hledgerMissing, startHledgerWeb, type HledgerWeb } from '../../helpers/hledger-web.js';
import { startBasicAuthProxy } from '../../helpers/basic-auth-proxy.js';
import { assertCliBuilt, CLI_TEST_TIMEOUT } from '../../helpers/cli.js';

/**
 * Credentials never reach a log line: a real `ledgerport serve` at LOG_LEVEL=trace links hledger behind a proxy
 * (a refused password, then the right one), syncs, and fails a sync when the proxy stops accepting them.
 */
const FIXTURE = fileURLToPath(new URL('./fixtures/books.journal', import.meta.url));
const missing = hledgerMissing();
if (missing) console.log(`skipping the hledger log test: ${missing}`);
const PASSWORD = 'p4ss-never-logged-7731';

describe.skipIf(missing !== undefined)('hledger credentials in logs', { timeout: CLI_TEST_TIMEOUT }, () => {
  let store: TestStore;
  let web: HledgerWeb;
  let proxy: Awaited<ReturnType<typeof startBasicAuthProxy>>;
  let service: ServiceProcess;

  beforeAll(async () => {
    assertCliBuilt();
    store = await createTestStore();
    web = await startHledgerWeb(FIXTURE);
    proxy = await startBasicAuthProxy(web.url, { username: 'books', password: PASSWORD });
    service = await startService(store.databaseUrl, 'all', { LOG_LEVEL: 'trace', CONNECTORS_ALLOW_PRIVATE: 'true' });
    await answering(service);
  }, CLI_TEST_TIMEOUT);
  afterAll(async () => {
    service?.child.kill('SIGTERM');
    if (service) await exited(service.child);
    await proxy?.close();
    await web?.stop();
    await store?.destroy();
  });

  it('appear in no log line, in no answer and in no error', async () => {
    const { key } = await createClientsService({ db: store.store.db }).create({ name: 'Logs', plan: 'standard' });
    const client = { auth: basicAuth(key.apiKey) };
    const linked = await companyWithConnection(service, client, 'hldg');
    const path = `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`;
    const wrong = await http(service, 'PUT', path, {
      auth: client.auth,
      body: { url: proxy.url, username: 'books', password: `${PASSWORD}-wrong` },
    });
    expect(wrong.status).toBe(400);
    const right = await http(service, 'PUT', path, { auth: client.auth, body: { url: proxy.url, username: 'books', password: PASSWORD } });
    expect(right.status, right.text).toBe(200);
    await waitForSyncs(service, client, linked.companyId);
    proxy.state.password = 'rotated';
    await http(service, 'POST', `/companies/${linked.companyId}/data/queue/journalEntries`, { auth: client.auth });
    await waitForSyncs(service, client, linked.companyId);
    for (const answer of [wrong.text, right.text]) expect(answer).not.toContain(PASSWORD);
    const log = service.output();
    expect(log.length).toBeGreaterThan(1000); // trace logging really ran
    expect(log).not.toContain(PASSWORD);
    expect(log).not.toContain(Buffer.from(`books:${PASSWORD}`).toString('base64'));
  });
});
