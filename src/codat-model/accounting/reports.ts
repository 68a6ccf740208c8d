import { type TSchema, Type } from '@sinclair/typebox';
import { DataRecord, LocalDate, Money, Opt } from './common.js';

/**
 * Codat's `ReportLine`, `{accountId?, name, value, items?: ReportLine[]}`. The Sandbox nests at most three
 * levels (section, group, account), so the schema is written out three levels deep rather than recursive
 * (a `$ref`-free schema is easier on every consumer: query resolution, OpenAPI, validators).
 */
const line = (items?: TSchema) =>
  Type.Object({ accountId: Opt(Type.String()), name: Type.String(), value: Money, ...(items ? { items: Opt(Type.Array(items)) } : {}) });
export const ReportLine = line(line(line()));

export interface ReportLine {
  accountId?: string;
  name: string;
  value: number;
  items?: ReportLine[];
}

export const ProfitAndLossSchema = DataRecord(
  {
    fromDate: LocalDate,
    toDate: LocalDate,
    income: ReportLine,
    costOfSales: ReportLine,
    grossProfit: Money,
    expenses: ReportLine,
    netOperatingProfit: Money,
    otherIncome: ReportLine,
    otherExpenses: ReportLine,
    netOtherIncome: Money,
    netProfit: Money,
  },
  {
    title: 'ProfitAndLossReport',
    description: 'One calendar month of profit and loss (id YYYY-MM), accrual basis, base currency.',
    supplementalData: false,
  },
);

export const BalanceSheetSchema = DataRecord(
  { date: LocalDate, assets: ReportLine, liabilities: ReportLine, equity: ReportLine, netAssets: Money },
  { title: 'BalanceSheet', description: 'The balance sheet at a month end (id YYYY-MM), base currency.', supplementalData: false },
);

export const CashFlowStatementSchema = DataRecord(
  { fromDate: LocalDate, toDate: LocalDate, cashReceipts: ReportLine, cashPayments: ReportLine },
  {
    title: 'CashFlowStatement',
    description: 'Operating cash flows of one calendar month (id YYYY-MM), direct method, base currency.',
    supplementalData: false,
  },
);
