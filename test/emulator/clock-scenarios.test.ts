import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatPlatform } from '@codat/platform';
import { CodatAccounting } from '@codat/accounting';
import { Webhook } from 'standardwebhooks';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { waitForSyncs } from '../helpers/sandbox.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import {
  HOUR,
  advance,
  clientOnClock,
  createClock,
  invoicePulls,
  onlyInvoices,
  plus,
  sandboxCompany,
  untilReady,
} from './emulator-helpers.js';

/**
 * Issue 32's scenarios: a month of hourly syncs, the Free trial's year, a write's time-out and the webhook retry
 * ladder, all in a test clock's time, driven through the official SDKs with only their server URL changed.
 */

let server: TestServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // The Sandbox takes ten days to process a write: one with a five-minute time-out never completes.
  server = await startTestServer({ emulator: true, push: { sandboxDelayMs: 10 * 24 * HOUR } });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await server.close();
});

const platformSdk = (client: TestClient) =>
  new CodatPlatform({ authHeader: client.auth, serverURL: server.url, retryConfig: { strategy: 'none' } });

describe('the Free trial on a clock', () => {
  it("answers 402 Account expired. once the clock is past the account's 365th day, and not before", async () => {
    const created = '2026-01-01T00:00:00.000Z';
    const client = await server.newClient({ plan: 'free-trial', createdAt: created });
    const sdk = platformSdk(client);
    // The clock starts at the account's creation: a year of the trial is still ahead on it.
    const clock = await clientOnClock(server, client, created);
    expect((await sdk.companies.list({})).totalResults).toBe(0);

    await advance(server, client, clock, { to: plus(created, 365 * 24 * HOUR) });
    expect((await sdk.companies.list({})).totalResults).toBe(0);
    const status = await http(server, 'GET', `/emulator/clocks/${clock}`, { auth: client.auth });
    expect(status.status).toBe(200);

    // One millisecond more and every path of the API answers 402.
    await advance(server, client, clock, { by: 'PT0.001S' });
    const expired = await http(server, 'GET', '/companies', { auth: client.auth });
    expect(expired.status).toBe(402);
    expect(expired.body).toMatchObject({
      statusCode: 402,
      error: 'Payment Required',
      validation: { errors: [{ message: expect.stringMatching(/^Account expired\./) }] },
    });
    const viaSdk = await sdk.companies.list({}).catch((err: unknown) => err);
    expect((viaSdk as { statusCode?: number }).statusCode ?? (viaSdk as { rawResponse?: Response }).rawResponse?.status).toBe(402);
    // The emulator's controls still answer (they are not the product's API), so the client can leave its clock.
    expect((await http(server, 'DELETE', '/emulator/client/clock', { auth: client.auth })).status).toBe(204);
    expect((await sdk.companies.list({})).totalResults).toBe(0);
  }, 60_000);
});

describe('a write that never completes', () => {
  it('ends TimedOut at exactly T+5m of the clock', async () => {
    const T = '2027-05-01T09:00:00.000Z';
    const client = await server.newClient();
    const sdk = platformSdk(client);
    await onlyInvoices(sdk, client.clientId, 24);
    const clock = await createClock(server, client, T);
    const { companyId, connectionId } = await sandboxCompany(sdk, 'Slow platform');
    await http(server, 'PUT', `/emulator/companies/${companyId}/clock`, { auth: client.auth, body: { clockId: clock } });
    await waitForSyncs(server, client, companyId);

    const accounting = new CodatAccounting({ serverURL: server.url, security: { authHeader: client.auth } });
    const pushed = await accounting.customers.create({
      companyId,
      connectionId,
      timeoutInMinutes: 5,
      customer: { customerName: 'Patient Ltd', status: 'Active' as never },
    });
    const key = pushed.createCustomerResponse!.pushOperationKey;
    expect(pushed.createCustomerResponse).toMatchObject({ status: 'Pending', requestedOnUtc: T, timeoutInMinutes: 5 });

    await advance(server, client, clock, { to: plus(T, 5 * 60_000 - 1) });
    expect((await sdk.pushData.getOperation({ companyId, pushOperationKey: key })).status).toBe('Pending');
    await advance(server, client, clock, { by: 'PT1H' });
    const op = await sdk.pushData.getOperation({ companyId, pushOperationKey: key });
    expect(op).toMatchObject({ status: 'TimedOut', requestedOnUtc: T, completedOnUtc: plus(T, 5 * 60_000) });
  }, 60_000);
});

