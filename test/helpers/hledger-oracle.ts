import { expect } from 'vitest';
import { http, type TestClient, type TestServer } from './test-server.js';
import { hledgerJson, hledgerText } from './hledger-web.js';
import { addDecimals, plainDecimal } from '../../src/lib/decimal.js';
import { companyWithConnection, fetchOnFirstLinkOnly, waitForSyncs } from './sandbox.js';

/** The data types a journal's company is synced with for the comparison below. */
export const ORACLE_TYPES = ['chartOfAccounts', 'journalEntries', 'balanceSheet', 'profitAndLoss', 'company'];

/** A new company linked to the hledger-web at `url`, its first syncs of ORACLE_TYPES complete. */
export async function companySyncedFrom(server: TestServer, client: TestClient, url: string) {
  const linked = await companyWithConnection(server, client, 'hldg');
  await fetchOnFirstLinkOnly(server, client, linked.companyId, ORACLE_TYPES);
  const res = await http(server, 'PUT', `/companies/${linked.companyId}/connections/${linked.connectionId}/authorization`, {
    auth: client.auth,
    body: { url },
  });
  expect(res.status, res.text).toBe(200);
  const status = await waitForSyncs(server, client, linked.companyId, 120_000);
  for (const type of ORACLE_TYPES) expect(status[type]?.currentStatus, `${type}: ${JSON.stringify(status[type])}`).toBe('Complete');
  return linked;
}

/**
 * hledger as the oracle for a company synced from a journal: what Ledgerport serves against what hledger 1.25 itself
 * says of the same file. Accounts: every one `hledger accounts` lists (declared ones too) and their parents, nothing
 * else. Entries: one per transaction `hledger print` prints. Statements: for every month, the balance sheet's and
 * the income statement's totals by top category equal the base commodity's column of `hledger bse -M -B` and
 * `is -M -B` (at cost), exactly: hledger's JSON keeps every decimal place.
 */

