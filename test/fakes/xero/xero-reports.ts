import type { XeroLedger } from './xero-ledger.js';
import { msDate, type XeroRecord } from './xero-tenant.js';

/**
 * The fake's `Reports/BalanceSheet` and `Reports/ProfitAndLoss`, laid out as Xero lays them out: a header row of
 * period columns (newest first), a section per part of the report with a row per account (its first cell names the
 * account in an `account` attribute), summary rows, and rows that name no account (current year earnings). The
 * figures are sums of the fake's journals.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const round = (n: number) => Math.round(n * 100) / 100;
const cell = (value: number) => ({ Value: round(value).toFixed(2) });
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The last day of the month `back` months before the one `date` falls in. */
function monthEnd(date: string, back: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  return day(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back + 1, 0));
}
function monthStart(date: string, back: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  return day(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1));
}
const label = (date: string) => `${Number(date.slice(8, 10))} ${MONTHS[Number(date.slice(5, 7)) - 1]} ${date.slice(0, 4)}`;

function accountRow(account: XeroRecord, values: number[]): XeroRecord {
  const attributes = [{ Id: 'account', Value: account.AccountID }];
  return {
    RowType: 'Row',
    Cells: [{ Value: account.Name, Attributes: attributes }, ...values.map((v) => ({ ...cell(v), Attributes: attributes }))],
  };
}

function section(title: string, rows: XeroRecord[], total: string, columns: number): XeroRecord {
  const sums = Array.from({ length: columns }, (_, i) => rows.reduce((sum, r) => sum + Number(r.Cells[i + 1].Value), 0));
  return { RowType: 'Section', Title: title, Rows: [...rows, { RowType: 'SummaryRow', Cells: [{ Value: total }, ...sums.map(cell)] }] };
}

function report(id: string, name: string, organisation: string, title: string, headers: string[], sections: XeroRecord[], now: number) {
  return {
    Reports: [
      {
        ReportID: id,
        ReportName: name,
        ReportType: id,
        ReportTitles: [name, organisation, title],
        ReportDate: label(day(now)),
        UpdatedDateUTC: msDate(now),
        Fields: [],
        Rows: [{ RowType: 'Header', Cells: [{ Value: '' }, ...headers.map((h) => ({ Value: h }))] }, ...sections],
      },
    ],
  };
}

/** Balances at `date` and each of the `periods` month ends before it. Assets are debits; liabilities and equity credits. */
export function balanceSheet(ledger: XeroLedger, accounts: XeroRecord[], organisation: string, date: string, periods: number, now: number) {
  const dates = Array.from({ length: periods + 1 }, (_, i) => (i === 0 ? date : monthEnd(date, i)));
  const balances = dates.map((d) => ledger.movements('1900-01-01', d));
  const rows = (klass: string, sign: number) =>
    accounts
      .filter((a) => a.Class === klass)
      .map((a) => ({ account: a, values: balances.map((b) => sign * (b.get(a.AccountID) ?? 0)) }))
      .filter((r) => r.values.some((v) => v !== 0))
      .map((r) => accountRow(r.account, r.values));
  // Earnings not yet closed to retained earnings: the profit so far, on no account of its own.
  const earnings = balances.map(
    (b) => -accounts.filter((a) => a.Class === 'REVENUE' || a.Class === 'EXPENSE').reduce((sum, a) => sum + (b.get(a.AccountID) ?? 0), 0),
  );
  const assets = section('Assets', rows('ASSET', 1), 'Total Assets', dates.length);
  const liabilities = section('Liabilities', rows('LIABILITY', -1), 'Total Liabilities', dates.length);
  const equity = section(
    'Equity',
    [...rows('EQUITY', -1), { RowType: 'Row', Cells: [{ Value: 'Current Year Earnings' }, ...earnings.map(cell)] }],
    'Total Equity',
    dates.length,
  );
  const net = {
    RowType: 'Section',
    Title: '',
    Rows: [
      {
        RowType: 'Row',
        Cells: [
          { Value: 'Net Assets' },
          ...dates.map((_, i) => cell(Number(assets.Rows.at(-1).Cells[i + 1].Value) - Number(liabilities.Rows.at(-1).Cells[i + 1].Value))),
        ],
      },
    ],
  };
  return report(
    'BalanceSheet',
    'Balance Sheet',
    organisation,
    `As at ${label(date)}`,
    dates.map(label),
    [assets, liabilities, equity, net],
    now,
  );
}

/** Movements of the month `fromDate`–`toDate` falls in and of each of the `periods` months before it. */
export function profitAndLoss(
  ledger: XeroLedger,
  accounts: XeroRecord[],
  organisation: string,
  toDate: string,
  periods: number,
  now: number,
) {
  const months = Array.from({ length: periods + 1 }, (_, i) => ({
    from: monthStart(toDate, i),
    to: i === 0 ? toDate : monthEnd(toDate, i),
  }));
  const moves = months.map((m) => ledger.movements(m.from, m.to));
  const rows = (keep: (a: XeroRecord) => boolean, sign: number) =>
    accounts
      .filter(keep)
      .map((a) => ({ account: a, values: moves.map((m) => sign * (m.get(a.AccountID) ?? 0)) }))
      .filter((r) => r.values.some((v) => v !== 0))
      .map((r) => accountRow(r.account, r.values));
  const n = months.length;
  const income = section(
    'Income',
    rows((a) => a.Class === 'REVENUE' && a.Type !== 'OTHERINCOME', -1),
    'Total Income',
    n,
  );
  const costOfSales = section(
    'Less Cost of Sales',
    rows((a) => a.Type === 'DIRECTCOSTS', 1),
    'Total Cost of Sales',
    n,
  );
  const expenses = section(
    'Less Operating Expenses',
    rows((a) => a.Class === 'EXPENSE' && a.Type !== 'DIRECTCOSTS', 1),
    'Total Operating Expenses',
    n,
  );
  const other = section(
    'Other Income',
    rows((a) => a.Type === 'OTHERINCOME', -1),
    'Total Other Income',
    n,
  );
  const total = (s: XeroRecord, i: number) => Number(s.Rows.at(-1).Cells[i + 1].Value);
  const netProfit = {
    RowType: 'Section',
    Title: '',
    Rows: [
      {
        RowType: 'Row',
        Cells: [
          { Value: 'Net Profit' },
          ...months.map((_, i) => cell(total(income, i) - total(costOfSales, i) - total(expenses, i) + total(other, i))),
        ],
      },
    ],
  };
  return report(
    'ProfitAndLoss',
    'Profit and Loss',
    organisation,
    `${label(months[0].from)} to ${label(toDate)}`,
    months.map((m) => label(m.to)),
    [income, costOfSales, expenses, other, netProfit],
    now,
  );
}
