import { addDecimals, negateDecimal, plainDecimal } from '../../lib/decimal.js';
import { monthIndex } from '../../lib/calendar-date.js';

/*
 * The account lines of a company's monthly statements (the `profitAndLoss` and `balanceSheet` data types, one
 * record per calendar month as every platform serves them), which the enhanced reports categorise. A line that names
 * no account (a balance sheet's net income to date, a platform's current-year earnings) is left out: it is no
 * account, and `hledger bs` shows it apart from equity in the same way.
 */

/**
 * The parts of a statement and the class of account each holds. A line's value is positive in its class's normal
 * direction (income credit-positive, expenses debit-positive, …), as every platform's statements state it.
 */
export const CLASS_OF_PART = {
  income: 'Income',
  otherIncome: 'Income',
  costOfSales: 'Expense',
  expenses: 'Expense',
  otherExpenses: 'Expense',
  assets: 'Asset',
  liabilities: 'Liability',
  equity: 'Equity',
} as const;

export type StatementPart = keyof typeof CLASS_OF_PART;
export const PROFIT_AND_LOSS_PARTS: readonly StatementPart[] = ['income', 'costOfSales', 'expenses', 'otherIncome', 'otherExpenses'];
export const BALANCE_SHEET_PARTS: readonly StatementPart[] = ['assets', 'liabilities', 'equity'];

/** One account's figure in one month's statement, as the platform states it. */
export interface AccountLine {
  month: number;
  accountId: string;
  accountName: string;
  part: StatementPart;
  /** The line's value as served (positive in the part's direction), as exact decimal text. */
  value: string;
}

interface Line {
  accountId?: unknown;
  name?: unknown;
  value?: unknown;
  items?: unknown;
}

const isLine = (x: unknown): x is Line => typeof x === 'object' && x !== null && !Array.isArray(x);
const figure = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? plainDecimal(x) : '0');

/**
 * The month a statement record is for: its id (`YYYY-MM`), else the month of its `toDate` (profit and loss) or
 * `date` (balance sheet); undefined for a record that names none.
 */
function monthOf(doc: Record<string, unknown>): number | undefined {
  for (const key of ['id', 'toDate', 'date', 'fromDate']) {
    const v = doc[key];
    if (typeof v === 'string' && /^\d{4}-\d{2}(?:$|-)/.test(v)) return monthIndex(v);
  }
  return undefined;
}

/**
 * The account lines of a line and those nested in it. A line naming an account with lines below it is that account's
 * own figure where its value is more than its lines' sum (what is posted to a parent account itself); its lines are
 * read as well.
 */
function accountLines(line: Line, push: (accountId: string, name: string, value: string) => void): void {
  const items = Array.isArray(line.items) ? line.items.filter(isLine) : [];
  for (const item of items) accountLines(item, push);
  if (typeof line.accountId !== 'string' || line.accountId === '') return;
  const name = typeof line.name === 'string' ? line.name : line.accountId;
  const own =
    items.length === 0 ? figure(line.value) : addDecimals([figure(line.value), ...items.map((i) => negateDecimal(figure(i.value)))]);
  if (items.length === 0 || !/^-?0(\.0+)?$/.test(own)) push(line.accountId, name, own);
}

/** Every account line of a statement record's parts, for its month. */
export function statementLines(doc: Record<string, unknown>, parts: readonly StatementPart[]): AccountLine[] {
  const month = monthOf(doc);
  if (month === undefined || !Number.isFinite(month)) return [];
  const out: AccountLine[] = [];
  for (const part of parts) {
    const section = doc[part];
    if (!isLine(section)) continue;
    accountLines(section, (accountId, accountName, value) => out.push({ month, accountId, accountName, part, value }));
  }
  return out;
}
