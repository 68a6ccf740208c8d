import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setEnv } from '../../helpers/env.js';
import { startTestServer, type TestClient, type TestServer } from '../../helpers/test-server.js';
import { syncAtOnce } from '../../helpers/load-sync.js';
import { startXeroFake, type XeroFake } from '../../fakes/xero/xero-fake.js';

/**
 * Politeness under load: a sync of 20,000 invoices from one Xero organisation never exceeds Xero's limits (5
 * requests in flight, 60 a minute; the minute scaled down to 2 s so the test is quick) and finishes about as fast
 * as those limits allow. The fake counts what it received; the figure is printed, not asserted.
 */
const INVOICES = 20_000;
const WINDOW_MS = 2_000;

let fake: XeroFake;
let server: TestServer;
let client: TestClient;
let restoreEnv: () => void;

beforeAll(async () => {
  fake = await startXeroFake();
  fake.limits = { concurrent: 5, perWindow: 60, perDay: 5000, windowMs: WINDOW_MS };
  fake.addTenant('Busy Books').seedInvoices(INVOICES, 'ACCREC');
  restoreEnv = setEnv(fake.env());
  server = await startTestServer();
  client = await server.newClient();
}, 120_000);

afterAll(async () => {
  await server?.close();
  await fake?.close();
  restoreEnv?.();
});

describe("Xero's limits under load", () => {
  it('syncs 20,000 invoices within 5 in flight and 60 a window, with no 429, as fast as the limits allow', async () => {
    // Several data types of the one organisation at once: their reads share its limits.
    const { elapsedMs: elapsed, invoices } = await syncAtOnce(server, client, 'gbol', [
      'invoices',
      'customers',
      'chartOfAccounts',
      'payments',
    ]);
    expect(invoices).toBe(INVOICES);
    const requests = fake.apiRequests();
    const peak = [...fake.peaks.values()][0];
    expect(peak.inFlight).toBeLessThanOrEqual(5);
    expect(peak.inWindow).toBeLessThanOrEqual(60);
    expect(requests.filter((r) => r.status === 429)).toEqual([]);
    // The fewest windows the requests could take: every window but the last full.
    const floorMs = Math.floor((requests.length - 1) / 60) * WINDOW_MS;
    console.log(
      `[xero limits] ${INVOICES} invoices in ${requests.length} requests: ${elapsed} ms ` +
        `(the limits allow no less than ${floorMs} ms; peak ${peak.inFlight} in flight, ${peak.inWindow} in a ${WINDOW_MS} ms window; ` +
        `the fake itself took ${Math.round(fake.busyMs)} ms answering)`,
    );
    expect(fake.violations).toEqual([]);
  }, 240_000);
});