describe('a company that moves', () => {
  it('takes the work it has due with it: to another clock, and off clocks to real time', async () => {
    // Clocks in the past: a due time left behind by real time runs at once off clocks.
    const T = '2025-06-02T09:00:00.000Z';
    const client = await server.newClient();
    const sdk = platformSdk(client);
    await onlyInvoices(sdk, client.clientId, 24);
    const [from, to] = [await createClock(server, client, T), await createClock(server, client, plus(T, -HOUR))];
    const { companyId, connectionId } = await sandboxCompany(sdk, 'Moving house');
    await http(server, 'PUT', `/emulator/companies/${companyId}/clock`, { auth: client.auth, body: { clockId: from } });
    await waitForSyncs(server, client, companyId);
    const accounting = new CodatAccounting({ serverURL: server.url, security: { authHeader: client.auth } });
    const write = async (name: string) =>
      (
        await accounting.customers.create({
          companyId,
          connectionId,
          timeoutInMinutes: 5,
          customer: { customerName: name, status: 'Active' as never },
        })
      ).createCustomerResponse!;
    const operation = (key: string) => sdk.pushData.getOperation({ companyId, pushOperationKey: key });

    // Requested at T on the first clock, it times out at T+5m: of whichever clock the company is on by then.
    const first = await write('Packed Ltd');
    expect(first).toMatchObject({ requestedOnUtc: T, status: 'Pending' });
    const moved = await http(server, 'PUT', `/emulator/companies/${companyId}/clock`, { auth: client.auth, body: { clockId: to } });
    expect(moved.status, moved.text).toBe(200);
    await advance(server, client, from, { by: 'PT1H' });
    expect((await operation(first.pushOperationKey)).status).toBe('Pending');
    await advance(server, client, to, { to: plus(T, 5 * 60_000 - 1) });
    expect((await operation(first.pushOperationKey)).status).toBe('Pending');
    await advance(server, client, to, { by: 'PT0.001S' });
    expect(await operation(first.pushOperationKey)).toMatchObject({ status: 'TimedOut', completedOnUtc: plus(T, 5 * 60_000) });

    // Off clocks, a time-out due at T+10m (long past in real time) runs at once, in real time.
    const second = await write('Unpacked Ltd');
    expect(second.requestedOnUtc).toBe(plus(T, 5 * 60_000));
    const left = Date.now();
    expect((await http(server, 'DELETE', `/emulator/companies/${companyId}/clock`, { auth: client.auth })).status).toBe(204);
    const deadline = Date.now() + 20_000;
    let ended = await operation(second.pushOperationKey);
    while (ended.status === 'Pending' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ended = await operation(second.pushOperationKey);
    }
    expect(ended.status).toBe('TimedOut');
    expect(Date.parse(ended.completedOnUtc!)).toBeGreaterThanOrEqual(left - 1000);
    // Neither clock has a member left: both can go.
    expect((await http(server, 'DELETE', `/emulator/clocks/${from}`, { auth: client.auth })).status).toBe(204);
    expect((await http(server, 'DELETE', `/emulator/clocks/${to}`, { auth: client.auth })).status).toBe(204);
  }, 120_000);
});

