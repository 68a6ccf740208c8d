import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setEnv } from '../../helpers/env.js';
import { startTestServer, type TestClient, type TestServer } from '../../helpers/test-server.js';
import { syncAtOnce } from '../../helpers/load-sync.js';
import { startQboFake, type QboFake } from '../../fakes/quickbooks/qbo-fake.js';
import { QUICKBOOKS } from '../../../src/connectors/quickbooks/platform.js';

/**
 * Politeness under load: a sync of 20,000 invoices from one QuickBooks company, with other data types of the same
 * company read at once, never exceeds Intuit's limits per realm (10 requests in flight, 500 a minute), which the
 * fake counts as Intuit does, answering 429 past them. The figure is printed, not asserted.
 */
const INVOICES = 20_000;

let fake: QboFake;
let server: TestServer;
let client: TestClient;
let restoreEnv: () => void;

beforeAll(async () => {
  fake = await startQboFake();
  fake.limits = { concurrent: 10, perWindow: 500, windowMs: 60_000 };
  // Each answer takes a little while, so requests in flight overlap and are counted.
  fake.latencyMs = 20;
  const realm = fake.addRealm('Busy Ledgers');
  realm.seedInvoices(INVOICES);
  realm.seedBills(200);
  fake.consent = { grant: true, realm };
  restoreEnv = setEnv(fake.env());
  server = await startTestServer();
  client = await server.newClient();
}, 120_000);

afterAll(async () => {
  await server?.close();
  await fake?.close();
  restoreEnv?.();
});

describe("QuickBooks Online's limits under load", () => {
  it('syncs 20,000 invoices and four more types at once, never past 10 in flight or 500 a minute, with no 429', async () => {
    // The connector's own budget is Intuit's: what it declares is what the fake enforces.
    expect(QUICKBOOKS.transport.politeness).toMatchObject({ maxConcurrent: 10, requests: 500, windowMs: 60_000 });
    const types = ['invoices', 'customers', 'bills', 'suppliers', 'chartOfAccounts'];
    const { elapsedMs: elapsed, invoices } = await syncAtOnce(server, client, 'qhyg', types);
    expect(invoices).toBe(INVOICES);
    const requests = fake.apiRequests();
    const peak = [...fake.peaks.values()][0];
    expect(peak.inFlight).toBeLessThanOrEqual(10);
    expect(peak.inWindow).toBeLessThanOrEqual(500);
    expect(requests.filter((r) => r.status === 429)).toEqual([]);
    console.log(
      `[qbo limits] ${INVOICES} invoices and ${types.length - 1} more types in ${requests.length} requests: ${elapsed} ms ` +
        `(peak ${peak.inFlight} in flight, ${peak.inWindow} in a minute: 1,000 a page, the minute's 500 never binds)`,
    );
    expect(fake.violations).toEqual([]);
  }, 240_000);
});
