import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodatLending } from '@codat/lending';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { authorize, companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs } from '../helpers/sandbox.js';
import { allRecords, uploadFiles } from '../helpers/uploads.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { movementWords, plantedStory } from '../helpers/sandbox-story.js';
import { ofxStatement } from '../helpers/ofx-statement.js';

/*
 * Data integrity over HTTP, on both stores (docs/lending/data-integrity.md): the accounting Sandbox's books against a
 * bank statement file this test writes for the same company from the account transactions the API serves. The file
 * holds a bank line for chosen movements of the GBP current account (the same day, one to three days later, a
 * little off in amount with the same words, or split in two) and lines of its own no movement has. Every such line
 * must match exactly its movement by the pass the rules give, and nothing else may match; the summaries must be the
 * formula over the served records, the query selecting them; status, connection ids, accounts paired, DoesNotExist
 * before the bank exists, and the errors.
 */

type Data = Record<string, any>;

let server: TestServer;
let client: TestClient;
let companyId: string;
let accountingId: string;
let bankId: string;
let movements: Data[];
let account: Data;
/** Planted: accounting record id → the bank lines (FITIDs) and the pass that must match them. */
const planted = new Map<string, { lines: string[]; pass: number }>();
const bankOnly: string[] = [];

const cents = (n: number) => Math.round(n * 100);
const day = (text: string) => text.slice(0, 10);
const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const gap = (a: string, b: string) => Math.abs(Date.parse(`${a}T00:00:00Z`) - Date.parse(`${b}T00:00:00Z`)) / 86_400_000;

async function get(path: string, status = 200) {
  const res = await http(server, 'GET', path, { auth: client.auth });
  expect(res.status, res.text).toBe(status);
  return res.body;
}

const base = (company = companyId) => `/data/companies/${company}/assess/dataTypes`;

/** Every detail of a data type, all pages (of the test's company, unless another is named). */
async function allDetails(type: string, query = '', company = companyId) {
  const out: Data[] = [];
  for (let page = 1; ; page++) {
    const body = await get(`${base(company)}/${type}/dataIntegrity/details?page=${page}&pageSize=500${query}`);
    out.push(...body.results);
    if (out.length >= body.totalResults) return out;
  }
}

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient({ name: 'Data integrity' });
  const linked = await companyWithConnection(server, client, 'mqjo');
  companyId = linked.companyId;
  accountingId = linked.connectionId;
  await fetchOnFirstLinkOnly(server, client, companyId, ['accountTransactions', 'bankAccounts']);
  await authorize(server, client, linked);
  await waitForSyncs(server, client, companyId);
  const accounts = await allRecords(server, client.auth, linked, 'bankAccounts');
  account = accounts.find((a) => a.currency === 'GBP' && a.sortCode && a.accountType === 'Debit' && /Current/.test(a.accountName));
  expect(account).toBeDefined();
  movements = (await allRecords(server, client.auth, linked, 'accountTransactions')).filter((t) => t.bankAccountRef?.id === account.id);
  expect(movements.length).toBeGreaterThan(40);
}, 120_000);
afterAll(() => server?.close());