describe('webhook retries', () => {
  it('climbs the whole retry ladder in the clock’s time, every attempt signed with real time', async () => {
    const T = '2027-07-01T00:00:00.000Z';
    const client = await server.newClient();
    const receiver = await startReceiver(() => 500);
    receivers.push(receiver);
    const consumer = await http(server, 'POST', '/webhooks', {
      auth: client.auth,
      body: { url: receiver.url, eventTypes: ['company.created'] },
    });
    expect(consumer.status, consumer.text).toBe(201);
    const clock = await createClock(server, client, T);
    const made = await http(server, 'POST', '/companies', {
      auth: client.auth,
      body: { name: 'Unlucky' },
      headers: { 'emulator-clock': clock },
    });
    expect(made.status, made.text).toBe(200);

    // The first attempt, and its immediate retry, happen at T; then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later.
    await receiver.waitFor(2);
    const ladder = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
    let at = T;
    for (const [rung, delay] of ladder.entries()) {
      at = plus(at, delay);
      await advance(server, client, clock, { to: plus(at, -1) });
      expect(receiver.received).toHaveLength(2 + rung);
      await advance(server, client, clock, { to: at });
      expect(receiver.received).toHaveLength(3 + rung);
    }
    await advance(server, client, clock, { by: 'P30D' });
    expect(receiver.received).toHaveLength(9);

    const verifier = new Webhook(consumer.body.secret);
    const ids = new Set<string>();
    for (const delivery of receiver.received) {
      const event = verifier.verify(delivery.body, delivery.headers) as { eventType: string; generatedDate: string };
      expect(event).toMatchObject({ eventType: 'company.created', generatedDate: T });
      // Receivers reject skewed timestamps: the signature carries real time.
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) * 1000 - delivery.at)).toBeLessThan(60_000);
      ids.add(delivery.headers['webhook-id']);
    }
    expect(ids.size).toBe(1);
  }, 120_000);
});

describe('clocks apart', () => {
  it('advancing one company’s clock leaves another company’s clock and another client alone', async () => {
    const T = '2027-09-01T00:00:00.000Z';
    const client = await server.newClient();
    const sdk = platformSdk(client);
    await onlyInvoices(sdk, client.clientId, 1);
    const [first, second] = [await createClock(server, client, T), await createClock(server, client, T)];
    const a = await sandboxCompany(sdk, 'A');
    const b = await sandboxCompany(sdk, 'B');
    await http(server, 'PUT', `/emulator/companies/${a.companyId}/clock`, { auth: client.auth, body: { clockId: first } });
    await http(server, 'PUT', `/emulator/companies/${b.companyId}/clock`, { auth: client.auth, body: { clockId: second } });
    await waitForSyncs(server, client, a.companyId);
    await waitForSyncs(server, client, b.companyId);
    const before = (await invoicePulls(sdk, b.companyId)).length;
    const lastSyncB = (await sdk.companies.get({ companyId: b.companyId })).lastSync;

    await advance(server, client, first, { by: 'P1D' });
    const pullsA = await invoicePulls(sdk, a.companyId);
    expect(pullsA.filter((op) => op.requested > T)).toHaveLength(24);
    expect(await invoicePulls(sdk, b.companyId)).toHaveLength(before);
    expect((await sdk.companies.get({ companyId: b.companyId })).lastSync).toBe(lastSyncB);
    expect((await http(server, 'GET', `/emulator/clocks/${second}`, { auth: client.auth })).body.frozenTime).toBe(T);

    // Another client sees none of it, and its own clock is its own.
    const other = await server.newClient();
    expect((await http(server, 'GET', '/emulator/clocks', { auth: other.auth })).body.results).toEqual([]);
    const theirs = await createClock(server, other, '2040-01-01T00:00:00Z');
    await advance(server, other, theirs, { by: 'P1D' });
    expect((await http(server, 'GET', `/emulator/clocks/${first}`, { auth: client.auth })).body.frozenTime).toBe(plus(T, 24 * HOUR));
  }, 120_000);
});

