import { ConnectorError } from '../connector-error.js';
import type { SourceRecord } from '../connector.js';
import { rescale, scaledNumber, type ScaledDecimal } from '../../lib/decimal.js';
import { monthEndDay, monthIndex, monthText } from '../../lib/calendar-date.js';

/**
 * Monthly financial statements derived from any platform's chart of accounts and journal postings, for the
 * platforms that keep books but no reports of their own: profit and loss and cash flow per calendar month, the
 * balance sheet at each month end, in the shapes the Sandbox serves (id `YYYY-MM`), so that
 * `src/data/financial-statements.ts` groups them into periods like any other.
 */

export type AccountClass = 'Asset' | 'Liability' | 'Equity' | 'Income' | 'Expense';

export interface LedgerAccount {
  id: string;
  name: string;
  /** Unknown: in no statement line (its postings count towards the net income to date), yet maybe cash. */
  type: AccountClass | 'Unknown';
  /** Money in the bank or the till: its movements are the cash flow statement. */
  isCash: boolean;
}

export interface LedgerPosting {
  /** The transaction the posting belongs to (cash flow classifies a transaction by its other postings). */
  transactionId: string;
  /** `YYYY-MM-DD`. */
  date: string;
  accountId: string;
  /** In the statements' currency, debit positive: exact (a price times a quantity keeps all its places). */
  amount: ScaledDecimal;
}

/** A report line while it is built: its value exact, at the statements' scale. */
interface Exact {
  accountId?: string;
  name: string;
  units: bigint;
  items?: Exact[];
}

interface Line {
  accountId?: string;
  name: string;
  value: number;
  items?: Line[];
}

export interface MonthlyStatements {
  profitAndLoss: SourceRecord[];
  balanceSheet: SourceRecord[];
  cashFlowStatement: SourceRecord[];
}

function group(name: string, items: Exact[]): Exact {
  return { name, units: items.reduce((sum, item) => sum + item.units, 0n), items };
}

const monthStart = (m: number) => `${monthText(m)}-01T00:00:00`;
const monthEnd = (m: number) => `${monthEndDay(m)}T00:00:00`;

/** A century of months: a posting dated year 1 beside one dated 9999 is a typo, not a statement to allocate. */
const MAX_MONTHS = 1200;

/**
 * The statements for every month from the first posting's to `lastMonth` (`YYYY-MM`, default the last
 * posting's). Profit and loss: income (credit positive) and expenses (debit positive) per account. Balance sheet:
 * cumulative balances, assets debit positive, liabilities and equity credit positive, with everything posted off
 * the balance sheet (income, expenses, accounts of no known class) and not yet closed to an equity account shown
 * as one equity line, "Net income to date", so that assets always equal liabilities plus equity. Cash flow: each
 * transaction's net movement on cash accounts (transfers between cash accounts net to nothing), a receipt or a
 * payment, from customers (income) or to suppliers (expenses) by its other postings. `modified` is every record's
 * `sourceModifiedDate`.
 *
 * Every figure is the exact sum of its postings, never a sum of rounded parts, served with every decimal place the
 * postings have.
 */
