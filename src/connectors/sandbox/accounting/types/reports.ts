import type { SourceRecord } from '../../../connector.js';
import { CF_CUSTOMERS, CF_DIRECT, CF_OTHER_RECEIPTS, CF_SUPPLIERS, type Ledger, NA, ledgerOf } from '../core/ledger.js';
import { A, CORE_ACCOUNTS, type Section } from '../engine/chart.js';
import type { Ctx } from '../engine/context.js';
import {
  BalanceSheetSchema,
  CashFlowStatementSchema,
  ProfitAndLossSchema,
  type ReportLine,
} from '../../../../codat-model/accounting/index.js';
import { epochInstant, record, source } from './shared.js';

/**
 * Monthly reports read from the ledger (`core/ledger.ts`): one record per calendar month, id `YYYY-MM`, in
 * the base currency. Amounts are rounded to cents and every total is the sum of its lines.
 */

const accountsOf = (section: Section): number[] => CORE_ACCOUNTS.flatMap((a, i) => (a.section === section ? [i] : []));
const SECTIONS = {
  income: accountsOf('income'),
  costOfSales: accountsOf('costOfSales'),
  expenses: accountsOf('expenses'),
  otherIncome: accountsOf('otherIncome'),
  otherExpenses: accountsOf('otherExpenses'),
  bank: accountsOf('bank'),
  currentAsset: accountsOf('currentAsset'),
  fixedAsset: accountsOf('fixedAsset'),
  currentLiability: accountsOf('currentLiability'),
  nonCurrentLiability: accountsOf('nonCurrentLiability'),
  equity: accountsOf('equity'),
};
const PL_ACCOUNTS = [...SECTIONS.income, ...SECTIONS.costOfSales, ...SECTIONS.expenses, ...SECTIONS.otherIncome, ...SECTIONS.otherExpenses];

/** `{name, value, items}` where value is the sum of the items (in cents until the end). */
function group(name: string, items: ReportLine[]): ReportLine {
  let cents = 0;
  for (const item of items) cents += Math.round(item.value * 100);
  return { name, value: cents / 100, items };
}

/** One line per account; `sign` turns debit-positive amounts into the section's natural sign. */
function accountLines(ctx: Ctx, accounts: number[], cents: (a: number) => number, sign: number): ReportLine[] {
  return accounts.map((a) => ({ accountId: ctx.accountRefs[a].id, name: CORE_ACCOUNTS[a].name, value: (sign * cents(a)) / 100 || 0 }));
}

/** Month-report `sourceModifiedDate`: its latest change epoch, else the end of the month (or asOf). */
function reportModified(ctx: Ctx, m: number, last: number): string {
  if (last > 0) return epochInstant(ctx, last);
  const end = Math.min(ctx.cal.monthStart[m + 1] - 1, ctx.asOfDay);
  return end >= ctx.asOfDay ? epochInstant(ctx, 0) : ctx.cal.instant(end, 1_380);
}

function* profitAndLoss(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const L = ledgerOf(ctx, epoch);
  for (let m = 0; m < L.months; m++) {
    const cents = (a: number) => L.movement[m * NA + a];
    const income = group('Income', accountLines(ctx, SECTIONS.income, cents, -1));
    const costOfSales = group('Cost of Sales', accountLines(ctx, SECTIONS.costOfSales, cents, 1));
    const expenses = group('Expenses', accountLines(ctx, SECTIONS.expenses, cents, 1));
    const otherIncome = group('Other Income', accountLines(ctx, SECTIONS.otherIncome, cents, -1));
    const otherExpenses = group('Other Expenses', accountLines(ctx, SECTIONS.otherExpenses, cents, 1));
    const c = (line: ReportLine) => Math.round(line.value * 100);
    const gross = c(income) - c(costOfSales);
    const operating = gross - c(expenses);
    const other = c(otherIncome) - c(otherExpenses);
    const id = ctx.cal.monthId(m);
    const modified = reportModified(ctx, m, L.plLast[m]);
    yield record(id, modified, {
      id,
      fromDate: ctx.cal.local(ctx.cal.monthStart[m]),
      toDate: ctx.cal.local(ctx.cal.monthStart[m + 1] - 1),
      income,
      costOfSales,
      grossProfit: gross / 100,
      expenses,
      netOperatingProfit: operating / 100,
      otherIncome,
      otherExpenses,
      netOtherIncome: other / 100,
      netProfit: (operating + other) / 100,
      sourceModifiedDate: modified,
    });
  }
}