describe('data integrity', () => {
  it('is DoesNotExist with empty summaries and details before any bank is connected', async () => {
    const counterparts = {
      accountTransactions: 'banking-transactions',
      bankAccounts: 'banking-accounts',
      'banking-transactions': 'accountTransactions',
      'banking-accounts': 'bankAccounts',
    };
    for (const [type, counterpart] of Object.entries(counterparts)) {
      const status = await get(`${base()}/${type}/dataIntegrity/status`);
      expect(status.metadata).toHaveLength(1);
      const accounting = type === 'accountTransactions' || type === 'bankAccounts';
      expect(status.metadata[0]).toMatchObject({
        type: counterpart,
        statusInfo: { currentStatus: 'DoesNotExist' },
        connectionIds: accounting ? { source: [accountingId], target: [] } : { source: [], target: [accountingId] },
      });
      expect(status.metadata[0].statusInfo.lastMatched).toBeUndefined();
      expect(await get(`${base()}/${type}/dataIntegrity/summaries`)).toEqual({ summaries: [] });
      const details = await get(`${base()}/${type}/dataIntegrity/details`);
      expect(details).toMatchObject({ results: [], totalResults: 0, pageNumber: 1 });
    }
  });

  it('matches exactly the bank lines written for the books, each by its pass', async () => {
    // Movements whose amount no other movement of the account comes within 2% of in 10 days either way, so the
    // line written for one can only be its own.
    const clear = (m: Data) =>
      movements.every(
        (o) =>
          o === m ||
          gap(day(o.date), day(m.date)) > 10 ||
          Math.abs(cents(o.totalAmount) - cents(m.totalAmount)) > Math.max(Math.abs(cents(m.totalAmount)) * 0.02, 200),
      );
    const candidates = movements.filter((m) => clear(m) && Math.abs(m.totalAmount) >= 20).sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(candidates.length).toBeGreaterThan(20);
    const lines: { id: string; date: string; amount: number; name: string }[] = [];
    // The movement's description as the matching rules read it: its first line's that is not blank, else its note.
    const words = (m: Data) =>
      (m.lines ?? []).map((l: Data) => l.description).find((d: unknown) => typeof d === 'string' && d.trim()) ?? m.note ?? '';
    candidates.slice(0, 24).forEach((m, i) => {
      const kind = i % 6;
      const id = `LINE${i}`;
      const amount = m.totalAmount;
      if (kind <= 1) {
        lines.push({ id, date: day(m.date), amount, name: `BANK ${i} ${words(m)}` });
        planted.set(m.id, { lines: [id], pass: 1 });
      } else if (kind <= 3) {
        lines.push({ id, date: addDays(day(m.date), kind - 1), amount, name: `BANK ${i}` });
        planted.set(m.id, { lines: [id], pass: 2 });
      } else if (kind === 4) {
        // 5 days later, 0.5% off: only pass 3, on words alike.
        const off = Math.round(amount * 100 * 1.005) / 100;
        lines.push({ id, date: addDays(day(m.date), 5), amount: off, name: words(m).toUpperCase() });
        planted.set(m.id, { lines: [id], pass: 3 });
      } else {
        // Split in two lines within the week: pass 4.
        const first = Math.round(amount * 100 * 0.3) / 100;
        const second = Math.round((amount - first) * 100) / 100;
        lines.push({ id: `${id}A`, date: addDays(day(m.date), 1), amount: first, name: `PART ONE ${i}` });
        lines.push({ id: `${id}B`, date: addDays(day(m.date), 2), amount: second, name: `PART TWO ${i}` });
        planted.set(m.id, { lines: [`${id}A`, `${id}B`], pass: 4 });
      }
    });
    // Lines of the bank's own: odd amounts no movement (nor a sum of these) makes.
    const amounts = new Set(movements.map((m) => cents(m.totalAmount)));
    for (let k = 0; k < 4; k++) {
      const amount = -Math.round((3.17 + k * 0.41) * 100) / 100;
      expect(amounts.has(cents(amount))).toBe(false);
      const id = `FEE${k}`;
      lines.push({ id, date: day(candidates[k].date), amount, name: `BANK CHARGE ${k}` });
      bankOnly.push(id);
    }
    const sortCode = account.sortCode as string;
    const file = ofxStatement(lines, { currency: 'GBP', bankId: sortCode, number: account.accountNumber });
    const statement = await http(server, 'POST', `/companies/${companyId}/connections`, {
      auth: client.auth,
      body: { platformKey: 'fstm' },
    });
    expect(statement.status, statement.text).toBe(200);
    bankId = statement.body.id;
    const upload = await uploadFiles(server, client.auth, companyId, bankId, [{ name: 'statement.ofx', bytes: file }]);
    expect(upload.status, upload.text).toBe(200);
    await waitForSyncs(server, client, companyId);
    const bankLines = await allRecords(server, client.auth, { companyId, connectionId: bankId }, 'banking-transactions');
    expect(bankLines).toHaveLength(lines.length);

    // The records' ids as the bank file connection gives them, by the line's FITID (its description carries the words).
    const lineOf = new Map(lines.map((l) => [l.id, l]));
    const recordOfLine = (lineId: string) => {
      const l = lineOf.get(lineId)!;
      const found = bankLines.filter((b) => b.amount === l.amount && day(b.postedDate) === l.date && b.description === l.name);
      expect(found, lineId).toHaveLength(1);
      return found[0];
    };

    const details = await allDetails('accountTransactions');
    const all = await allRecords(server, client.auth, { companyId, connectionId: accountingId }, 'accountTransactions');
    expect(details).toHaveLength(all.length);
    for (const t of all) {
      const detail = details.find((d) => d.id === `${t.bankAccountRef.id}_${t.id}`)!;
      expect(detail, t.id).toBeDefined();
      expect(detail).toMatchObject({
        type: 'accountTransactions',
        connectionId: accountingId,
        amount: t.totalAmount,
        currency: t.currency,
      });
      const want = planted.get(t.id);
      if (!want) {
        expect(detail.matches, `${t.id} matched nothing planted`).toEqual([]);
        continue;
      }
      expect(
        detail.matches.map((m: Data) => [m.id, m.type, m.connectionId, m.matchPass, m.amount]),
        t.id,
      ).toEqual(
        want.lines.map((lineId) => {
          const b = recordOfLine(lineId);
          return [b.id, 'banking-transactions', bankId, want.pass, String(b.amount)];
        }),
      );
    }
    const passes = [...planted.values()].map((p) => p.pass);
    expect(new Set(passes)).toEqual(new Set([1, 2, 3, 4]));

    // The bank side: each planted line names its movement, the bank's own lines nothing.
    const bankDetails = await allDetails('banking-transactions');
    expect(bankDetails).toHaveLength(bankLines.length);
    for (const [recordId, want] of planted) {
      const t = all.find((r) => r.id === recordId)!;
      for (const lineId of want.lines) {
        const detail = bankDetails.find((d) => d.id === recordOfLine(lineId).id)!;
        expect(detail.matches.map((m: Data) => [m.id, m.connectionId, m.matchPass])).toEqual([
          [`${t.bankAccountRef.id}_${t.id}`, accountingId, want.pass],
        ]);
      }
    }
    for (const lineId of bankOnly) expect(bankDetails.find((d) => d.id === recordOfLine(lineId).id)!.matches).toEqual([]);
  });

  it('summarises by count and by absolute amount as the formula gives, over what the query selects', async () => {
    const all = await allRecords(server, client.auth, { companyId, connectionId: accountingId }, 'accountTransactions');
    const expectSummary = (records: Data[], summary: Data) => {
      const matched = records.filter((r) => planted.has(r.id));
      const sum = (list: Data[]) => list.reduce((s, r) => s + Math.abs(cents(r.totalAmount)), 0) / 100;
      expect(summary.byCount).toEqual({
        matched: matched.length,
        unmatched: records.length - matched.length,
        total: records.length,
        matchPercentage: (matched.length / records.length) * 100,
      });
      expect(summary.byAmount.matched).toBeCloseTo(sum(matched), 6);
      expect(summary.byAmount.total).toBeCloseTo(sum(records), 6);
      expect(summary.byAmount.unmatched).toBeCloseTo(sum(records) - sum(matched), 6);
      expect(summary.byAmount.matchPercentage).toBeCloseTo((sum(matched) / sum(records)) * 100, 9);
      const currencies = new Set(records.map((r) => r.currency));
      expect(summary.byAmount.currency).toBe(currencies.size === 1 ? [...currencies][0] : undefined);
    };
    const whole = await get(`${base()}/accountTransactions/dataIntegrity/summaries`);
    expect(whole.summaries).toHaveLength(1);
    expect(whole.summaries[0].type).toBe('banking-transactions');
    expectSummary(all, whole.summaries[0]);

    const dates = all.map((r) => day(r.date)).sort();
    const middle = dates[Math.floor(dates.length / 2)];
    const part = await get(`${base()}/accountTransactions/dataIntegrity/summaries?query=${encodeURIComponent(`date>${middle}`)}`);
    expectSummary(
      all.filter((r) => day(r.date) > middle),
      part.summaries[0],
    );

    const bank = await get(`${base()}/banking-transactions/dataIntegrity/summaries`);
    const lines = planted.size + [...planted.values()].filter((p) => p.pass === 4).length;
    expect(bank.summaries[0].byCount).toEqual({
      matched: lines,
      unmatched: bankOnly.length,
      total: lines + bankOnly.length,
      matchPercentage: (lines / (lines + bankOnly.length)) * 100,
    });
  });

  it('pairs the bank account, states the status, and reads through the Lending SDK', async () => {
    const accountDetails = await allDetails('bankAccounts');
    const current = accountDetails.find((d) => d.id === account.id)!;
    expect(current.matches).toHaveLength(1);
    expect(current.matches[0]).toMatchObject({ type: 'banking-accounts', connectionId: bankId });
    for (const other of accountDetails.filter((d) => d.id !== account.id)) expect(other.matches).toEqual([]);

    const status = (await get(`${base()}/accountTransactions/dataIntegrity/status`)).metadata[0];
    expect(status.statusInfo.currentStatus).toBe('Complete');
    expect(status.statusInfo.lastMatched).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(status.connectionIds).toEqual({ source: [accountingId], target: [bankId] });
    const all = await allRecords(server, client.auth, { companyId, connectionId: accountingId }, 'accountTransactions');
    expect(status.amounts.min).toBe(Math.min(...all.map((r) => r.totalAmount)));
    expect(status.amounts.max).toBe(Math.max(...all.map((r) => r.totalAmount)));
    const accountingDays = all.map((r) => day(r.date)).sort();
    expect(status.dates.minDate).toBe(`${accountingDays[0]}T00:00:00Z`);
    expect(status.dates.maxDate).toBe(`${accountingDays.at(-1)}T00:00:00Z`);
    const bankDays = (await allRecords(server, client.auth, { companyId, connectionId: bankId }, 'banking-transactions'))
      .map((r) => day(r.postedDate))
      .sort();
    const later = (x: string, y: string) => (x > y ? x : y);
    const earlier = (x: string, y: string) => (x < y ? x : y);
    expect(status.dates.minOverlappingDate).toBe(`${later(accountingDays[0], bankDays[0])}T00:00:00Z`);
    expect(status.dates.maxOverlappingDate).toBe(`${earlier(accountingDays.at(-1)!, bankDays.at(-1)!)}T00:00:00Z`);

    const sdk = new CodatLending({ serverURL: server.url, security: { authHeader: client.auth } });
    const viaSdk = await sdk.dataIntegrity.summaries({ companyId, dataType: 'accountTransactions' as never });
    expect(viaSdk.statusCode).toBe(200);
    expect(viaSdk.dataIntegritySummaries?.summaries?.[0]?.byCount?.matched).toBe(planted.size);
    const details = await sdk.dataIntegrity.details({ companyId, dataType: 'banking-transactions' as never, pageSize: 3 });
    expect(details.dataIntegrityDetails?.results).toHaveLength(3);
  });

  it('answers a bad query, an unknown data type and an unknown company with the error body', async () => {
    const bad = await http(server, 'GET', `${base()}/accountTransactions/dataIntegrity/details?query=${encodeURIComponent('nope=1')}`, {
      auth: client.auth,
    });
    expectErrorBody(bad, 400, { validation: true });
    const type = await http(server, 'GET', `${base()}/invoices/dataIntegrity/status`, { auth: client.auth });
    expectErrorBody(type, 404);
    const company = await http(server, 'GET', `/data/companies/${crypto.randomUUID()}/assess/dataTypes/bankAccounts/dataIntegrity/status`, {
      auth: client.auth,
    });
    expectErrorBody(company, 404);
  });
});

