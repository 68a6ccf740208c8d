import { describe, expect, it } from 'vitest';
import { balanceSheetRecords, profitAndLossRecords, reportParams } from '../../../src/connectors/quickbooks/qbo-reports.js';
import { qboValidator } from '../../contracts/quickbooks/xsd-to-json-schema.js';
import { QboRealm } from '../../fakes/quickbooks/qbo-realm.js';
import { report } from '../../fakes/quickbooks/qbo-reports.js';

/**
 * QuickBooks' monthly reports read as Codat's statements, on reports laid out as QuickBooks lays them out: nested
 * sections, a parent account with sub-accounts as a section whose header names it, a row naming no account, a Total
 * column, and the computed sections of the profit and loss.
 */

const month = (title: string, start: string, end: string) => ({
  ColTitle: title,
  ColType: 'Money',
  MetaData: [
    { Name: 'StartDate', Value: start },
    { Name: 'EndDate', Value: end },
    { Name: 'ColKey', Value: title },
  ],
});
const columns = {
  Column: [
    { ColTitle: '', ColType: 'Account', MetaData: [{ Name: 'ColKey', Value: 'account' }] },
    month('Jan 2025', '2025-01-01', '2025-01-31'),
    month('Feb 2025', '2025-02-01', '2025-02-28'),
    { ColTitle: 'Total', ColType: 'Money', MetaData: [{ Name: 'ColKey', Value: 'total' }] },
  ],
};
const data = (name: string, id: string | undefined, ...values: string[]) => ({
  ColData: [{ value: name, ...(id ? { id } : {}) }, ...values.map((value) => ({ value }))],
  type: 'Data',
});
const section = (title: string, group: string | undefined, rows: object[], id?: string, own: string[] = ['', '', '']) => ({
  Header: { ColData: [{ value: title, ...(id ? { id } : {}) }, ...own.map((value) => ({ value }))] },
  Rows: { Row: rows },
  Summary: { ColData: [{ value: `Total ${title}` }, { value: '' }, { value: '' }, { value: '' }] },
  type: 'Section',
  ...(group ? { group } : {}),
});
const accounts = new Map(
  [
    ['1', 'Asset', 'Bank'],
    ['2', 'Asset', 'Bank'],
    ['3', 'Asset', 'Accounts Receivable'],
    ['4', 'Liability', 'Accounts Payable'],
    ['5', 'Equity', 'Equity'],
    ['6', 'Revenue', 'Income'],
    ['7', 'Expense', 'Cost of Goods Sold'],
    ['8', 'Expense', 'Expense'],
    ['9', 'Revenue', 'Other Income'],
    ['10', 'Expense', 'Other Expense'],
  ].map(([Id, Classification, AccountType]) => [Id, { Id, Classification, AccountType }]),
);

