import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../../helpers/test-server.js';
import { hledgerMissing, startHledgerWeb } from '../../helpers/hledger-web.js';
import { companySyncedFrom, expectLikeHledger } from '../../helpers/hledger-oracle.js';

/**
 * hledger's own semantics, one rule at a time, on small journals written to show each (the public journals in
 * hledger-journals.test.ts have real data but no account type declarations, for example). Every expected figure
 * comes from hledger run on the same file (helpers/hledger-oracle.ts), besides the rule's own assertion.
 */
const missing = hledgerMissing();
if (missing) console.log(`skipping the hledger semantics tests: ${missing}`);

describe.skipIf(missing !== undefined)('hledger semantics, against hledger itself', () => {
  let server: TestServer;
  let client: TestClient;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerport-hledger-rules-'));

  beforeAll(async () => {
    server = await startTestServer({ connectors: { allowPrivate: true } });
    client = await server.newClient();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Syncs a company from the journal, checks it against hledger, and hands it to `more`. */
  async function synced(name: string, text: string, more: (get: (url: string) => Promise<any>) => Promise<void>) {
    const file = path.join(dir, `${name}.journal`);
    fs.writeFileSync(file, text);
    const web = await startHledgerWeb(file, { inPlace: true });
    try {
      const linked = await companySyncedFrom(server, client, web.url);
      await expectLikeHledger(server, client, linked.companyId, file);
      await more(async (url) => {
        const r = await http(server, 'GET', `/companies/${linked.companyId}${url}`, { auth: client.auth });
        expect(r.status, r.text).toBe(200);
        return r.body;
      });
    } finally {
      await web.stop();
    }
  }

  it('lists accounts declared with `account` and never posted to', async () => {
    await synced(
      'declared',
      `account assets:bank:current
account liabilities:loans:director
account expenses:insurance

2025-01-05 Opening
    assets:bank:current    100.00 GBP
    equity:opening
`,
      async (get) => {
        const accounts = (await get('/data/accounts?pageSize=100')).results;
        expect(accounts.find((a: any) => a.id === 'liabilities:loans:director')).toMatchObject({ type: 'Liability', currentBalance: 0 });
        expect(accounts.find((a: any) => a.id === 'expenses:insurance')).toMatchObject({ type: 'Expense' });
      },
    );
  });

  it('counts a base-commodity amount priced in another commodity at its cost there, as -B does (the sheet balances)', async () => {
    await synced(
      'priced-base',
      `2025-03-01 Wages
    assets:bank:eur          1000.00 EUR
    income:salary

2025-03-04 Pays a Croatian supplier in kuna, bought with euro
    expenses:supplies          150.60 HRK
    assets:bank:eur           -20.00 EUR @ 7.53 HRK

2025-03-09 Rent
    expenses:rent              300.00 EUR
    assets:bank:eur
`,
      async (get) => {
        const sheet = (await get('/data/financials/balanceSheet?periodLength=1&periodsToCompare=1&startMonth=2025-03-01')).reports[0];
        // In hledger -B the 20 EUR left the bank as 150.60 HRK: the EUR column holds 1000 - 300.
        expect(sheet.assets.value).toBe(700);
        expect(sheet.netAssets).toBe(sheet.equity.value);
      },
    );
  });

  it('sums converted amounts exactly and rounds nothing on the way (no drift from rounding each posting)', async () => {
    const buys = Array.from(
      { length: 9 },
      (_, i) => `2025-04-${String(i + 1).padStart(2, '0')} Units
    assets:funds              3 FUND @ $0.3333
    assets:cash
`,
    ).join('\n');
    await synced(
      'exact',
      `2025-04-01 Capital
    assets:cash              $100.00
    equity:capital

${buys}
2025-04-20 Fee
    expenses:fees              $0.0049
    assets:cash
`,
      async (get) => {
        const pl = (await get('/data/financials/profitAndLoss?periodLength=1&periodsToCompare=1&startMonth=2025-04-01')).reports[0];
        expect(pl.expenses.value).toBe(0.0049);
        const accounts = (await get('/data/accounts?pageSize=100')).results;
        // 9 × 3 × 0.3333 = 8.9991, not 9 × 1.00 = 9.00.
        expect(accounts.find((a: any) => a.id === 'assets:funds').currentBalance).toBe(8.9991);
      },
    );
  });

  it('puts a posting with a date of its own in that month, as hledger does', async () => {
    await synced(
      'posting-dates',
      `2025-05-28 Card purchases, paid next month
    expenses:travel             3100.00 GBP
    liabilities:card           -3100.00 GBP
    liabilities:card            3100.00 GBP  ; date: 2025-06-03
    assets:bank:current        -3100.00 GBP  ; date: 2025-06-03

2025-05-02 Opening
    assets:bank:current        10000.00 GBP
    equity:opening
`,
      async (get) => {
        const sheets = (await get('/data/financials/balanceSheet?periodLength=1&periodsToCompare=2&startMonth=2025-05-01')).reports;
        const may = sheets.find((s: any) => s.date.startsWith('2025-05'));
        expect(may.liabilities.value).toBe(3100);
        expect(may.assets.value).toBe(10000);
      },
    );
  });

  it('reads a type from account declarations only, not from a `type:` note on one posting', async () => {
    await synced(
      'posting-tags',
      `account assets:bank  ; type: C

2025-07-01 Opening
    assets:bank              500.00 EUR
    equity:opening

2025-07-02 Groceries, paid in cash
    expenses:food             20.00 EUR  ; type: cash
    assets:bank              -20.00 EUR  ; type: Revenue, memo: ok
`,
      async (get) => {
        const accounts = (await get('/data/accounts?pageSize=100')).results;
        expect(accounts.find((a: any) => a.id === 'assets:bank')).toMatchObject({ type: 'Asset', isBankAccount: true });
        expect(accounts.find((a: any) => a.id === 'expenses:food')).toMatchObject({ type: 'Expense', isBankAccount: false });
      },
    );
  });

  it('infers a type from the name for an account without one when other types are declared (hledger 1.25), per type', async () => {
    await synced(
      'types',
      `account assets:bank:current   ; type: C
account owed                  ; type: L
account expenses:office       ; type: X

2025-06-01 Opening
    assets:bank:current     5000.00 EUR
    equity:opening

2025-06-10 Sale
    assets:bank:current     1200.00 EUR
    income:sales

2025-06-11 Office chair, on the card
    expenses:office          250.00 EUR
    owed:card

2025-06-12 Named like a liability, but liabilities are declared
    liabilities:mortgage    -100.00 EUR
    expenses:office           100.00 EUR
`,
      async (get) => {
        const accounts = (await get('/data/accounts?pageSize=100')).results;
        const type = (id: string) => accounts.find((a: any) => a.id === id)?.type;
        expect(type('income:sales')).toBe('Income');
        expect(type('owed:card')).toBe('Liability');
        expect(type('liabilities:mortgage')).toBe('Unknown');
        const pl = (await get('/data/financials/profitAndLoss?periodLength=1&periodsToCompare=1&startMonth=2025-06-01')).reports[0];
        expect(pl.income.value).toBe(1200);
      },
    );
  });
});