describe('the Sandbox on a clock', () => {
  it('drifts per simulated day: syncs within a day read the same version, the next day brings new records', async () => {
    const T = '2027-11-01T00:00:00.000Z';
    const client = await server.newClient();
    const sdk = platformSdk(client);
    await onlyInvoices(sdk, client.clientId, 1);
    const clock = await clientOnClock(server, client, T);
    const { companyId } = await sandboxCompany(sdk, 'Drifting');
    await waitForSyncs(server, client, companyId);
    const count = async () =>
      (await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=1`, { auth: client.auth })).body.totalResults;
    const first = await count();
    const page = (await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=100`, { auth: client.auth })).text;

    await advance(server, client, clock, { by: 'PT23H' });
    const sameDay = (await invoicePulls(sdk, companyId)).filter((op) => op.requested > T);
    expect(sameDay).toHaveLength(23);
    // Nothing new or changed within the day: every sync completed, none modified a record.
    const history = await http(
      server,
      'GET',
      `/companies/${companyId}/data/history?pageSize=100&query=${encodeURIComponent('dataType=invoices')}`,
      {
        auth: client.auth,
      },
    );
    expect(
      history.body.results
        .filter((op: { requested: string }) => op.requested > T)
        .every((op: { status: string }) => op.status === 'Complete'),
    ).toBe(true);
    expect((await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=100`, { auth: client.auth })).text).toBe(page);

    // The next simulated day: about 1 % more invoices (at least one), changes and deletions.
    await advance(server, client, clock, { by: 'PT1H' });
    expect(await count()).toBeGreaterThan(first);
    expect((await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=100`, { auth: client.auth })).text).not.toBe(page);
  }, 120_000);

  it('goes on from the day it reached when its company leaves the clock: three weeks of weekly syncs, then epochs 22 and 23', async () => {
    const T = '2025-02-03T00:00:00.000Z';
    const client = await server.newClient();
    const sdk = platformSdk(client);
    await onlyInvoices(sdk, client.clientId, 7 * 24);
    const clock = await clientOnClock(server, client, T);
    const { companyId } = await sandboxCompany(sdk, 'Weekly');
    await waitForSyncs(server, client, companyId);
    await advance(server, client, clock, { by: 'P21D' });
    // Four syncs completed (T and three weeks after), the last at day 21 of the Sandbox's drift.
    expect((await invoicePulls(sdk, companyId)).map((op) => op.requested)).toEqual([0, 7, 14, 21].map((d) => plus(T, d * 24 * HOUR)));
    // Each epoch k issues new invoices modified at the Sandbox's asOf + k hours (docs/sandbox.md): the latest is the epoch read.
    const latestModified = async () => {
      const res = await http(server, 'GET', `/companies/${companyId}/data/invoices?pageSize=5000`, { auth: client.auth });
      expect(res.status, res.text).toBe(200);
      return Math.max(...res.body.results.map((i: { sourceModifiedDate: string }) => Date.parse(i.sourceModifiedDate)));
    };
    const day21 = await latestModified();

    // In real time the data set moves one epoch per sync from where it stands (22, then 23), not from its 4 syncs.
    await onlyInvoices(sdk, client.clientId, 0);
    expect((await http(server, 'DELETE', '/emulator/client/clock', { auth: client.auth })).status).toBe(204);
    for (const epoch of [22, 23]) {
      expect((await http(server, 'POST', `/companies/${companyId}/data/queue/invoices`, { auth: client.auth })).status).toBe(200);
      await waitForSyncs(server, client, companyId);
      expect(await latestModified()).toBe(day21 + (epoch - 21) * HOUR);
    }
  }, 120_000);

  it('leaves the work of clients on real time in real time while a clock advances', async () => {
    const T = '2030-01-01T00:00:00.000Z';
    const clocked = await server.newClient();
    const clockedSdk = platformSdk(clocked);
    await onlyInvoices(clockedSdk, clocked.clientId, 1);
    const clock = await clientOnClock(server, clocked, T);
    const onClock = await sandboxCompany(clockedSdk, 'On a clock');
    await waitForSyncs(server, clocked, onClock.companyId);
    const started = await http(server, 'POST', `/emulator/clocks/${clock}/advance`, { auth: clocked.auth, body: { by: 'P2D' } });
    expect(started.status).toBe(202);

    const real = await server.newClient();
    const realSdk = platformSdk(real);
    await onlyInvoices(realSdk, real.clientId, 24);
    const before = Date.now();
    const { companyId } = await sandboxCompany(realSdk, 'In real time');
    await waitForSyncs(server, real, companyId);
    const after = Date.now();
    const [pull] = await invoicePulls(realSdk, companyId);
    for (const stamp of [pull.requested, pull.completed as string, (await realSdk.companies.get({ companyId })).created as string]) {
      expect(Date.parse(stamp)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(stamp)).toBeLessThanOrEqual(after + 1000);
    }
    await untilReady(server, clocked, clock);
  }, 120_000);
});
