import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type HttpResult, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { assertCliBuilt, CLI_TEST_TIMEOUT, runLedgerport } from '../helpers/cli.js';

const TOO_MANY = 'You have made too many requests in a given amount of time; please retry later.';

let server: TestServer;

beforeAll(async () => {
  assertCliBuilt();
  server = await startTestServer();
});
afterAll(() => server.close());

const ledgerport = (...args: string[]) => runLedgerport(server.databaseUrl, ...args);

async function setLimits(clientId: string, ...flags: string[]): Promise<void> {
  const res = await ledgerport('clients', 'limits', '--client', clientId, ...flags);
  expect(res.code, res.stderr).toBe(0);
  expect(JSON.parse(res.stdout.trim())).toEqual({ clientId, updated: true });
}

/** The next 00:00 UTC strictly after `at`, in ISO format. */
function nextUtcMidnight(at: number): string {
  const d = new Date(at);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString();
}

/** One request, with the window of time it was made in (to check the reset time without racing midnight). */
async function timed(client: TestClient, path = '/profile'): Promise<{ res: HttpResult; before: number; after: number }> {
  const before = Date.now();
  const res = await http(server, 'GET', path, { auth: client.auth });
  return { res, before, after: Date.now() };
}

function expectDailyReset(r: { res: HttpResult; before: number; after: number }): void {
  const reset = r.res.headers.get('x-rate-limit-reset');
  expect(reset).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00(\.000)?Z$/);
  expect([nextUtcMidnight(r.before), nextUtcMidnight(r.after)]).toContain(new Date(reset!).toISOString());
}

function expectNoRateLimitHeaders(res: HttpResult): void {
  for (const name of ['x-rate-limit-limit', 'x-rate-limit-remaining', 'x-rate-limit-reset']) {
    expect(res.headers.get(name), name).toBeNull();
  }
}

function expectRetryAfter(res: HttpResult): number {
  const value = res.headers.get('retry-after');
  expect(value).toMatch(/^\d+$/);
  const seconds = Number(value);
  expect(seconds).toBeGreaterThan(0);
  return seconds;
}

describe('free-trial default daily quota', () => {
  it('reports a quota of 1000 with remaining requests and the next UTC midnight as reset', async () => {
    const client = await server.newClient({ plan: 'free-trial' });
    const results = [];
    for (let i = 0; i < 4; i++) {
      const r = await timed(client, i % 2 === 0 ? '/profile' : '/companies');
      expect(r.res.status, r.res.text).toBe(200);
      expect(r.res.headers.get('x-rate-limit-limit')).toBe('1000');
      expectDailyReset(r);
      results.push(r);
    }
    expect(results[0].res.headers.get('x-rate-limit-remaining')).toMatch(/^\d+$/);
    for (let i = 1; i < results.length; i++) {
      const prev = results[i - 1].res.headers;
      const cur = results[i].res.headers;
      // A new UTC day between two requests starts a fresh count; compare only within one day.
      if (prev.get('x-rate-limit-reset') !== cur.get('x-rate-limit-reset')) continue;
      expect(Number(cur.get('x-rate-limit-remaining'))).toBe(Number(prev.get('x-rate-limit-remaining')) - 1);
    }
    // A fresh client's first request of the day leaves 999 (unless the day turned over mid-test).
    if (results[0].res.headers.get('x-rate-limit-reset') === results[1].res.headers.get('x-rate-limit-reset')) {
      expect(results[0].res.headers.get('x-rate-limit-remaining')).toBe('999');
    }
  });

  it('sends no rate-limit headers to a standard client by default', async () => {
    const client = await server.newClient({ plan: 'standard' });
    for (const path of ['/profile', '/companies', '/apiKeys']) {
      const res = await http(server, 'GET', path, { auth: client.auth });
      expect(res.status, res.text).toBe(200);
      expectNoRateLimitHeaders(res);
    }
  });

  it('raises the quota by 1000 for every company holding a linked connection', async () => {
    const client = await server.newClient({ plan: 'free-trial' });
    const company = async (name: string) =>
      (await http(server, 'POST', '/companies', { auth: client.auth, body: { name } })).body.id as string;
    const [a, b, c] = [await company('Linked A'), await company('Linked B'), await company('Pending C')];
    const limit = async () => {
      const res = await http(server, 'GET', '/profile', { auth: client.auth });
      expect(res.status, res.text).toBe(200);
      return res.headers.get('x-rate-limit-limit');
    };
    const connect = (companyId: string, status = 'Linked') =>
      server.store.db
        .insertInto('connections')
        .values({
          id: randomUUID(),
          client_id: client.clientId,
          company_id: companyId,
          platform_key: 'mqjo',
          source_type: 'Accounting',
          status,
          created: new Date().toISOString(),
          doc: '{}',
        })
        .execute();

    expect(await limit()).toBe('1000');
    await connect(a);
    expect(await limit()).toBe('2000');
    await connect(b);
    expect(await limit()).toBe('3000');
    // A second linked connection on the same company, and a connection that is not linked, add nothing.
    await connect(a);
    await connect(c, 'PendingAuth');
    expect(await limit()).toBe('3000');
    // Another client's linked companies do not count.
    const other = await server.newClient({ plan: 'free-trial' });
    const otherCompany = (await http(server, 'POST', '/companies', { auth: other.auth, body: { name: 'Other' } })).body.id as string;
    await server.store.db
      .insertInto('connections')
      .values({
        id: randomUUID(),
        client_id: other.clientId,
        company_id: otherCompany,
        platform_key: 'mqjo',
        source_type: 'Accounting',
        status: 'Linked',
        created: new Date().toISOString(),
        doc: '{}',
      })
      .execute();
    expect(await limit()).toBe('3000');
    // Deleting a linked company takes its share away.
    expect((await http(server, 'DELETE', `/companies/${b}`, { auth: client.auth })).status).toBe(204);
    expect(await limit()).toBe('2000');
  });
});

