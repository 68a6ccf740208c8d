import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { CodatAccounting } from '@codat/accounting';
import { randomUUID } from 'node:crypto';
import { journalEntryWrites } from '../../../src/connectors/hledger/hledger-writes.js';
import { http, startTestServer, type TestClient, type TestServer } from '../../helpers/test-server.js';
import { readsEveryClaimedType } from '../../helpers/claimed-reads.js';
import { exercised } from '../../helpers/capabilities.js';
import {
  companyWithConnection,
  fetchOnFirstLinkOnly,
  waitForOperation,
  waitForPush,
  waitForSyncs,
  type LinkedCompany,
} from '../../helpers/sandbox.js';
import { hledgerJson, hledgerMissing, startCoarseClockProxy, startHledgerWeb, type HledgerWeb } from '../../helpers/hledger-web.js';
import { startBasicAuthProxy } from '../../helpers/basic-auth-proxy.js';
import { createConsumer, expectEnvelope, startReceiver, verifySigned } from '../../webhooks/receiver.js';

/**
 * hledger as an accounting platform, against a real `hledger-web --serve-api` on a journal file: link, sync,
 * read through Codat's accounting SDK, statements checked against hledger's own reports, write-back, failures.
 */
const FIXTURE = fileURLToPath(new URL('./fixtures/books.journal', import.meta.url));

/** What a push job gives the hledger write model: the platform's address, and no history of its own. */
const writeContext = (url: string) => ({
  settings: { url },
  credentials: null,
  epoch: 0,
  cursor: null,
  written: [],
  allowPrivate: true,
  signal: new AbortController().signal,
  find: async () => undefined,
});
/** What a push job sends beside the record, which hledger does not read (it checks the entry itself). */
const BESIDE_THE_RECORD = { forceUpdate: false, records: null, references: [], claimed: [] };
const missing = hledgerMissing();
if (missing) console.log(`skipping the hledger-web tests: ${missing}`);

const TYPES = [
  'chartOfAccounts',
  'journalEntries',
  'journals',
  'accountTransactions',
  'company',
  'balanceSheet',
  'profitAndLoss',
  'cashFlowStatement',
];

