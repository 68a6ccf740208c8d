import { ConnectorError } from '../connector-error.js';
import type { SourceRecord } from '../connector.js';

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
  type: AccountClass;
  /** Money in the bank or the till: its movements are the cash flow statement. */
  isCash: boolean;
}

export interface LedgerPosting {
  /** The transaction the posting belongs to (cash flow classifies a transaction by its other postings). */
  transactionId: string;
  /** `YYYY-MM-DD`. */
  date: string;
  accountId: string;
  /** In the statements' currency, debit positive. */
  amount: number;
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

const cents = (amount: number) => Math.round(amount * 100);
const money = (c: number) => c / 100 || 0;

function group(name: string, items: Line[]): Line {
  return { name, value: money(items.reduce((sum, item) => sum + cents(item.value), 0)), items };
}

/** Month index (year * 12 + month - 1) of a `YYYY-MM-DD` date, and back. */
const monthOf = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;
const monthId = (m: number) => `${Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;
const monthStart = (m: number) => `${monthId(m)}-01T00:00:00`;
function monthEnd(m: number): string {
  const next = new Date(Date.UTC(Math.floor((m + 1) / 12), (m + 1) % 12, 1) - 86_400_000);
  return `${next.toISOString().slice(0, 10)}T00:00:00`;
}

/** A century of months: a posting dated year 1 beside one dated 9999 is a typo, not a statement to allocate. */
const MAX_MONTHS = 1200;

/**
 * The statements for every month from the first posting's to `lastMonth` (`YYYY-MM`, default the last
 * posting's). Profit and loss: income (credit positive) and expenses (debit positive) per account. Balance sheet:
 * cumulative balances, assets debit positive, liabilities and equity credit positive, with everything posted off
 * the balance sheet (income, expenses, accounts of no known class) and not yet closed to an equity account shown
 * as one equity line, "Net income to date", so that assets always equal liabilities plus equity. Cash flow: each transaction's net movement on cash accounts (transfers between
 * cash accounts net to nothing), a receipt or a payment, from customers (income) or to suppliers (expenses) by its
 * other postings. `modified` is every record's `sourceModifiedDate`.
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
  for (const p of postings) {
    const month = monthOf(p.date);
    if (month < first) first = month;
    if (month > latest) latest = month;
  }
  const last = lastMonth ? monthOf(`${lastMonth}-01`) : latest;
  const months = last - first + 1;
  // Also when `lastMonth` is no month (NaN): nothing to state, never an array of NaN length.
  if (!(months > 0)) return out;
  if (months > MAX_MONTHS) {
    throw new ConnectorError(
      'unavailable',
      `the journal spans ${months} months (from its first posting to its last); statements cover at most ${MAX_MONTHS}`,
    );
  }
  const used = new Set(postings.map((p) => p.accountId));
  const ofType = (type: AccountClass) => accounts.filter((a) => a.type === type && used.has(a.id)).sort((x, y) => (x.id < y.id ? -1 : 1));

  // Movement per account per month, in cents.
  const movement = new Map<string, Int32Array | Float64Array>();
  for (const a of accounts) movement.set(a.id, new Float64Array(months));
  const cash = {
    customers: new Float64Array(months),
    otherReceipts: new Float64Array(months),
    suppliers: new Float64Array(months),
    otherPayments: new Float64Array(months),
  };
  const byTransaction = new Map<string, LedgerPosting[]>();
  // Postings to accounts off the balance sheet (income, expenses, and accounts of no known class), per month.
  const offSheet = new Float64Array(months);
  const sheet = new Set<AccountClass>(['Asset', 'Liability', 'Equity']);
  for (const p of postings) {
    const m = monthOf(p.date) - first;
    if (m < 0 || m >= months) continue;
    const type = byId.get(p.accountId)?.type;
    if (!type || !sheet.has(type)) offSheet[m] += cents(p.amount);
    const series = movement.get(p.accountId);
    if (series) series[m] += cents(p.amount);
    const list = byTransaction.get(p.transactionId) ?? [];
    list.push(p);
    byTransaction.set(p.transactionId, list);
  }
  for (const list of byTransaction.values()) {
    const m = monthOf(list[0].date) - first;
    let net = 0;
    let income = false;
    let expense = false;
    for (const p of list) {
      const account = byId.get(p.accountId);
      if (account?.isCash) net += cents(p.amount);
      else if (account?.type === 'Income') income = true;
      else if (account?.type === 'Expense') expense = true;
    }
    if (net > 0) (income ? cash.customers : cash.otherReceipts)[m] += net;
    else if (net < 0) (expense ? cash.suppliers : cash.otherPayments)[m] += net;
  }

  const lines = (list: LedgerAccount[], value: (a: LedgerAccount) => number): Line[] =>
    list.map((a) => ({ accountId: a.id, name: a.name, value: money(value(a)) }));
  const balance = new Map<string, number>(accounts.map((a) => [a.id, 0]));
  let unclosed = 0;
  const income = ofType('Income');
  const expenses = ofType('Expense');
  for (let m = 0; m < months; m++) {
    const id = monthId(first + m);
    const moved = (a: LedgerAccount) => movement.get(a.id)?.[m] ?? 0;
    for (const a of accounts) balance.set(a.id, (balance.get(a.id) ?? 0) + moved(a));

    const incomeGroup = group(
      'Income',
      lines(income, (a) => -moved(a)),
    );
    const expenseGroup = group('Expenses', lines(expenses, moved));
    const empty = (name: string) => group(name, []);
    const gross = cents(incomeGroup.value);
    const operating = gross - cents(expenseGroup.value);
    out.profitAndLoss.push({
      id,
      sourceModifiedDate: modified,
      data: {
        id,
        fromDate: monthStart(first + m),
        toDate: monthEnd(first + m),
        income: incomeGroup,
        costOfSales: empty('Cost of Sales'),
        grossProfit: money(gross),
        expenses: expenseGroup,
        netOperatingProfit: money(operating),
        otherIncome: empty('Other Income'),
        otherExpenses: empty('Other Expenses'),
        netOtherIncome: 0,
        netProfit: money(operating),
        sourceModifiedDate: modified,
      },
    });

    const held = (a: LedgerAccount) => balance.get(a.id) ?? 0;
    const assets = group('Assets', lines(ofType('Asset'), held));
    const liabilities = group(
      'Liabilities',
      lines(ofType('Liability'), (a) => -held(a)),
    );
    unclosed -= offSheet[m];
    const equity = group('Equity', [...lines(ofType('Equity'), (a) => -held(a)), { name: 'Net income to date', value: money(unclosed) }]);
    out.balanceSheet.push({
      id,
      sourceModifiedDate: modified,
      data: {
        id,
        date: monthEnd(first + m),
        assets,
        liabilities,
        equity,
        netAssets: money(cents(assets.value) - cents(liabilities.value)),
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
        cashReceipts: group('Cash Receipts', [
          { name: 'Receipts from customers', value: money(cash.customers[m]) },
          { name: 'Other receipts', value: money(cash.otherReceipts[m]) },
        ]),
        cashPayments: group('Cash Payments', [
          { name: 'Payments to suppliers', value: money(cash.suppliers[m]) },
          { name: 'Other payments', value: money(cash.otherPayments[m]) },
        ]),
        sourceModifiedDate: modified,
      },
    });
  }
  return out;
}
