import type { QboEntity } from './qbo-api.js';
import {
  balanceSheetRecord,
  classifyRows,
  monthEndBefore,
  monthStartBefore,
  profitAndLossRecord,
  type BalancePart,
  type ProfitPart,
  type StatementRow,
} from '../statements/report-statements.js';

/*
 * QuickBooks Online's own BalanceSheet and ProfitAndLoss reports (`summarize_column_by=Month`) as Codat's monthly
 * statements (id `YYYY-MM`), as the Xero connector serves Xero's. A report is read as QuickBooks lays it out: one
 * Money column a month (its `StartDate`/`EndDate` in the column's MetaData; the Total column has none and is left
 * out), and sections that nest (ASSETS → Current Assets → Bank Accounts → rows), each data row naming its account in
 * `ColData[0].id`. Which part of a statement a row belongs to comes from its account's Classification and
 * AccountType (from the chart of accounts), not from section titles a company may rename; a row naming no account
 * (the balance sheet's "Net Income") goes with the part most rows of its section are in, failing that by the `group`
 * of the nearest section that says. Summaries and the computed sections of the profit and loss (GrossProfit,
 * NetOperatingIncome, NetOtherIncome, NetIncome) are totals, not lines: left out.
 */

/** One row of a report: its account (if it names one), its name, its sections' groups (nearest first), its values. */
export interface QboReportRow extends StatementRow {
  /** The groups of the sections the row is in, nearest first (`TotalAssets`, `Income`, …). */
  groups: string[];
}

/** A month column of a report: its index in ColData and its dates (`YYYY-MM-DD`). */
export interface QboReportColumn {
  index: number;
  start: string;
  end: string;
}

/** QuickBooks writes amounts as text, "" for nothing. */
const amount = (v: unknown) => Number(String(v ?? '').replace(/,/g, '')) || 0;

/** The period columns of a report (the Total column, and any without dates, left out). */
export function reportColumns(report: QboEntity): QboReportColumn[] {
  const columns: QboEntity[] = Array.isArray(report.Columns?.Column) ? report.Columns.Column : [];
  const out: QboReportColumn[] = [];
  columns.forEach((column, index) => {
    if (column.ColType !== 'Money') return;
    const meta = (name: string) => (column.MetaData as QboEntity[] | undefined)?.find((m) => m.Name === name)?.Value;
    const start = meta('StartDate');
    const end = meta('EndDate');
    if (typeof start === 'string' && typeof end === 'string') out.push({ index, start: start.slice(0, 10), end: end.slice(0, 10) });
  });
  return out;
}

/** Groups of the profit and loss whose sections are computed totals, not lines. */
const COMPUTED = new Set(['GrossProfit', 'NetOperatingIncome', 'NetOtherIncome', 'NetIncome']);

/** The data rows of a report, sections walked to any depth; summaries and computed sections left out. */
export function qboReportRows(report: QboEntity): QboReportRow[] {
  const rows: QboReportRow[] = [];
  const valuesOf = (cols: QboEntity[]) => cols.slice(1).map((c) => amount(c.value));
  const walk = (list: unknown, path: string[], groups: string[]) => {
    for (const row of Array.isArray(list) ? (list as QboEntity[]) : []) {
      if (row.type === 'Section' || row.Rows || row.Header) {
        if (typeof row.group === 'string' && COMPUTED.has(row.group)) continue;
        const header: QboEntity[] = Array.isArray(row.Header?.ColData) ? row.Header.ColData : [];
        const title = String(header[0]?.value ?? '');
        const inner = [...path, title];
        const innerGroups = typeof row.group === 'string' && row.group ? [row.group, ...groups] : groups;
        // A parent account with sub-accounts is a section whose header names it, with its own amount beside.
        if (header[0]?.id)
          rows.push({
            accountId: String(header[0].id),
            name: title,
            section: inner.join('/'),
            groups: innerGroups,
            values: valuesOf(header),
          });
        walk(row.Rows?.Row, inner, innerGroups);
        continue;
      }
      const cols: QboEntity[] = Array.isArray(row.ColData) ? row.ColData : [];
      if (cols.length < 2) continue;
      const id = cols[0].id;
      rows.push({
        ...(id ? { accountId: String(id) } : {}),
        name: String(cols[0].value ?? ''),
        section: path.join('/'),
        groups: typeof row.group === 'string' && row.group ? [row.group, ...groups] : groups,
        values: valuesOf(cols),
      });
    }
  };
  walk(report.Rows?.Row, [], []);
  return rows;
}

function balanceGroup(group: string): BalancePart | undefined {
  // TotalLiabilitiesAndEquity says neither: the nearer Liabilities or Equity section does.
  if (group === 'TotalLiabilitiesAndEquity') return undefined;
  if (/equity/i.test(group)) return 'equity';
  if (/liabilit|payable|^AP$|creditcard/i.test(group)) return 'liabilities';
  if (/asset|bank|receivable|^AR$/i.test(group)) return 'assets';
  return undefined;
}

const PROFIT_GROUPS: Record<string, ProfitPart> = {
  Income: 'income',
  COGS: 'costOfSales',
  Expenses: 'expenses',
  OtherIncome: 'otherIncome',
  OtherExpenses: 'otherExpenses',
};

/** Balance sheets at the month ends of the report's columns. */
export function balanceSheetRecords(report: QboEntity, accounts: ReadonlyMap<string, QboEntity>) {
  const rows = qboReportRows(report);
  const parts = classifyRows<QboReportRow, BalancePart>(
    rows,
    (id) => (({ Asset: 'assets', Liability: 'liabilities', Equity: 'equity' }) as const)[accounts.get(id)?.Classification as 'Asset'],
    (row) => row.groups.map(balanceGroup).find((p) => p !== undefined),
    'assets',
  );
  return reportColumns(report).map((column) => balanceSheetRecord(rows, parts, column.index - 1, column.end));
}

/** Profit and loss of each month column of the report. */
export function profitAndLossRecords(report: QboEntity, accounts: ReadonlyMap<string, QboEntity>) {
  const rows = qboReportRows(report);
  const parts = classifyRows<QboReportRow, ProfitPart>(
    rows,
    (id) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      if (account.Classification === 'Revenue') return account.AccountType === 'Other Income' ? 'otherIncome' : 'income';
      if (account.Classification === 'Expense') {
        if (account.AccountType === 'Cost of Goods Sold') return 'costOfSales';
        return account.AccountType === 'Other Expense' ? 'otherExpenses' : 'expenses';
      }
      return undefined;
    },
    (row) => row.groups.map((group) => PROFIT_GROUPS[group]).find((p) => p !== undefined),
    'expenses',
  );
  return reportColumns(report).map((column) => profitAndLossRecord(rows, parts, column.index - 1, column));
}

/** How many months the statements cover: Codat's default window. */
export const REPORT_MONTHS = 24;

/** The parameters of a monthly report over the last REPORT_MONTHS months, this one included. */
export function reportParams(today: Date): Record<string, string> {
  return {
    start_date: monthStartBefore(today, REPORT_MONTHS - 1),
    end_date: monthEndBefore(today, 0),
    summarize_column_by: 'Month',
    accounting_method: 'Accrual',
  };
}

export { monthEndBefore, monthStartBefore };