describe("QuickBooks Online's reports", () => {
  it('reads a balance sheet: nested sections, a parent account with its own amount, Net Income with the equity', () => {
    const sheet = {
      Header: { ReportName: 'BalanceSheet', SummarizeColumnsBy: 'Month', Time: '2025-03-01T10:00:00-08:00' },
      Columns: columns,
      Rows: {
        Row: [
          section('ASSETS', 'TotalAssets', [
            section('Current Assets', 'CurrentAssets', [
              section('Bank Accounts', 'BankAccounts', [
                // A parent account (1) of 100.00 of its own, with a sub-account (2).
                section('Checking', undefined, [data('Petty cash', '2', '10.00', '20.00', '20.00')], '1', [
                  '100.00',
                  '1,000.50',
                  '1,000.50',
                ]),
              ]),
              section('Accounts Receivable', 'AR', [data('Debtors', '3', '50.00', '', '')]),
            ]),
          ]),
          section('LIABILITIES AND EQUITY', 'TotalLiabilitiesAndEquity', [
            section('Liabilities', 'Liabilities', [data('Creditors', '4', '60.00', '20.00', '20.00')]),
            // Only a row naming no account: the group says where it goes.
            section('Equity', 'Equity', [data('Net Income', undefined, '100.00', '1000.50', '1000.50')]),
          ]),
        ],
      },
    };
    const [jan, feb] = balanceSheetRecords(sheet, accounts);
    expect(jan).toMatchObject({
      id: '2025-01',
      data: {
        date: '2025-01-31T00:00:00',
        assets: {
          value: 160,
          items: [
            { accountId: '1', name: 'Checking', value: 100 },
            { accountId: '2', name: 'Petty cash', value: 10 },
            { accountId: '3', name: 'Debtors', value: 50 },
          ],
        },
        liabilities: { value: 60 },
        equity: { value: 100, items: [{ name: 'Net Income', value: 100 }] },
        netAssets: 100,
      },
    });
    expect(feb.data).toMatchObject({ date: '2025-02-28T00:00:00', assets: { value: 1020.5 }, netAssets: 1000.5 });
    expect(feb.data.assets.items!.map((i) => i.accountId)).toEqual(['1', '2']);
  });

  it('reads a profit and loss by account type, leaving out the computed sections and the Total column', () => {
    const pl = {
      Header: { ReportName: 'ProfitAndLoss', SummarizeColumnsBy: 'Month' },
      Columns: columns,
      Rows: {
        Row: [
          section('Income', 'Income', [data('Sales', '6', '1000.00', '500.00', '1500.00')]),
          section('Cost of Goods Sold', 'COGS', [data('Materials', '7', '400.00', '', '400.00')]),
          {
            Summary: { ColData: [{ value: 'Gross Profit' }, { value: '600.00' }, { value: '500.00' }, { value: '1100.00' }] },
            type: 'Section',
            group: 'GrossProfit',
          },
          // Filed under Expenses, but the account says cost of sales: the account wins.
          section('Expenses', 'Expenses', [data('Rent', '8', '100.00', '100.00', '200.00'), data('Freight', '7', '5.00', '', '5.00')]),
          section('Other Income', 'OtherIncome', [data('Interest', '9', '2.50', '', '2.50')]),
          section('Other Expenses', 'OtherExpenses', [
            data('Penalties', '10', '1.00', '', '1.00'),
            data('Unassigned', undefined, '3.00', '', '3.00'),
          ]),
          {
            Summary: { ColData: [{ value: 'Net Income' }, { value: '0' }, { value: '0' }, { value: '0' }] },
            type: 'Section',
            group: 'NetIncome',
          },
        ],
      },
    };
    const [jan, feb] = profitAndLossRecords(pl, accounts);
    expect(jan).toMatchObject({
      id: '2025-01',
      data: {
        fromDate: '2025-01-01T00:00:00',
        toDate: '2025-01-31T00:00:00',
        income: { value: 1000 },
        costOfSales: {
          value: 405,
          items: [
            { accountId: '7', value: 400 },
            { accountId: '7', name: 'Freight', value: 5 },
          ],
        },
        grossProfit: 595,
        expenses: { value: 100 },
        netOperatingProfit: 495,
        otherIncome: { value: 2.5 },
        // The row naming no account goes with its section's other rows.
        otherExpenses: { value: 4 },
        netOtherIncome: -1.5,
        netProfit: 493.5,
      },
    });
    expect(feb.data).toMatchObject({ income: { value: 500 }, costOfSales: { value: 0, items: [] }, netProfit: 400 });
  });

  it("asks for Codat's 24 months by month, on the accrual basis", () => {
    expect(reportParams(new Date('2026-11-25T12:00:00Z'))).toEqual({
      start_date: '2024-12-01',
      end_date: '2026-11-30',
      summarize_column_by: 'Month',
      accounting_method: 'Accrual',
    });
  });

  it("the fake's reports are Intuit's Report, sum its ledger and balance; a broken one is caught", () => {
    const realm = new QboRealm('1', 'Books');
    const [invoice] = realm.seedInvoices(1);
    realm.addPayment(invoice.Id, 100);
    realm.seedBills(1);
    const params = new URLSearchParams({ start_date: '2025-09-01', end_date: '2025-11-30', summarize_column_by: 'Month' });
    const validator = qboValidator();
    const sheet = report(realm, 'BalanceSheet', params, '2025-12-01T00:00:00-08:00');
    const pl = report(realm, 'ProfitAndLoss', params, '2025-12-01T00:00:00-08:00');
    expect(validator.validate('Report', sheet).errors).toBe('');
    expect(validator.validate('Report', pl).errors).toBe('');
    const chart = new Map(realm.all('Account').map((a) => [String(a.Id), a]));
    const sheets = balanceSheetRecords(sheet, chart);
    expect(sheets.map((s) => s.id)).toEqual(['2025-09', '2025-10', '2025-11']);
    const november = sheets[2].data;
    // Invoice 150 + 30 VAT, 100 paid; bill 80 + 16 VAT.
    expect(november.assets.value).toBe(180);
    expect(november.liabilities.value).toBe(96 + 30 - 16);
    expect(november.equity.value).toBe(70);
    const nov = profitAndLossRecords(pl, chart)[2].data;
    expect(nov).toMatchObject({ income: { value: 150 }, expenses: { value: 80 }, netProfit: 70 });
    sheet.Rows.Row[0].type = 'Total';
    expect(validator.validate('Report', sheet).ok).toBe(false);
  });
});
