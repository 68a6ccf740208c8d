import type { XeroRecord } from './xero-records.js';
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
 * Xero's own Balance Sheet and Profit and Loss reports as Codat's monthly statements (id `YYYY-MM`, as the Sandbox
 * and the other platforms serve them). A report is read as Xero lays it out: a header row, then sections whose
 * rows name their account in an `account` attribute, with one value column per month, newest first. Which part
 * of a statement a row belongs to comes from its account's class and type (read from `/Accounts`), not from the
 * section titles an organisation may rename; a row that names no account (Xero's "Current Year Earnings") goes
 * with the other rows of its section.
 */

/** One row of a report: its account (if it names one), its name, its section, and its value in each column. */
type ReportRow = StatementRow;

/** The account rows of a Xero report (summary rows and headers left out), by section. */
export function reportRows(report: XeroRecord): ReportRow[] {
  const rows: ReportRow[] = [];
  for (const section of Array.isArray(report.Rows) ? report.Rows : []) {
    if (section.RowType !== 'Section') continue;
    for (const row of Array.isArray(section.Rows) ? section.Rows : []) {
      if (row.RowType !== 'Row' || !Array.isArray(row.Cells) || row.Cells.length < 2) continue;
      const [first, ...values] = row.Cells as XeroRecord[];
      const account = (first.Attributes as XeroRecord[] | undefined)?.find((a) => a.Id === 'account')?.Value;
      // An untitled section's rows without an account are the report's totals (Net Assets, Net Profit).
      if (typeof account !== 'string' && !section.Title) continue;
      rows.push({
        ...(typeof account === 'string' ? { accountId: account } : {}),
        name: String(first.Value ?? ''),
        section: String(section.Title ?? ''),
        // Xero writes amounts as text, with thousands separators in some layouts.
        values: values.map((c) => Number(String(c.Value ?? '0').replace(/,/g, '')) || 0),
      });
    }
  }
  return rows;
}

/** Xero's section titles, for rows that name no account in a section with no account rows. */
function byTitle<P extends string>(patterns: [RegExp, P][]) {
  return (row: ReportRow) => patterns.find(([pattern]) => pattern.test(row.section))?.[1];
}

/** Balance sheets at the report's month ends: `monthEnds[i]` is column i (`YYYY-MM-DD`). */
export function balanceSheetRecords(report: XeroRecord, accounts: ReadonlyMap<string, XeroRecord>, monthEnds: readonly string[]) {
  const rows = reportRows(report);
  const parts = classifyRows<ReportRow, BalancePart>(
    rows,
    (id) => (({ ASSET: 'assets', LIABILITY: 'liabilities', EQUITY: 'equity' }) as const)[accounts.get(id)?.Class as 'ASSET'],
    byTitle<BalancePart>([
      [/equity|earnings|capital/i, 'equity'],
      [/liabilit|payable/i, 'liabilities'],
    ]),
    'assets',
  );
  return monthEnds.map((end, column) => balanceSheetRecord(rows, parts, column, end));
}

/** Profit and loss of the report's months: `months[i]` is column i, `{from, to}` (`YYYY-MM-DD`). */
export function profitAndLossRecords(
  report: XeroRecord,
  accounts: ReadonlyMap<string, XeroRecord>,
  months: readonly { from: string; to: string }[],
) {
  const rows = reportRows(report);
  const parts = classifyRows<ReportRow, ProfitPart>(
    rows,
    (id) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      if (account.Class === 'REVENUE') return account.Type === 'OTHERINCOME' ? 'otherIncome' : 'income';
      if (account.Class === 'EXPENSE') return account.Type === 'DIRECTCOSTS' ? 'costOfSales' : 'expenses';
      return undefined;
    },
    byTitle<ProfitPart>([
      [/cost of sales|direct cost/i, 'costOfSales'],
      [/other income/i, 'otherIncome'],
      [/other expense/i, 'otherExpenses'],
      [/income|revenue|trading|sales/i, 'income'],
    ]),
    'expenses',
  );
  return months.map((month, column) => profitAndLossRecord(rows, parts, column, { start: month.from, end: month.to }));
}

export { monthEndBefore, monthStartBefore };