/*
 * On a Sandbox company (accounting and banking Sandboxes of one company: docs/sandbox-banking-commerce.md), data
 * integrity finds exactly what the Sandbox planted, worked out here from the records the API serves: a bank line is a
 * movement's when it is on the same account (by IBAN, else number and currency), of the same amount, 0 to 3 days
 * later, and its description ends with the movement's own; every other line is the bank's, every other movement the
 * books' alone.
 */
describe('data integrity on a Sandbox company', () => {
  let sandbox: { companyId: string; accounting: string; banking: string };
  const INPUTS = ['accountTransactions', 'bankAccounts', 'banking-transactions', 'banking-accounts'];

  beforeAll(async () => {
    const books = await companyWithConnection(server, client, 'mqjo');
    await fetchOnFirstLinkOnly(server, client, books.companyId, INPUTS);
    const bank = await companyWithConnection(server, client, 'bsbx', books.companyId);
    await authorize(server, client, books);
    await authorize(server, client, bank);
    await waitForSyncs(server, client, books.companyId);
    sandbox = { companyId: books.companyId, accounting: books.connectionId, banking: bank.connectionId };
  }, 120_000);

  it('matches exactly the pairs the Sandbox planted, and the summaries are the formula over them', async () => {
    const { companyId } = sandbox;
    const story = await plantedStory(server, client, companyId, sandbox);
    const { moves, bookAccounts, lines } = story;
    const plantedLine = new Map([...story.lineOf].map(([move, line]) => [move, line.id as string]));
    const words = movementWords;
    expect(plantedLine.size).toBeGreaterThan(100);
    // Both sides have deliberately unmatched items.
    expect(moves.length - plantedLine.size).toBeGreaterThan(10);
    expect(lines.length - plantedLine.size).toBeGreaterThan(5);

    const details = await allDetails('accountTransactions', '', companyId);
    expect(details).toHaveLength(moves.length);
    const byId = new Map(details.map((d) => [d.id, d]));
    for (const m of moves) {
      const detail = byId.get(`${m.bankAccountRef.id}_${m.id}`)!;
      const line = plantedLine.get(m.id);
      expect(
        detail.matches.map((x: Data) => x.id),
        `${m.id} ${words(m)} ${m.totalAmount} ${m.date}`,
      ).toEqual(line ? [line] : []);
    }
    const bankDetails = await allDetails('banking-transactions', '', companyId);
    const matchedLines = new Set(plantedLine.values());
    for (const d of bankDetails) expect(d.matches.length > 0, d.id).toBe(matchedLines.has(d.id));

    // Summaries: the formula over the served records.
    const summary = (await get(`${base(companyId)}/accountTransactions/dataIntegrity/summaries`)).summaries[0];
    const matchedMoves = moves.filter((m) => plantedLine.has(m.id));
    const sum = (list: Data[], field: string) => list.reduce((s, r) => s + Math.abs(cents(r[field])), 0) / 100;
    expect(summary.byCount).toEqual({
      matched: matchedMoves.length,
      unmatched: moves.length - matchedMoves.length,
      total: moves.length,
      matchPercentage: (matchedMoves.length / moves.length) * 100,
    });
    expect(summary.byAmount.matched).toBeCloseTo(sum(matchedMoves, 'totalAmount'), 6);
    expect(summary.byAmount.total).toBeCloseTo(sum(moves, 'totalAmount'), 6);
    expect(summary.byAmount.matchPercentage).toBeCloseTo((sum(matchedMoves, 'totalAmount') / sum(moves, 'totalAmount')) * 100, 9);
    const bankSummary = (await get(`${base(companyId)}/banking-transactions/dataIntegrity/summaries`)).summaries[0];
    expect(bankSummary.byCount).toEqual({
      matched: matchedLines.size,
      unmatched: lines.length - matchedLines.size,
      total: lines.length,
      matchPercentage: (matchedLines.size / lines.length) * 100,
    });
    // Every account pairs.
    const accountSummary = (await get(`${base(companyId)}/bankAccounts/dataIntegrity/summaries`)).summaries[0];
    expect(accountSummary.byCount).toMatchObject({ matched: bookAccounts.length, unmatched: 0 });
  });
});