describe('operator overrides via the CLI', () => {
  it(
    'enforces a daily quota of 3: the 4th request answers 429 with Retry-After and the rate-limit headers',
    async () => {
      const client = await server.newClient({ plan: 'free-trial' });
      await setLimits(client.clientId, '--daily-quota', '3');

      for (let i = 1; i <= 3; i++) {
        const r = await timed(client);
        expect(r.res.status, r.res.text).toBe(200);
        expect(r.res.headers.get('x-rate-limit-limit')).toBe('3');
        expect(r.res.headers.get('x-rate-limit-remaining')).toBe(String(3 - i));
        expectDailyReset(r);
      }
      const r = await timed(client);
      expectErrorBody(r.res, 429, { error: TOO_MANY });
      const retryAfter = expectRetryAfter(r.res);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
      expect(r.res.headers.get('x-rate-limit-limit')).toBe('3');
      expect(r.res.headers.get('x-rate-limit-remaining')).toBe('0');
      expectDailyReset(r);

      // Every endpoint is limited, not only the one used above.
      expectErrorBody(await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Late' } }), 429, { error: TOO_MANY });

      // "none" removes the override: back to the plan default.
      await setLimits(client.clientId, '--daily-quota', 'none');
      const back = await http(server, 'GET', '/profile', { auth: client.auth });
      expect(back.status, back.text).toBe(200);
      expect(back.headers.get('x-rate-limit-limit')).toBe('1000');
      expect(Number(back.headers.get('x-rate-limit-remaining'))).toBeGreaterThan(900);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'applies a daily quota to a standard client, and "none" removes its headers again',
    async () => {
      const client = await server.newClient({ plan: 'standard' });
      await setLimits(client.clientId, '--daily-quota', '3');
      const first = await timed(client);
      expect(first.res.status).toBe(200);
      expect(first.res.headers.get('x-rate-limit-limit')).toBe('3');
      expect(first.res.headers.get('x-rate-limit-remaining')).toBe('2');
      await setLimits(client.clientId, '--daily-quota', 'none');
      const after = await http(server, 'GET', '/profile', { auth: client.auth });
      expect(after.status).toBe(200);
      expectNoRateLimitHeaders(after);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'enforces a burst limit of 2 per second: the 3rd concurrent request answers 429 with Retry-After',
    async () => {
      const client = await server.newClient({ plan: 'standard' });
      await setLimits(client.clientId, '--burst-limit', '2');

      // Three requests sent at once, just after a second starts. Should they straddle a second boundary anyway
      // (a very slow machine), that attempt proves nothing and is repeated.
      let statuses: number[] = [];
      let limited: HttpResult | undefined;
      let ok: HttpResult[] = [];
      for (let attempt = 0; attempt < 5; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
        const second = Math.floor(Date.now() / 1000);
        const results = await Promise.all([1, 2, 3].map(() => http(server, 'GET', '/profile', { auth: client.auth })));
        const straddled = Math.floor(Date.now() / 1000) !== second;
        if (straddled && !results.some((r) => r.status === 429)) continue;
        statuses = results.map((r) => r.status).sort();
        limited = results.find((r) => r.status === 429);
        ok = results.filter((r) => r.status === 200);
        break;
      }
      expect(statuses).toEqual([200, 200, 429]);
      expectErrorBody(limited!, 429, { error: TOO_MANY });
      expectRetryAfter(limited!);
      expect(limited!.headers.get('x-rate-limit-limit')).toBe('2');
      expect(limited!.headers.get('x-rate-limit-remaining')).toBe('0');
      expect(Date.parse(limited!.headers.get('x-rate-limit-reset')!)).not.toBeNaN();
      for (const res of ok) expect(res.headers.get('x-rate-limit-limit')).toBe('2');

      // The next second allows requests again.
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
      expect((await http(server, 'GET', '/profile', { auth: client.auth })).status).toBe(200);

      await setLimits(client.clientId, '--burst-limit', 'none');
      const results = await Promise.all([1, 2, 3, 4].map(() => http(server, 'GET', '/profile', { auth: client.auth })));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      for (const res of results) expectNoRateLimitHeaders(res);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'rejects a bad limit value and an unknown client, changing nothing',
    async () => {
      const client = await server.newClient({ plan: 'standard' });
      const values = ['0', '-1', '1.5', 'lots'];
      const [unknown, ...bad] = await Promise.all([
        ledgerport('clients', 'limits', '--client', randomUUID(), '--daily-quota', '3'),
        ...values.map((value) => ledgerport('clients', 'limits', '--client', client.clientId, '--daily-quota', value)),
      ]);
      bad.forEach((res, i) => {
        expect(res.code, values[i]).not.toBe(0);
        expect(res.stderr, values[i]).toMatch(/positive integer/);
      });
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toMatch(/no client/);
      const res = await http(server, 'GET', '/profile', { auth: client.auth });
      expectNoRateLimitHeaders(res);
    },
    CLI_TEST_TIMEOUT,
  );
});
