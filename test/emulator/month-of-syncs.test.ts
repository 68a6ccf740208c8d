import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { CodatAccounting } from '@codat/accounting';
import { http, startTestServer, type TestServer } from '../helpers/test-server.js';
import { waitForSyncs } from '../helpers/sandbox.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { HOUR, advance, clientOnClock, invoicePulls, onlyInvoices, onlyTypes, plus, sandboxCompany } from './emulator-helpers.js';

/**
 * Issue 32's month: a standard-plan client with only invoices on an hourly schedule, advanced 30 days through the
 * official SDK (its own file, so it runs beside the other scenarios). The wall time is a benchmark
 * (`npm run bench:emulator`, docs/benchmarks.md), never asserted: the timeout is generous for a loaded CI machine.
 */

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  server = await startTestServer({ emulator: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await server.close();
});

describe('a month of hourly syncs', () => {
  it('runs exactly the syncs due at T+1h … T+720h, each reported by read.completed', async () => {
    const T = '2027-03-01T00:00:00.000Z';
    const client = await server.newClient();
    const sdk = new CodatPlatform({ authHeader: client.auth, serverURL: server.url, retryConfig: { strategy: 'none' } });
    await sdk.webhooks.createConsumer({ url: receiver.url, eventTypes: ['read.completed'] });
    await onlyInvoices(sdk, client.clientId, 1);
    const clock = await clientOnClock(server, client, T);

    const { companyId } = await sandboxCompany(sdk, 'Hourly');
    await waitForSyncs(server, client, companyId);
    expect((await invoicePulls(sdk, companyId)).map((op) => op.requested)).toEqual([T]);

    const ready = await advance(server, client, clock, { by: 'P30D' }, 900_000);
    expect(ready).toEqual({ id: clock, frozenTime: plus(T, 720 * HOUR), status: 'ready' });

    const pulls = await invoicePulls(sdk, companyId);
    const scheduled = pulls.filter((op) => op.requested > T);
    expect(scheduled).toHaveLength(720);
    expect(scheduled.map((op) => op.requested)).toEqual(Array.from({ length: 720 }, (_, i) => plus(T, (i + 1) * HOUR)));
    expect(scheduled.every((op) => op.status === 'Complete' && op.completed === op.requested)).toBe(true);
    expect((await sdk.companies.get({ companyId })).lastSync).toBe(plus(T, 720 * HOUR));

    const events = receiver.received.map((r) => JSON.parse(r.body));
    const after = events.filter((e) => e.generatedDate > T);
    expect(after).toHaveLength(720);
    expect(after.map((e) => e.generatedDate).sort()).toEqual(Array.from({ length: 720 }, (_, i) => plus(T, (i + 1) * HOUR)));
    expect(events.every((e) => e.eventType === 'read.completed')).toBe(true);
  }, 900_000);
});

describe('a write within a simulated day', () => {
  it('shows in the next sync although the Sandbox stays at the same epoch', async () => {
    const T = '2027-04-01T00:00:00.000Z';
    const client = await server.newClient();
    const sdk = new CodatPlatform({ authHeader: client.auth, serverURL: server.url, retryConfig: { strategy: 'none' } });
    await onlyTypes(sdk, client.clientId, ['customers'], 1);
    const clock = await clientOnClock(server, client, T);
    const { companyId, connectionId } = await sandboxCompany(sdk, 'Writes within a day');
    await waitForSyncs(server, client, companyId);
    const customers = async () =>
      (await http(server, 'GET', `/companies/${companyId}/data/customers?pageSize=1000`, { auth: client.auth })).body.results as {
        customerName: string;
      }[];
    const before = await customers();

    const accounting = new CodatAccounting({ serverURL: server.url, security: { authHeader: client.auth } });
    const pushed = await accounting.customers.create({
      companyId,
      connectionId,
      customer: { customerName: 'Midday Ltd', status: 'Active' as never },
    });
    const key = pushed.createCustomerResponse!.pushOperationKey;
    // The Sandbox takes a second of the clock to process it; the follow-up sync reads it, and the hourly one keeps it.
    await advance(server, client, clock, { by: 'PT2H' });
    expect((await sdk.pushData.getOperation({ companyId, pushOperationKey: key })).status).toBe('Success');
    const after = await customers();
    expect(after).toHaveLength(before.length + 1);
    expect(after.map((c) => c.customerName)).toContain('Midday Ltd');
    const pulls = (await sdk.refreshData.listPullOperations({ companyId, query: 'dataType=customers', pageSize: 100 })).results ?? [];
    expect(pulls.every((op) => op.status === 'Complete')).toBe(true);
  }, 120_000);
});
