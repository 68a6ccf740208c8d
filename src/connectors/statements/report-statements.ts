/*
 * A platform's own financial reports (Xero's, QuickBooks') made into Codat's monthly statements (id `YYYY-MM`):
 * each report row, in each month's column, goes into a part of the statement by its account's class and type;
 * a row that names no account (the current year's earnings) goes with the part most rows of its section are in,
 * else by what the platform says of its section. Each connector reads its platform's layout into StatementRows
 * and says how its accounts classify; the statements are built here, the same for every platform.
 */

export interface ReportLine {
  accountId?: string;
  name: string;
  value: number;
  items?: ReportLine[];
}

/** One row of a report: its account (if it names one), its name, the section it is in, its value in each column. */
export interface StatementRow {
  accountId?: string;
  name: string;
  section: string;
  values: number[];
}

export type BalancePart = 'assets' | 'liabilities' | 'equity';
export type ProfitPart = 'income' | 'costOfSales' | 'expenses' | 'otherIncome' | 'otherExpenses';

const cents = (n: number) => Math.round(n * 100);
const money = (c: number) => c / 100 || 0;

function line(name: string, rows: { accountId?: string; name: string; value: number }[]): ReportLine {
  const items = rows
    .filter((r) => r.value !== 0)
    .map((r) => ({ ...(r.accountId ? { accountId: r.accountId } : {}), name: r.name, value: r.value }));
  return { name, value: money(items.reduce((sum, i) => sum + cents(i.value), 0)), items };
}

/**
 * Puts each row in a part: by its account where it names one; otherwise with the part most rows of its section
 * are in; failing that `otherwise(row)` (what the platform says of the row's section), and then `fallback`.
 */
export function classifyRows<R extends StatementRow, P extends string>(
  rows: readonly R[],
  partOf: (accountId: string) => P | undefined,
  otherwise: (row: R) => P | undefined,
  fallback: P,
): Map<R, P> {
  const parts = new Map<R, P>();
  const bySection = new Map<string, Map<P, number>>();
  for (const row of rows) {
    const part = row.accountId ? partOf(row.accountId) : undefined;
    if (!part) continue;
    parts.set(row, part);
    const counts = bySection.get(row.section) ?? new Map<P, number>();
    counts.set(part, (counts.get(part) ?? 0) + 1);
    bySection.set(row.section, counts);
  }
  for (const row of rows) {
    if (parts.has(row)) continue;
    const counts = [...(bySection.get(row.section) ?? new Map<P, number>()).entries()].sort((a, b) => b[1] - a[1]);
    parts.set(row, counts[0]?.[0] ?? otherwise(row) ?? fallback);
  }
  return parts;
}

function partLines<R extends StatementRow, P extends string>(rows: readonly R[], parts: Map<R, P>, column: number) {
  return (part: P) =>
    rows.filter((r) => parts.get(r) === part).map((r) => ({ accountId: r.accountId, name: r.name, value: r.values[column] ?? 0 }));
}

/** The balance sheet at `end` (`YYYY-MM-DD`) from column `column` of the rows. */
export function balanceSheetRecord<R extends StatementRow>(rows: readonly R[], parts: Map<R, BalancePart>, column: number, end: string) {
  const of = partLines(rows, parts, column);
  const assets = line('Assets', of('assets'));
  const liabilities = line('Liabilities', of('liabilities'));
  const equity = line('Equity', of('equity'));
  return {
    id: end.slice(0, 7),
    data: { date: `${end}T00:00:00`, assets, liabilities, equity, netAssets: money(cents(assets.value) - cents(liabilities.value)) },
  };
}

/** The profit and loss of the month `start`–`end` (`YYYY-MM-DD`) from column `column` of the rows. */
export function profitAndLossRecord<R extends StatementRow>(
  rows: readonly R[],
  parts: Map<R, ProfitPart>,
  column: number,
  month: { start: string; end: string },
) {
  const of = partLines(rows, parts, column);
  const income = line('Income', of('income'));
  const costOfSales = line('Cost of sales', of('costOfSales'));
  const expenses = line('Expenses', of('expenses'));
  const otherIncome = line('Other income', of('otherIncome'));
  const otherExpenses = line('Other expenses', of('otherExpenses'));
  const grossProfit = cents(income.value) - cents(costOfSales.value);
  const netOperatingProfit = grossProfit - cents(expenses.value);
  const netOtherIncome = cents(otherIncome.value) - cents(otherExpenses.value);
  return {
    id: month.start.slice(0, 7),
    data: {
      fromDate: `${month.start}T00:00:00`,
      toDate: `${month.end}T00:00:00`,
      income,
      costOfSales,
      grossProfit: money(grossProfit),
      expenses,
      netOperatingProfit: money(netOperatingProfit),
      otherIncome,
      otherExpenses,
      netOtherIncome: money(netOtherIncome),
      netProfit: money(netOperatingProfit + netOtherIncome),
    },
  };
}

/** The first day of the month `back` months before `today`'s (`YYYY-MM-DD`). */
export function monthStartBefore(today: Date, back: number): string {
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - back, 1)).toISOString().slice(0, 10);
}

/** The last day of the month `back` months before `today`'s (`YYYY-MM-DD`). */
export function monthEndBefore(today: Date, back: number): string {
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - back + 1, 0)).toISOString().slice(0, 10);
}
