import { expect } from 'vitest';
import { http, type TestClient, type TestServer } from './test-server.js';

/*
 * The enhanced financials checked against the monthly statements the API serves for the same company
 * (`/data/financials/…`, one period a month), never by the service's own code: every item is one account line of its
 * month's statement and every such line one item; each balance is the line's value in the item's category's normal
 * direction; per month, the items of each top category sum exactly to the statement's parts of that class; items
 * ascend by date, then category path.
 */

type Data = Record<string, any>;

export const ENHANCED = {
  enhancedProfitAndLoss: { statement: 'profitAndLoss', parts: ['income', 'costOfSales', 'expenses', 'otherIncome', 'otherExpenses'] },
  enhancedBalanceSheet: { statement: 'balanceSheet', parts: ['assets', 'liabilities', 'equity'] },
} as const;
export type EnhancedName = keyof typeof ENHANCED;

const CLASS: Record<string, string> = {
  income: 'Income',
  otherIncome: 'Income',
  costOfSales: 'Expense',
  expenses: 'Expense',
  otherExpenses: 'Expense',
  assets: 'Asset',
  liabilities: 'Liability',
  equity: 'Equity',
};
const NATURE: Record<string, number> = { Asset: 1, Expense: 1, Liability: -1, Equity: -1, Income: -1 };

/** A served figure as an exact count of 10^-12 units (statements here carry at most a few decimals). */
const units = (n: number) => BigInt(Math.round(n * 1e6)) * 1_000_000n;

export const monthShift = (month: string, by: number) => {
  const m = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + by;
  return `${Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;
};
const lastDay = (month: string) => new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);

/** A statement's account lines: [part, accountId, value]; a parent's own figure is what its lines do not cover. */
function accountLines(report: Data, parts: readonly string[]): [string, string, number][] {
  const out: [string, string, number][] = [];
  const walk = (part: string, line: Data) => {
    const items: Data[] = line.items ?? [];
    for (const item of items) walk(part, item);
    if (!line.accountId) return;
    const own = items.length === 0 ? line.value : Number((line.value - items.reduce((s, i) => s + i.value, 0)).toFixed(6));
    if (items.length === 0 || own !== 0) out.push([part, line.accountId, own]);
  };
  for (const part of parts) if (report[part]) walk(part, report[part]);
  return out;
}

async function get(server: TestServer, client: TestClient, companyId: string, path: string) {
  const res = await http(server, 'GET', `/companies/${companyId}${path}`, { auth: client.auth });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/**
 * Reads `report` for the `months` months ending with `lastMonth` (`YYYY-MM`) and checks it against the served
 * statements; answers the items, for further checks.
 */
export async function expectEnhancedLikeStatements(
  server: TestServer,
  client: TestClient,
  companyId: string,
  report: EnhancedName,
  lastMonth: string,
  months: number,
): Promise<Data[]> {
  const { statement, parts } = ENHANCED[report];
  const body = await get(
    server,
    client,
    companyId,
    `/reports/${report}/accounts?reportDate=15-${lastMonth.slice(5, 7)}-${lastMonth.slice(0, 4)}&numberOfPeriods=${months}`,
  );
  const first = monthShift(lastMonth, -(months - 1));
  const served = await get(
    server,
    client,
    companyId,
    `/data/financials/${statement}?periodLength=1&periodsToCompare=${months}&startMonth=${first}-01`,
  );
  const byMonth = new Map<string, Data>(served.reports.map((r: Data) => [(r.date ?? r.fromDate).slice(0, 7), r]));

  const wanted = new Map<string, { part: string; value: number }>();
  const totalsWanted = new Map<string, bigint>();
  for (const [month, r] of byMonth) {
    if (month < first || month > lastMonth) continue;
    for (const [part, accountId, value] of accountLines(r, parts)) {
      wanted.set(`${lastDay(month)} ${accountId}`, { part, value });
      const key = `${month} ${CLASS[part]}`;
      totalsWanted.set(key, (totalsWanted.get(key) ?? 0n) + units(value));
    }
  }
  const items: Data[] = body.reportItems;
  expect(items.map((i) => `${i.date.slice(0, 10)} ${i.accountId}`).sort()).toEqual([...wanted.keys()].sort());
  const totals = new Map<string, bigint>();
  for (const item of items) {
    expect(item.date).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00$/);
    const top = item.accountCategory.levels[0].levelName;
    const line = wanted.get(`${item.date.slice(0, 10)} ${item.accountId}`)!;
    const direction = NATURE[top] === NATURE[CLASS[line.part]] ? 1 : -1;
    expect(item.balance, `${item.date} ${item.accountName}`).toBe(direction * line.value || 0);
    const key = `${item.date.slice(0, 7)} ${top}`;
    totals.set(key, (totals.get(key) ?? 0n) + units(item.balance));
  }
  const nonZero = (m: Map<string, bigint>) => Object.fromEntries([...m].filter(([, v]) => v !== 0n).map(([k, v]) => [k, String(v)]));
  expect(nonZero(totals)).toEqual(nonZero(totalsWanted));

  const keys = items.map((i) => [i.date, i.accountCategory.levels.map((l: Data) => l.levelName).join('.')]);
  const sorted = [...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  expect(keys).toEqual(sorted);
  return items;
}