/** Cumulative balances (debit positive, cents) of every account at the end of month m, updated in place. */
function accumulate(L: Ledger, m: number, balances: Float64Array): void {
  for (let a = 0; a < NA; a++) balances[a] += L.movement[m * NA + a];
}

function* balanceSheet(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const L = ledgerOf(ctx, epoch);
  const balances = new Float64Array(NA);
  let priorYears = 0;
  let thisYear = 0;
  for (let m = 0; m < L.months; m++) {
    // Profit of earlier financial years moves to retained earnings when a new year starts.
    const startMonth = new Date(ctx.cal.monthStart[m] * 86_400_000).getUTCMonth();
    if (m > 0 && startMonth === ctx.fyStartMonth) {
      priorYears += thisYear;
      thisYear = 0;
    }
    accumulate(L, m, balances);
    for (const a of PL_ACCOUNTS) thisYear -= L.movement[m * NA + a];
    const cents = (a: number) => balances[a];
    const assets = group('Assets', [
      group('Current Assets', accountLines(ctx, [...SECTIONS.bank, ...SECTIONS.currentAsset], cents, 1)),
      group('Fixed Assets', accountLines(ctx, SECTIONS.fixedAsset, cents, 1)),
    ]);
    const liabilities = group('Liabilities', [
      group('Current Liabilities', accountLines(ctx, SECTIONS.currentLiability, cents, -1)),
      group('Non-current Liabilities', accountLines(ctx, SECTIONS.nonCurrentLiability, cents, -1)),
    ]);
    const retained = -balances[A.RetainedEarnings] + priorYears;
    const equity = group('Equity', [
      {
        accountId: ctx.accountRefs[A.ShareCapital].id,
        name: CORE_ACCOUNTS[A.ShareCapital].name,
        value: -balances[A.ShareCapital] / 100 || 0,
      },
      { accountId: ctx.accountRefs[A.RetainedEarnings].id, name: CORE_ACCOUNTS[A.RetainedEarnings].name, value: retained / 100 || 0 },
      { name: 'Current Year Earnings', value: thisYear / 100 || 0 },
    ]);
    const id = ctx.cal.monthId(m);
    const modified = reportModified(ctx, m, L.bsLast[m]);
    yield record(id, modified, {
      id,
      date: ctx.cal.local(ctx.cal.monthStart[m + 1] - 1),
      assets,
      liabilities,
      equity,
      netAssets: (Math.round(assets.value * 100) - Math.round(liabilities.value * 100)) / 100,
      sourceModifiedDate: modified,
    });
  }
}

function* cashFlowStatement(ctx: Ctx, epoch: number): Generator<SourceRecord> {
  const L = ledgerOf(ctx, epoch);
  for (let m = 0; m < L.months; m++) {
    const v = (column: number) => L.cash[m * 4 + column] / 100;
    const id = ctx.cal.monthId(m);
    const modified = reportModified(ctx, m, L.cfLast[m]);
    yield record(id, modified, {
      id,
      fromDate: ctx.cal.local(ctx.cal.monthStart[m]),
      toDate: ctx.cal.local(ctx.cal.monthStart[m + 1] - 1),
      cashReceipts: group('Cash Receipts', [
        { name: 'Receipts from customers', value: v(CF_CUSTOMERS) },
        { name: 'Other receipts', value: v(CF_OTHER_RECEIPTS) },
      ]),
      cashPayments: group('Cash Payments', [
        { name: 'Payments to suppliers', value: v(CF_SUPPLIERS) },
        { name: 'Direct payments', value: v(CF_DIRECT) },
      ]),
      sourceModifiedDate: modified,
    });
  }
}

export const profitAndLossSource = source('profitAndLoss', 'ProfitAndLossReport', ProfitAndLossSchema, profitAndLoss);
export const balanceSheetSource = source('balanceSheet', 'BalanceSheet', BalanceSheetSchema, balanceSheet);
export const cashFlowStatementSource = source('cashFlowStatement', 'CashFlowStatement', CashFlowStatementSchema, cashFlowStatement);