describe.skipIf(missing !== undefined)('hledger-web as a platform', () => {
  let web: HledgerWeb;
  let server: TestServer;
  let client: TestClient;
  let linked: LinkedCompany;
  let sdk: CodatAccounting;

  beforeAll(async () => {
    web = await startHledgerWeb(FIXTURE);
    server = await startTestServer({ connectors: { allowPrivate: true } });
    client = await server.newClient();
    linked = await companyWithConnection(server, client, 'hldg');
    await fetchOnFirstLinkOnly(server, client, linked.companyId, TYPES);
    sdk = new CodatAccounting({ serverURL: server.url, security: { authHeader: client.auth } });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await web?.stop();
  });

  const authorization = (body: Record<string, unknown>) =>
    http(server, 'PUT', `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`, { auth: client.auth, body });

  it('refuses an address that does not answer, naming url, and stays PendingAuth', async () => {
    const res = await authorization({ url: 'http://127.0.0.1:9' });
    expect(res.status, res.text).toBe(400);
    expect(res.body.validation.errors[0]).toMatchObject({ itemId: 'url' });
    expect(res.body.error).toMatch(/hledger at http:\/\/127\.0\.0\.1:9 did not answer/);
    const connection = await http(server, 'GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`, {
      auth: client.auth,
    });
    expect(connection.body.status).toBe('PendingAuth');
  });

  it('links with the hledger-web address and syncs every type it provides', async () => {
    const res = await authorization({ url: web.url });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('Linked');
    const status = await waitForSyncs(server, client, linked.companyId);
    for (const type of TYPES) expect(status[type]?.currentStatus, type).toBe('Complete');
  });

  it('serves every data type it claims to Get, valid against its own OpenAPI document', async () => {
    await readsEveryClaimedType(server, client, linked, 'hldg');
  });

  it('serves accounts and journal entries through the official SDK', async () => {
    const accounts = await sdk.accounts.list({ companyId: linked.companyId, page: 1, pageSize: 100 });
    expect(accounts.statusCode).toBe(200);
    const byId = new Map(accounts.accounts!.results!.map((a) => [a.id, a]));
    expect(byId.get('assets:bank:current')).toMatchObject({
      name: 'current',
      type: 'Asset',
      isBankAccount: true,
      currency: 'GBP',
      currentBalance: 5000 - 800 + 2400 - 1000 + 1200 - 800,
    });
    expect(byId.get('revenues:consulting')).toMatchObject({ type: 'Income' });
    expect(byId.get('expenses:travel:rail')).toMatchObject({ type: 'Expense', fullyQualifiedName: 'expenses:travel:rail' });
    expect(byId.get('liabilities:vat')).toMatchObject({ type: 'Liability' });
    // Parents nothing is posted to take the class their declared subaccounts share.
    expect(byId.get('assets')).toMatchObject({ type: 'Asset', isBankAccount: false });
    expect(byId.get('expenses:travel')).toMatchObject({ type: 'Expense' });

    const entries = await sdk.journalEntries.list({ companyId: linked.companyId, page: 1, pageSize: 100 });
    expect(entries.statusCode).toBe(200);
    const results = entries.journalEntries!.results!;
    expect(results).toHaveLength(9);
    // Money in and out of the bank: one account transaction per entry and cash account (a transfer touches two).
    const moves = await http(
      server,
      'GET',
      `/companies/${linked.companyId}/connections/${linked.connectionId}/data/accountTransactions?pageSize=100`,
      { auth: client.auth },
    );
    expect(moves.status, moves.text).toBe(200);
    const transfer = moves.body.results
      .filter((m: any) => m.note === 'Move to savings')
      .map((m: any) => [m.bankAccountRef.id, m.totalAmount]);
    expect(transfer.sort()).toEqual([
      ['assets:bank:current', -1000],
      ['assets:bank:savings', 1000],
    ]);
    expect(moves.body.results.find((m: any) => m.transactionId === 'CAP-1')).toMatchObject({
      status: 'Reconciled',
      currency: 'GBP',
      totalAmount: 5000,
      lines: [{ description: 'equity:capital', amount: 5000 }],
    });
    const invoice = results.find((e) => e.id === 'INV-101')!;
    expect(invoice.description).toBe('Acme Ltd | consulting, January');
    expect(invoice.journalLines!.map((l) => [l.accountRef?.id, l.netAmount])).toEqual([
      ['assets:receivable', 2400],
      ['revenues:consulting', -2000],
      ['liabilities:vat', -400],
    ]);
  });

  async function expectStatementsMatchHledger() {
    await expectMatchingStatements(server, client, linked, web.journal, 'GBP');
  }

  it("derives balance sheets and profit and loss equal to hledger's own reports", async () => {
    await expectStatementsMatchHledger();
  });

  async function resync(dataType: string) {
    const queued = await http(server, 'POST', `/companies/${linked.companyId}/data/queue/${dataType}`, { auth: client.auth });
    expect(queued.status, queued.text).toBe(200);
    return waitForOperation(server, client, linked.companyId, queued.body.id);
  }

  it('writes a journal entry into the journal file; the next sync shows it, and the statements still match', async () => {
    const entry = {
      description: 'Client lunch',
      postedOn: '2025-03-20T00:00:00',
      journalLines: [
        { netAmount: 64.5, currency: 'GBP', accountRef: { id: 'expenses:travel:meals' } },
        { netAmount: -64.5, currency: 'GBP', accountRef: { id: 'liabilities:card' } },
      ],
    };
    const res = await http(
      server,
      'POST',
      `/companies/${linked.companyId}/connections/${linked.connectionId}/push/journalEntries?allowSyncOnPushComplete=false`,
      { auth: client.auth, body: entry },
    );
    expect(res.status, res.text).toBe(200);
    const op = await waitForPush(server, client, linked.companyId, res.body.pushOperationKey);
    expect(op.status, JSON.stringify(op)).toBe('Success');
    const code = op.changes[0].recordRef.id;
    expect(fs.readFileSync(web.journal, 'utf8')).toMatch(new RegExp(`2025-03-20 \\(${code}\\) Client lunch`));
    expect((await resync('journalEntries')).status).toBe('Complete');
    const written = await http(server, 'GET', `/companies/${linked.companyId}/data/journalEntries/${code}`, { auth: client.auth });
    expect(written.body.journalLines.map((l: any) => [l.accountRef.id, l.netAmount])).toEqual([
      ['expenses:travel:meals', 64.5],
      ['liabilities:card', -64.5],
    ]);
    for (const type of ['chartOfAccounts', 'balanceSheet', 'profitAndLoss']) expect((await resync(type)).status).toBe('Complete');
    await expectStatementsMatchHledger();
    exercised('hldg', 'journalEntries', 'Post');
  });

  it('refuses an unbalanced journal entry before it reaches hledger', async () => {
    const before = fs.readFileSync(web.journal, 'utf8');
    const res = await http(server, 'POST', `/companies/${linked.companyId}/connections/${linked.connectionId}/push/journalEntries`, {
      auth: client.auth,
      body: {
        description: 'Typo',
        postedOn: '2025-03-21T00:00:00',
        journalLines: [
          { netAmount: 10, currency: 'GBP', accountRef: { id: 'expenses:rent' } },
          { netAmount: -1, currency: 'GBP', accountRef: { id: 'assets:bank:current' } },
        ],
      },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.validation.errors).toEqual([
      expect.objectContaining({ itemId: 'journalLines', message: expect.stringMatching(/do not balance in GBP: they add up to 9\.00/) }),
    ]);
    expect(fs.readFileSync(web.journal, 'utf8')).toBe(before);
  });

  it('refuses what hledger would write but not read back: a double space or a line break in an account, a line break in the description', async () => {
    const before = fs.readFileSync(web.journal, 'utf8');
    const res = await http(server, 'POST', `/companies/${linked.companyId}/connections/${linked.connectionId}/push/journalEntries`, {
      auth: client.auth,
      body: {
        description: 'Two\nlines',
        postedOn: '2025-03-21T00:00:00',
        journalLines: [
          { netAmount: 10.125, currency: 'GBP', accountRef: { id: 'expenses:rent  extra' } },
          { netAmount: -10.125, currency: 'GBP', accountRef: { id: 'assets:bank\ncurrent' } },
        ],
      },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.validation.errors.map((e: any) => e.itemId).sort()).toEqual([
      'description',
      'journalLines.0.accountRef.id',
      'journalLines.1.accountRef.id',
    ]);
    expect(fs.readFileSync(web.journal, 'utf8')).toBe(before);
  });
});

describe.skipIf(missing !== undefined)('hledger-web on a journal without declared types, with prices and virtual postings', () => {
  it("derives statements equal to hledger's own, at cost, in the base commodity", async () => {
    const web = await startHledgerWeb(fileURLToPath(new URL('./fixtures/household.journal', import.meta.url)));
    const server = await startTestServer({ connectors: { allowPrivate: true } });
    try {
      const client = await server.newClient();
      const linked = await companyWithConnection(server, client, 'hldg');
      await fetchOnFirstLinkOnly(server, client, linked.companyId, ['chartOfAccounts', 'balanceSheet', 'profitAndLoss', 'company']);
      const res = await http(server, 'PUT', `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`, {
        auth: client.auth,
        body: { url: web.url },
      });
      expect(res.status, res.text).toBe(200);
      await waitForSyncs(server, client, linked.companyId);
      await expectMatchingStatements(server, client, linked, web.journal, '$');
      const company = await http(server, 'GET', `/companies/${linked.companyId}/data/info`, { auth: client.auth });
      expect(company.body).toMatchObject({ companyName: 'household', baseCurrency: 'USD' });
      const accounts = (await http(server, 'GET', `/companies/${linked.companyId}/data/accounts?pageSize=100`, { auth: client.auth })).body
        .results;
      expect(accounts.find((a: any) => a.id === 'income:salary')).toMatchObject({ type: 'Income' });
      expect(accounts.find((a: any) => a.id === 'assets:checking')).toMatchObject({
        type: 'Asset',
        isBankAccount: true,
        currentBalance: 3106.35,
      });
      expect(accounts.find((a: any) => a.id === 'budget:envelopes:food')).toMatchObject({ type: 'Unknown' });
    } finally {
      await server.close();
      await web.stop();
    }
  });
});

describe.skipIf(missing !== undefined)('hledger-web behind a proxy', () => {
  let web: HledgerWeb;
  let proxy: Awaited<ReturnType<typeof startBasicAuthProxy>>;
  let server: TestServer;
  let client: TestClient;
  let linked: LinkedCompany;
  const logLines: string[] = [];
  const logged = (msg: string) => logLines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === msg);

  beforeAll(async () => {
    web = await startHledgerWeb(FIXTURE);
    proxy = await startBasicAuthProxy(web.url, { username: 'books', password: 's3cret-proxy-pass' });
    server = await startTestServer({ connectors: { allowPrivate: true }, logLines });
    client = await server.newClient();
    linked = await companyWithConnection(server, client, 'hldg');
    await fetchOnFirstLinkOnly(server, client, linked.companyId, ['journalEntries']);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await web?.stop();
  });

  const link = (body: Record<string, unknown>) =>
    http(server, 'PUT', `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`, { auth: client.auth, body });

  it('links with the proxy credentials (a wrong password is a 400 naming password) and never shows them', async () => {
    const wrong = await link({ url: proxy.url, username: 'books', password: 'nope' });
    expect(wrong.status, wrong.text).toBe(400);
    expect(wrong.body.validation.errors[0].itemId).toBe('password');
    expect(wrong.text).not.toContain('nope');
    const res = await link({ url: proxy.url, username: 'books', password: 's3cret-proxy-pass' });
    expect(res.status, res.text).toBe(200);
    expect(res.text).not.toContain('s3cret');
    await waitForSyncs(server, client, linked.companyId);
    const raw = await server.store.db.selectFrom('connection_credentials').select('sealed').executeTakeFirstOrThrow();
    expect(raw.sealed).not.toMatch(/s3cret|books/);
    // Each completed sync is logged at info with what an operator needs to find it, and nothing secret.
    const complete = logged('sync complete');
    expect(complete.map((entry) => entry.dataType)).toEqual(['journalEntries']);
    for (const entry of complete) {
      expect(entry).toMatchObject({
        level: 30,
        companyId: linked.companyId,
        connectionId: linked.connectionId,
        platform: 'hldg',
        status: 'Complete',
        records: expect.any(Number),
        durationMs: expect.any(Number),
      });
    }
    expect(logLines.join('\n')).not.toMatch(/s3cret|nope/);
  });

  it('fails the pull operation with a message naming the platform when hledger-web stops mid-sync', async () => {
    const other = await startHledgerWeb(FIXTURE);
    proxy.state.beforeForward = async (path) => {
      // The sync reads the accounts and the transactions; hledger-web goes away under it.
      if (path.startsWith('/transactions')) await web.stop();
    };
    const queued = await http(server, 'POST', `/companies/${linked.companyId}/data/queue/journalEntries`, { auth: client.auth });
    const op = await waitForOperation(server, client, linked.companyId, queued.body.id);
    expect(op.status).toBe('FetchError');
    expect(op.errorMessage).toMatch(new RegExp(`hledger at ${proxy.url.replace(/[.]/g, '\\.')} did not answer`));
    expect(proxy.state.seen.some((s) => s.startsWith('GET /transactions'))).toBe(true);
    // The failure is logged at warn, with the operation's message.
    expect(logged('sync failed')).toEqual([
      expect.objectContaining({
        level: 40,
        pullOperationId: queued.body.id,
        companyId: linked.companyId,
        connectionId: linked.connectionId,
        dataType: 'journalEntries',
        status: 'FetchError',
        durationMs: expect.any(Number),
        error: op.errorMessage,
      }),
    ]);
    expect(logLines.join('\n')).not.toMatch(/s3cret/);
    proxy.state.beforeForward = undefined;
    web = other;
  });

  it('turns the connection Deauthorized, with an event, when the proxy stops accepting its credentials', async () => {
    const receiver = await startReceiver();
    try {
      const consumer = await createConsumer(server, client, { url: receiver.url, eventTypes: ['connection.disconnected'] });
      proxy.state.password = 'rotated';
      const queued = await http(server, 'POST', `/companies/${linked.companyId}/data/queue/journalEntries`, { auth: client.auth });
      const op = await waitForOperation(server, client, linked.companyId, queued.body.id);
      expect(op.status).toBe('AuthError');
      expect(op.errorMessage).toMatch(/hledger at .* refused the connection's credentials \(HTTP 401\)/);
      const connection = (
        await http(server, 'GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`, { auth: client.auth })
      ).body;
      expect(connection.status).toBe('Deauthorized');
      expect(connection.dataConnectionErrors).toEqual([
        expect.objectContaining({
          statusCode: '401',
          status: 'Active',
          errorMessage: expect.stringMatching(/refused the connection's credentials/),
        }),
      ]);
      const [delivery] = await receiver.waitFor(1);
      const payload = expectEnvelope(verifySigned(consumer.secret, delivery), 'connection.disconnected');
      expect(payload.connection).toMatchObject({ id: linked.connectionId, status: 'Deauthorized' });
      // Syncs stop until it is linked again.
      const refused = await http(
        server,
        'POST',
        `/companies/${linked.companyId}/data/queue/journalEntries?connectionId=${linked.connectionId}`,
        { auth: client.auth },
      );
      expect(refused.status).toBe(400);
    } finally {
      await receiver.close();
    }
  });
});

describe.skipIf(missing !== undefined)('hledger-web on a private address without CONNECTORS_ALLOW_PRIVATE', () => {
  it('is refused with a 400 naming url', async () => {
    const web = await startHledgerWeb(FIXTURE);
    const server = await startTestServer();
    try {
      const client = await server.newClient();
      const linked = await companyWithConnection(server, client, 'hldg');
      const res = await http(server, 'PUT', `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`, {
        auth: client.auth,
        body: { url: web.url },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.validation.errors[0]).toMatchObject({
        itemId: 'url',
        message: expect.stringMatching(/loopback.*CONNECTORS_ALLOW_PRIVATE=true/),
      });
    } finally {
      await server.close();
      await web.stop();
    }
  });
});

/** hledger's amount list in one commodity as a number (an empty list is zero). */
function inBase(amounts: any[], commodity: string): number {
  return Math.round(amounts.filter((a) => a.acommodity === commodity).reduce((sum, a) => sum + a.aquantity.floatingPoint, 0) * 100) / 100;
}

/**
 * Our monthly statements equal hledger's own `bse -M -B` and `is -M -B` (at cost) per account and in total, in the
 * journal's base commodity, month by month.
 */
async function expectMatchingStatements(server: TestServer, client: TestClient, linked: LinkedCompany, journal: string, base: string) {
  const bse = hledgerJson(journal, 'bse', '-M', '-B');
  const is = hledgerJson(journal, 'is', '-M', '-B');
  const months = bse.cbrDates.length;
  const first = bse.cbrDates[0][0];
  const monthly = async (statement: string) => {
    const res = await http(
      server,
      'GET',
      `/companies/${linked.companyId}/data/financials/${statement}?periodLength=1&periodsToCompare=${months}&startMonth=${first}`,
      { auth: client.auth },
    );
    expect(res.status, res.text).toBe(200);
    return [...res.body.reports].reverse();
  };
  const sheets = await monthly('balanceSheet');
  const pls = await monthly('profitAndLoss');
  const amount = (amounts: any[]) => inBase(amounts, base);
  expect(sheets).toHaveLength(months);
  const section = (report: any, name: string) => report.cbrSubreports.find((s: any) => s[0] === name)[1];
  const ours = (line: any) => new Map<string, number>(line.items.filter((i: any) => i.accountId).map((i: any) => [i.accountId, i.value]));
  const check = (hledgerSection: any, line: any, m: number, withTotal = true) => {
    const mine = ours(line);
    for (const row of hledgerSection.prRows)
      expect(mine.get(row.prrName) ?? 0, `${row.prrName}, month ${m}`).toBeCloseTo(amount(row.prrAmounts[m]), 2);
    for (const [account, value] of mine)
      if (value !== 0)
        expect(
          hledgerSection.prRows.some((r: any) => r.prrName === account),
          `${account} in hledger's report`,
        ).toBe(true);
    const total = amount(hledgerSection.prTotals.prrAmounts[m]);
    if (withTotal) expect(line.value, `total, month ${m}`).toBeCloseTo(total, 2);
    else expect([...mine.values()].reduce((a, b) => a + b, 0)).toBeCloseTo(total, 2);
  };
  for (let m = 0; m < months; m++) {
    expect(sheets[m].date.slice(0, 10)).toBe(new Date(Date.parse(bse.cbrDates[m][1]) - 86_400_000).toISOString().slice(0, 10));
    check(section(bse, 'Assets'), sheets[m].assets, m);
    check(section(bse, 'Liabilities'), sheets[m].liabilities, m);
    // Equity accounts as hledger reports them; our equity adds the income not yet closed to equity.
    check(section(bse, 'Equity'), sheets[m].equity, m, false);
    check(section(is, 'Revenues'), pls[m].income, m);
    check(section(is, 'Expenses'), pls[m].expenses, m);
    expect(pls[m].netProfit).toBeCloseTo(amount(is.cbrTotals.prrAmounts[m]), 2);
    expect(sheets[m].netAssets).toBeCloseTo(sheets[m].equity.value, 2);
  }
}

describe.skipIf(missing !== undefined)('hledger-web write-back in the journal’s own commodity', () => {
  let web: HledgerWeb;
  let server: TestServer;
  let client: TestClient;
  let linked: LinkedCompany;

  beforeAll(async () => {
    web = await startHledgerWeb(fileURLToPath(new URL('./fixtures/pounds.journal', import.meta.url)));
    server = await startTestServer({ connectors: { allowPrivate: true } });
    client = await server.newClient();
    linked = await companyWithConnection(server, client, 'hldg');
    await fetchOnFirstLinkOnly(server, client, linked.companyId, ['journalEntries', 'profitAndLoss', 'chartOfAccounts']);
    const res = await http(server, 'PUT', `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`, {
      auth: client.auth,
      body: { url: web.url },
    });
    expect(res.status, res.text).toBe(200);
    await waitForSyncs(server, client, linked.companyId);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await web?.stop();
  });

  const push = (body: Record<string, unknown>) =>
    http(server, 'POST', `/companies/${linked.companyId}/connections/${linked.connectionId}/push/journalEntries`, {
      auth: client.auth,
      body,
    });

  /**
   * Waits for the push, then for the sync of its data type a successful write queues: left running, it would refuse
   * the test's own queue of that type (400 DatasetAlreadyInProgress).
   */
  const settled = async (key: string) => {
    const op = await waitForPush(server, client, linked.companyId, key);
    await waitForSyncs(server, client, linked.companyId);
    return op;
  };

  const hledger = (...args: string[]) => spawnSync('hledger', [...args, '-f', web.journal], { encoding: 'utf8' });

  it('writes GBP lines, and lines without a currency, with £ in the journal’s style; hledger still has one commodity and checks clean', async () => {
    const res = await push({
      description: 'Laptop',
      postedOn: '2025-03-10T00:00:00',
      journalLines: [
        { netAmount: 1900, currency: 'GBP', accountRef: { id: 'expenses:equipment' } },
        { netAmount: 300.5, accountRef: { id: 'expenses:software' } },
        { netAmount: -2200.5, currency: 'GBP', accountRef: { id: 'assets:bank:current' } },
      ],
    });
    expect(res.status, res.text).toBe(200);
    const op = await settled(res.body.pushOperationKey);
    expect(op.status, JSON.stringify(op)).toBe('Success');
    const text = fs.readFileSync(web.journal, 'utf8');
    expect(text).toMatch(/expenses:equipment\s+£1,900\.00\n/);
    expect(text).toMatch(/expenses:software\s+£300\.50\n/);
    expect(text).toMatch(/assets:bank:current\s+£-2,200\.50\n/);
    expect(text).not.toMatch(/GBP/);
    expect(hledger('commodities').stdout.trim().split('\n')).toEqual(['£']);
    const check = hledger('check');
    expect(check.status, check.stderr).toBe(0);
    expect(hledger('bal', 'expenses:equipment', '-N').stdout).toMatch(/£1,900\.00\s+expenses:equipment/);

    // And in Ledgerport's P&L for its month.
    for (const type of ['journalEntries', 'profitAndLoss']) {
      const queued = await http(server, 'POST', `/companies/${linked.companyId}/data/queue/${type}`, { auth: client.auth });
      expect((await waitForOperation(server, client, linked.companyId, queued.body.id)).status).toBe('Complete');
    }
    const pl = await http(
      server,
      'GET',
      `/companies/${linked.companyId}/data/financials/profitAndLoss?periodLength=1&periodsToCompare=1&startMonth=2025-03-01`,
      { auth: client.auth },
    );
    expect(pl.status, pl.text).toBe(200);
    expect(pl.body.reports[0].expenses.items.filter((i: any) => i.value !== 0).map((i: any) => [i.accountId, i.value])).toEqual([
      ['expenses:equipment', 1900],
      ['expenses:software', 300.5],
    ]);
  });

  it('appends a write once when it is sent again with the same key (a run stopped after hledger took it)', async () => {
    const model = journalEntryWrites.get('journalEntries')!;
    const ctx = writeContext(web.url);
    const write = {
      ...BESIDE_THE_RECORD,
      operation: 'Create' as const,
      recordId: null,
      key: randomUUID(),
      record: {
        description: 'Sent twice',
        postedOn: '2025-03-14T00:00:00',
        journalLines: [
          { netAmount: 12, currency: 'GBP', accountRef: { id: 'expenses:software' } },
          { netAmount: -12, currency: 'GBP', accountRef: { id: 'assets:bank:current' } },
        ],
      },
    };
    const first = await model.submit(ctx, write);
    const second = await model.submit(ctx, write);
    expect(second).toEqual(first);
    expect(first.recordId).toBe(`lp-${write.key.replace(/-/g, '').slice(0, 12)}`);
    expect(fs.readFileSync(web.journal, 'utf8').split('Sent twice')).toHaveLength(2);
    const other = await model.submit(ctx, { ...write, key: randomUUID() });
    expect(other.recordId).not.toBe(first.recordId);
    expect(fs.readFileSync(web.journal, 'utf8').split('Sent twice')).toHaveLength(3);
  });

  it('shows an entry appended just after hledger-web reloaded the journal, where file times come from a coarse clock', async () => {
    // The file times lag by 10 ms (a 100 Hz kernel tick); the journal just changed, so the write's first read reloads it.
    const coarse = await startCoarseClockProxy(web, 10);
    try {
      const model = journalEntryWrites.get('journalEntries')!;
      const ctx = writeContext(coarse.url);
      for (const description of ['Just after a reload', 'And once more']) {
        fs.appendFileSync(web.journal, `\n; edited by hand before "${description}"\n`);
        const key = randomUUID();
        const written = await model.submit(ctx, {
          ...BESIDE_THE_RECORD,
          operation: 'Create',
          recordId: null,
          key,
          record: {
            description,
            postedOn: '2025-03-15T00:00:00',
            journalLines: [
              { netAmount: 7.25, currency: 'GBP', accountRef: { id: 'expenses:software' } },
              { netAmount: -7.25, currency: 'GBP', accountRef: { id: 'assets:bank:current' } },
            ],
          },
        });
        expect(written.recordId).toBe(`lp-${key.replace(/-/g, '').slice(0, 12)}`);
        expect(written.record).toMatchObject({ description, postedOn: '2025-03-15T00:00:00' });
      }
    } finally {
      await coarse.close();
    }
  });

  it('refuses a currency the journal has no commodity for with a 400 naming currency, and appends nothing', async () => {
    const before = fs.readFileSync(web.journal, 'utf8');
    const res = await push({
      description: 'Conference',
      postedOn: '2025-03-12T00:00:00',
      journalLines: [
        { netAmount: 120, currency: 'USD', accountRef: { id: 'expenses:travel' } },
        { netAmount: -120, currency: 'USD', accountRef: { id: 'assets:bank:current' } },
      ],
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.validation.errors).toEqual([
      expect.objectContaining({ itemId: 'currency', message: expect.stringMatching(/no commodity for USD.*GBP/) }),
    ]);
    expect(fs.readFileSync(web.journal, 'utf8')).toBe(before);
  });

  it('takes a back-dated entry that leaves an asserted account as it was, and refuses an amount it cannot send exactly', async () => {
    const res = await push({
      description: 'Refund passed straight on',
      postedOn: '2025-02-10T00:00:00',
      journalLines: [
        { netAmount: 40, currency: 'GBP', accountRef: { id: 'assets:bank:current' } },
        { netAmount: -40, currency: 'GBP', accountRef: { id: 'income:refunds' } },
        { netAmount: 40, currency: 'GBP', accountRef: { id: 'expenses:refunds paid' } },
        { netAmount: -40, currency: 'GBP', accountRef: { id: 'assets:bank:current' } },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect((await settled(res.body.pushOperationKey)).status).toBe('Success');
    expect(hledger('check').status).toBe(0);

    const tooLong = await push({
      description: 'Too precise',
      postedOn: '2025-03-11T00:00:00',
      journalLines: [
        { netAmount: 1234567890123.4567, currency: 'GBP', accountRef: { id: 'expenses:rent' } },
        { netAmount: -1234567890123.4567, currency: 'GBP', accountRef: { id: 'assets:bank:current' } },
      ],
    });
    expect(tooLong.status, tooLong.text).toBe(400);
    expect(tooLong.body.validation.errors.map((e: any) => e.itemId)).toEqual(['journalLines.0.netAmount', 'journalLines.1.netAmount']);
  });

  it('refuses a line dated before a balance assertion on its account, which hledger would then fail to load', async () => {
    const before = fs.readFileSync(web.journal, 'utf8');
    const res = await push({
      description: 'Back-dated fee',
      postedOn: '2025-02-10T00:00:00',
      journalLines: [
        { netAmount: 15, currency: 'GBP', accountRef: { id: 'expenses:bank fees' } },
        { netAmount: -15, currency: 'GBP', accountRef: { id: 'assets:bank:current' } },
      ],
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.validation.errors).toEqual([
      expect.objectContaining({
        itemId: 'journalLines.1.accountRef.id',
        message: expect.stringMatching(/balance assertion on 2025-02-28/),
      }),
    ]);
    expect(fs.readFileSync(web.journal, 'utf8')).toBe(before);
    expect(hledger('check').status).toBe(0);
  });
});