/** The commodity most amounts are written in (ties: first in code-point order), from `hledger print`. */
function baseOf(transactions: any[]): string {
  const counts = new Map<string, number>();
  for (const t of transactions)
    for (const p of t.tpostings) for (const a of p.pamount) counts.set(a.acommodity, (counts.get(a.acommodity) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
}

/**
 * The exact total in `base` of one of hledger's amount lists (its JSON keeps every decimal place; its text reports
 * round for display only), as the JSON number it is.
 */
function total(amounts: any[], base: string): number {
  const mine = amounts.filter((a) => a.acommodity === base);
  const places = Math.max(0, ...mine.map((a) => a.aquantity.decimalPlaces));
  const units = mine.reduce((sum, a) => sum + BigInt(a.aquantity.decimalMantissa) * 10n ** BigInt(places - a.aquantity.decimalPlaces), 0n);
  const digits = (units < 0n ? -units : units).toString().padStart(places + 1, '0');
  const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  return Number(units < 0n ? `-${text}` : text) || 0;
}

export async function expectLikeHledger(server: TestServer, client: TestClient, companyId: string, journal: string, file = journal) {
  const get = async (url: string) => {
    const r = await http(server, 'GET', `/companies/${companyId}${url}`, { auth: client.auth });
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  const all = async (type: string) => {
    const out: any[] = [];
    for (let page = 1; ; page++) {
      const body = await get(`/data/${type}?page=${page}&pageSize=5000`);
      out.push(...body.results);
      if (out.length >= body.totalResults) return out;
    }
  };

  // Accounts: every one hledger lists (declared ones too), and their parents; nothing else.
  const names = hledgerText(journal, 'accounts').split('\n').filter(Boolean);
  const withParents = new Set(names.flatMap((n) => n.split(':').map((_, i, parts) => parts.slice(0, i + 1).join(':'))));
  const accounts = await all('accounts');
  expect(new Set(accounts.map((a) => a.id))).toEqual(withParents);

  // Journal entries: one per transaction hledger prints.
  const printed = hledgerJson(journal, 'print');
  expect(await all('journalEntries')).toHaveLength(printed.length);

  // Every month's statements, in the base commodity's column of hledger's own, at cost.
  const base = baseOf(printed);
  const bse = hledgerJson(journal, 'bse', '-M', '-B');
  const is = hledgerJson(journal, 'is', '-M', '-B');
  const months: string[] = bse.cbrDates.map((d: [string, string]) => d[0]);
  const ours = async (statement: string) => {
    const byMonth = new Map<string, any>();
    for (let i = 0; i < months.length; i += 24) {
      const n = Math.min(24, months.length - i);
      const body = await get(`/data/financials/${statement}?periodLength=1&periodsToCompare=${n}&startMonth=${months[i]}`);
      for (const report of body.reports) byMonth.set((report.date ?? report.fromDate).slice(0, 7), report);
    }
    return byMonth;
  };
  const sheets = await ours('balanceSheet');
  const pls = await ours('profitAndLoss');
  // A column's amounts (a section with no rows has no columns).
  const section = (report: any, name: string, m: number): any[] =>
    report.cbrSubreports.find((s: any) => s[0] === name)[1].prTotals.prrAmounts[m] ?? [];
  expect(is.cbrDates).toEqual(bse.cbrDates);
  let compared = 0;
  for (let m = 0; m < months.length; m++) {
    const month = months[m].slice(0, 7);
    const sheet = sheets.get(month);
    const pl = pls.get(month);
    const want = {
      assets: total(section(bse, 'Assets', m), base),
      liabilities: total(section(bse, 'Liabilities', m), base),
      revenues: total(section(is, 'Revenues', m), base),
      expenses: total(section(is, 'Expenses', m), base),
      net: total(is.cbrTotals.prrAmounts[m] ?? [], base),
    };
    const got = {
      assets: sheet?.assets.value ?? 0,
      liabilities: sheet?.liabilities.value ?? 0,
      revenues: pl?.income.value ?? 0,
      expenses: pl?.expenses.value ?? 0,
      net: pl?.netProfit ?? 0,
    };
    expect(got, `${file}, ${month} (in ${base})`).toEqual(want);
    // Equity: hledger's equity accounts; ours adds the income not yet closed to equity, apart.
    const equity = (sheet?.equity.items ?? []).filter((i: any) => i.accountId).reduce((sum: number, i: any) => sum + i.value, 0);
    expect(equity, `${file}, ${month} equity`).toBeCloseTo(total(section(bse, 'Equity', m), base), 8);
    compared++;
  }
  expect(compared).toBe(months.length);

  // The enhanced statements (Lending): per month, the balances of each top category sum to hledger's own columns,
  // `is -M -B` for income and expenses, `bs -M -B` for assets and liabilities, and equity as `bse` shows it (without
  // the income not yet closed to equity).
  const bs = hledgerJson(journal, 'bs', '-M', '-B');
  expect(bs.cbrDates).toEqual(bse.cbrDates);
  const enhanced = async (report: string) => {
    const byMonth = new Map<string, Map<string, string[]>>();
    // At most 120 months a request: one request per 120 months, each dated in the last month it covers.
    for (let end = months.length - 1; end >= 0; end -= 120) {
      const count = Math.min(120, end + 1);
      const [y, mo] = months[end].slice(0, 7).split('-');
      const body = await get(`/reports/${report}/accounts?reportDate=01-${mo}-${y}&numberOfPeriods=${count}`);
      for (const item of body.reportItems) {
        const month = item.date.slice(0, 7);
        const top = item.accountCategory.levels[0].levelName;
        const sums = byMonth.get(month) ?? new Map<string, string[]>();
        const list = sums.get(top) ?? [];
        // Each figure as the decimal it is written as, summed exactly.
        list.push(plainDecimal(item.balance));
        sums.set(top, list);
        byMonth.set(month, sums);
      }
    }
    return byMonth;
  };
  const enhancedPl = await enhanced('enhancedProfitAndLoss');
  const enhancedBs = await enhanced('enhancedBalanceSheet');
  // Every journal here posts to the balance sheet: the comparison below is over items, not over nothing.
  expect(enhancedBs.size, `${file}: enhanced balance sheet months`).toBeGreaterThan(0);
  // And no item falls in a month hledger does not report.
  const hledgerMonths = new Set(months.map((m) => m.slice(0, 7)));
  for (const month of [...enhancedPl.keys(), ...enhancedBs.keys()]) expect(hledgerMonths.has(month), `${file}: ${month}`).toBe(true);
  const sumOf = (byMonth: Map<string, Map<string, string[]>>, month: string, top: string) =>
    Number(addDecimals(byMonth.get(month)?.get(top) ?? ['0'])) || 0;
  for (let m = 0; m < months.length; m++) {
    const month = months[m].slice(0, 7);
    const got = {
      Income: sumOf(enhancedPl, month, 'Income'),
      Expense: sumOf(enhancedPl, month, 'Expense'),
      Asset: sumOf(enhancedBs, month, 'Asset'),
      Liability: sumOf(enhancedBs, month, 'Liability'),
      Equity: sumOf(enhancedBs, month, 'Equity'),
    };
    const want = {
      Income: total(section(is, 'Revenues', m), base),
      Expense: total(section(is, 'Expenses', m), base),
      Asset: total(section(bs, 'Assets', m), base),
      Liability: total(section(bs, 'Liabilities', m), base),
      Equity: total(section(bse, 'Equity', m), base),
    };
    expect(got, `${file}, ${month} enhanced statements by top category (in ${base})`).toEqual(want);
  }
}