export function monthlyStatements(
  accounts: readonly LedgerAccount[],
  postings: readonly LedgerPosting[],
  modified: string,
  lastMonth?: string,
): MonthlyStatements {
  const out: MonthlyStatements = { profitAndLoss: [], balanceSheet: [], cashFlowStatement: [] };
  if (postings.length === 0) return out;
  const byId = new Map(accounts.map((a) => [a.id, a]));
  // A loop, not Math.min(...): a journal may have more postings than a call takes arguments.
  let first = Infinity;
  let latest = -Infinity;
  let scale = 0;
  for (const p of postings) {
    const month = monthIndex(p.date);
    if (month < first) first = month;
    if (month > latest) latest = month;
    if (p.amount.places > scale) scale = p.amount.places;
  }
  const last = lastMonth ? monthIndex(`${lastMonth}-01`) : latest;
  const months = last - first + 1;
  // Also when `lastMonth` is no month (NaN): nothing to state, never an array of NaN length.
  if (!(months > 0)) return out;
  if (months > MAX_MONTHS) {
    throw new ConnectorError(
      'unavailable',
      `the journal spans ${months} months (from its first posting to its last); statements cover at most ${MAX_MONTHS}`,
    );
  }
  // Only accounts posted to have figures: a chart of thousands of accounts costs nothing per month for the others.
  const used = new Set(postings.map((p) => p.accountId));
  const live = accounts.filter((a) => used.has(a.id));
  const ofType = (type: AccountClass) => live.filter((a) => a.type === type).sort((x, y) => (x.id < y.id ? -1 : 1));
  const zeros = () => new Array<bigint>(months).fill(0n);

  // Movement per account per month, exact at `scale` decimals.
  const movement = new Map<string, bigint[]>();
  for (const a of live) movement.set(a.id, zeros());
  const cash = { customers: zeros(), otherReceipts: zeros(), suppliers: zeros(), otherPayments: zeros() };
  const byTransaction = new Map<string, LedgerPosting[]>();
  // Postings to accounts off the balance sheet (income, expenses, and accounts of no known class), per month.
  const offSheet = zeros();
  const sheet = new Set<AccountClass>(['Asset', 'Liability', 'Equity']);
  for (const p of postings) {
    const m = monthIndex(p.date) - first;
    if (m < 0 || m >= months) continue;
    const units = rescale(p.amount, scale);
    const type = byId.get(p.accountId)?.type;
    if (!type || type === 'Unknown' || !sheet.has(type)) offSheet[m] += units;
    const series = movement.get(p.accountId);
    if (series) series[m] += units;
    const list = byTransaction.get(p.transactionId) ?? [];
    list.push(p);
    byTransaction.set(p.transactionId, list);
  }
  for (const list of byTransaction.values()) {
    // A transaction's cash moves per month: a posting dated apart from its transaction moves cash that month.
    const net = new Map<number, bigint>();
    let income = false;
    let expense = false;
    for (const p of list) {
      const account = byId.get(p.accountId);
      if (account?.isCash) {
        const m = monthIndex(p.date) - first;
        if (m >= 0 && m < months) net.set(m, (net.get(m) ?? 0n) + rescale(p.amount, scale));
      } else if (account?.type === 'Income') income = true;
      else if (account?.type === 'Expense') expense = true;
    }
    for (const [m, moved] of net) {
      if (moved > 0n) (income ? cash.customers : cash.otherReceipts)[m] += moved;
      else if (moved < 0n) (expense ? cash.suppliers : cash.otherPayments)[m] += moved;
    }
  }

  /** The value as served. */
  const value = (units: bigint) => scaledNumber(units, scale);
  const serve = (line: Exact): Line => ({
    ...(line.accountId !== undefined ? { accountId: line.accountId } : {}),
    name: line.name,
    value: value(line.units),
    ...(line.items ? { items: line.items.map(serve) } : {}),
  });
  const lines = (list: LedgerAccount[], units: (a: LedgerAccount) => bigint): Exact[] =>
    list.map((a) => ({ accountId: a.id, name: a.name, units: units(a) }));
  const balance = new Map<string, bigint>(live.map((a) => [a.id, 0n]));
  let unclosed = 0n;
  const income = ofType('Income');
  const expenses = ofType('Expense');
  const empty = (name: string) => serve(group(name, []));
  for (let m = 0; m < months; m++) {
    const id = monthText(first + m);
    const moved = (a: LedgerAccount) => movement.get(a.id)?.[m] ?? 0n;
    for (const a of live) balance.set(a.id, (balance.get(a.id) ?? 0n) + moved(a));

    const incomeGroup = group(
      'Income',
      lines(income, (a) => -moved(a)),
    );
    const expenseGroup = group('Expenses', lines(expenses, moved));
    const operating = incomeGroup.units - expenseGroup.units;
    out.profitAndLoss.push({
      id,
      sourceModifiedDate: modified,
      data: {
        id,
        fromDate: monthStart(first + m),
        toDate: monthEnd(first + m),
        income: serve(incomeGroup),
        costOfSales: empty('Cost of Sales'),
        grossProfit: value(incomeGroup.units),
        expenses: serve(expenseGroup),
        netOperatingProfit: value(operating),
        otherIncome: empty('Other Income'),
        otherExpenses: empty('Other Expenses'),
        netOtherIncome: 0,
        netProfit: value(operating),
        sourceModifiedDate: modified,
      },
    });

    const held = (a: LedgerAccount) => balance.get(a.id) ?? 0n;
    const assets = group('Assets', lines(ofType('Asset'), held));
    const liabilities = group(
      'Liabilities',
      lines(ofType('Liability'), (a) => -held(a)),
    );
    unclosed -= offSheet[m];
    const equity = group('Equity', [...lines(ofType('Equity'), (a) => -held(a)), { name: 'Net income to date', units: unclosed }]);
    out.balanceSheet.push({
      id,
      sourceModifiedDate: modified,
      data: {
        id,
        date: monthEnd(first + m),
        assets: serve(assets),
        liabilities: serve(liabilities),
        equity: serve(equity),
        netAssets: value(assets.units - liabilities.units),
        sourceModifiedDate: modified,
      },
    });

    out.cashFlowStatement.push({
      id,
      sourceModifiedDate: modified,
      data: {
        id,
        fromDate: monthStart(first + m),
        toDate: monthEnd(first + m),
        cashReceipts: serve(
          group('Cash Receipts', [
            { name: 'Receipts from customers', units: cash.customers[m] },
            { name: 'Other receipts', units: cash.otherReceipts[m] },
          ]),
        ),
        cashPayments: serve(
          group('Cash Payments', [
            { name: 'Payments to suppliers', units: cash.suppliers[m] },
            { name: 'Other payments', units: cash.otherPayments[m] },
          ]),
        ),
        sourceModifiedDate: modified,
      },
    });
  }
  return out;
}
