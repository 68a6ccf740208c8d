import { QboRefusal, type QboEntity, type QboRealm } from './qbo-realm.js';

/**
 * QuickBooks' BalanceSheet and ProfitAndLoss reports as the fake answers them (`summarize_column_by=Month`, accrual):
 * summed from a ledger the fake derives from the realm's transactions, so the reports agree with the entities a
 * connector reads. Each transaction posts in double entry (debits positive, credits negative):
 *
 * - Invoice: Debtors (AR) debit TotalAmt; each line's income account (ItemAccountRef, or its item's) credit; the
 *   tax credit to VAT Control.
 * - Bill: each line's expense account (AccountRef, or its item's ExpenseAccountRef) debit, the tax debit to VAT
 *   Control; Creditors (AP) credit TotalAmt. A VendorCredit the other way round.
 * - CreditMemo: income debit per line, tax debit; AR credit TotalAmt.
 * - Payment: the deposit account debit TotalAmt (the money), AR credit the same.
 * - BillPayment: AP debit TotalAmt, the bank (or card) credit.
 * - JournalEntry: its lines.
 *
 * Assets and expenses are shown debit-positive, liabilities, equity and income credit-positive. The profit and loss
 * to a month's end is the balance sheet's "Net Income" row in Equity, naming no account (as QuickBooks shows it), so
 * every sheet balances.
 */

interface Posting {
  date: string;
  accountId: string;
  /** Debit positive, in cents. */
  cents: number;
}

const cents = (n: unknown) => Math.round(Number(n ?? 0) * 100);
const text = (c: number) => (c === 0 ? '' : (c / 100).toFixed(2));
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The realm's postings, every transaction it holds. */
export function postings(realm: QboRealm): Posting[] {
  const out: Posting[] = [];
  const post = (date: string, accountId: string | undefined, amount: number) => {
    if (accountId && amount !== 0) out.push({ date, accountId, cents: amount });
  };
  const ar = realm.account('1100').Id;
  const ap = realm.account('2100').Id;
  const vat = realm.account('2200').Id;
  const itemAccount = (ref: QboEntity | undefined, field: 'IncomeAccountRef' | 'ExpenseAccountRef') =>
    ref?.value ? realm.table('Item').get(String(ref.value))?.[field]?.value : undefined;
  /**
   * Sales documents: AR by TotalAmt (a sales or refund receipt: its bank account), income and tax the other way (sign
   * +1 for an invoice or a sales receipt, −1 for a credit memo or a refund receipt).
   */
  const sale = (x: QboEntity, sign: number, debited = ar) => {
    post(x.TxnDate, debited, sign * cents(x.TotalAmt));
    for (const l of x.Line ?? []) {
      if (l.DetailType !== 'SalesItemLineDetail') continue;
      const d = l.SalesItemLineDetail ?? {};
      post(x.TxnDate, d.ItemAccountRef?.value ?? itemAccount(d.ItemRef, 'IncomeAccountRef'), -sign * cents(l.Amount));
    }
    post(x.TxnDate, vat, -sign * cents(x.TxnTaxDetail?.TotalTax));
  };
  /**
   * Purchase documents: expenses and tax debit, AP credit (a cheque, cash or card expense: the account paid from); sign
   * +1 for a bill or an expense, −1 for a vendor credit or a card refund.
   */
  const purchase = (x: QboEntity, sign: number, credited?: string) => {
    for (const l of x.Line ?? []) {
      const account =
        l.DetailType === 'AccountBasedExpenseLineDetail'
          ? l.AccountBasedExpenseLineDetail?.AccountRef?.value
          : l.DetailType === 'ItemBasedExpenseLineDetail'
            ? itemAccount(l.ItemBasedExpenseLineDetail?.ItemRef, 'ExpenseAccountRef')
            : undefined;
      post(x.TxnDate, account, sign * cents(l.Amount));
    }
    post(x.TxnDate, vat, sign * cents(x.TxnTaxDetail?.TotalTax));
    post(x.TxnDate, credited ?? x.APAccountRef?.value ?? ap, -sign * cents(x.TotalAmt));
  };
  for (const x of realm.all('Invoice')) sale(x, 1);
  for (const x of realm.all('CreditMemo')) sale(x, -1);
  for (const x of realm.all('Bill')) purchase(x, 1);
  for (const x of realm.all('VendorCredit')) purchase(x, -1);
  for (const x of realm.all('Payment')) {
    // In the home currency: a foreign customer's payment at its exchange rate.
    const home = cents(x.TotalAmt * (x.ExchangeRate ?? 1));
    post(x.TxnDate, x.DepositToAccountRef?.value, home);
    post(x.TxnDate, x.ARAccountRef?.value ?? ar, -home);
  }
  for (const x of realm.all('BillPayment')) {
    post(x.TxnDate, x.APAccountRef?.value ?? ap, cents(x.TotalAmt));
    post(x.TxnDate, (x.CheckPayment?.BankAccountRef ?? x.CreditCardPayment?.CCAccountRef)?.value, -cents(x.TotalAmt));
  }
  for (const x of realm.all('SalesReceipt')) sale(x, 1, x.DepositToAccountRef?.value);
  for (const x of realm.all('RefundReceipt')) sale(x, -1, x.DepositToAccountRef?.value);
  for (const x of realm.all('Purchase')) purchase(x, x.Credit === true ? -1 : 1, x.AccountRef?.value);
  // A deposit: the bank by what reached it, cash back by what was taken, each line's source (a payment's holding
  // account, or the line's own account) the other way.
  for (const x of realm.all('Deposit')) {
    post(x.TxnDate, x.DepositToAccountRef?.value, cents(x.TotalAmt));
    post(x.TxnDate, x.CashBack?.AccountRef?.value, cents(x.CashBack?.Amount));
    for (const l of x.Line ?? []) {
      // A line taking a payment or receipt out of Undeposited Funds credits the account it was held in.
      const held = (l.LinkedTxn ?? []).find((t: QboEntity) => ['Payment', 'SalesReceipt', 'RefundReceipt'].includes(t.TxnType));
      const from = held
        ? realm.table(held.TxnType).get(String(held.TxnId))?.DepositToAccountRef?.value
        : l.DepositLineDetail?.AccountRef?.value;
      post(x.TxnDate, from, -cents(l.Amount));
    }
  }
  for (const x of realm.all('CreditCardPaymentTxn')) {
    post(x.TxnDate, x.CreditCardAccountRef?.value, cents(x.Amount));
    post(x.TxnDate, x.BankAccountRef?.value, -cents(x.Amount));
  }
  for (const x of realm.all('Transfer')) {
    post(x.TxnDate, x.ToAccountRef?.value, cents(x.Amount));
    post(x.TxnDate, x.FromAccountRef?.value, -cents(x.Amount));
  }
  for (const x of realm.all('JournalEntry')) {
    for (const l of x.Line ?? []) {
      const d = l.JournalEntryLineDetail ?? {};
      post(x.TxnDate, d.AccountRef?.value, (d.PostingType === 'Credit' ? -1 : 1) * cents(l.Amount));
    }
  }
  return out;
}

interface Month {
  start: string;
  end: string;
}

/** The month columns between two dates (the first and last may be part months, as QuickBooks cuts them). */
function months(start: string, end: string): Month[] {
  const out: Month[] = [];
  let [y, m] = start.split('-').map(Number);
  for (;;) {
    const first = `${y}-${String(m).padStart(2, '0')}-01`;
    const last = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
    out.push({ start: first < start ? start : first, end: last > end ? end : last });
    if (last >= end) return out;
    [y, m] = m === 12 ? [y + 1, 1] : [y, m + 1];
  }
}

/** Data rows, sections and summaries as QuickBooks nests them. */
type Node = { account: QboEntity } | { name: string; values: number[] } | Section;
interface Section {
  title: string;
  group?: string;
  children: Node[];
  /** A computed section: only a summary (GrossProfit and the like). */
  total?: number[];
}

/** The Total column: the sum of the months (profit and loss) or the last month's balance (balance sheet). */
function rowsOf(
  nodes: Node[],
  valuesOf: (a: QboEntity) => number[],
  width: number,
  total: (values: number[]) => number,
): { rows: QboEntity[]; sums: number[] } {
  const sums = new Array<number>(width).fill(0);
  const rows: QboEntity[] = [];
  const add = (values: number[]) => values.forEach((v, i) => (sums[i] += v));
  const cols = (values: number[]) => [...values, total(values)].map((v) => ({ value: text(v) }));
  for (const node of nodes) {
    if ('account' in node) {
      const values = valuesOf(node.account);
      if (values.every((v) => v === 0)) continue;
      add(values);
      rows.push({ ColData: [{ value: node.account.Name, id: String(node.account.Id) }, ...cols(values)], type: 'Data' });
    } else if ('name' in node) {
      add(node.values);
      rows.push({ ColData: [{ value: node.name }, ...cols(node.values)], type: 'Data' });
    } else if (node.total) {
      rows.push({
        Summary: { ColData: [{ value: node.title }, ...cols(node.total)] },
        type: 'Section',
        ...(node.group ? { group: node.group } : {}),
      });
    } else {
      const inner = rowsOf(node.children, valuesOf, width, total);
      if (inner.rows.length === 0) continue;
      add(inner.sums);
      rows.push({
        Header: { ColData: [{ value: node.title }, ...new Array(width + 1).fill(0).map(() => ({ value: '' }))] },
        Rows: { Row: inner.rows },
        Summary: { ColData: [{ value: `Total ${node.title}` }, ...cols(inner.sums)] },
        type: 'Section',
        ...(node.group ? { group: node.group } : {}),
      });
    }
  }
  return { rows, sums };
}

/** `GET reports/BalanceSheet|ProfitAndLoss` of a realm. */
export function report(realm: QboRealm, name: string, params: URLSearchParams, time: string): QboEntity {
  if (name !== 'BalanceSheet' && name !== 'ProfitAndLoss')
    throw new QboRefusal('4000', 'Unsupported Operation', `the fake has no report ${name}`);
  const start = params.get('start_date') ?? '';
  const end = params.get('end_date') ?? '';
  if (!/^\d{4}-\d\d-\d\d$/.test(start) || !/^\d{4}-\d\d-\d\d$/.test(end) || start > end)
    throw new QboRefusal('2010', 'Request has invalid or unsupported property', `start_date and end_date: ${start}, ${end}`);
  if ((params.get('summarize_column_by') ?? 'Month') !== 'Month')
    throw new QboRefusal('4000', 'Unsupported Operation', 'the fake summarizes columns by Month only');
  const columns = months(start, end);
  const ledger = postings(realm);
  const accounts = realm.all('Account');
  const byId = new Map(accounts.map((a) => [String(a.Id), a]));
  const credit = (a: QboEntity) => ['Liability', 'Equity', 'Revenue'].includes(a.Classification);
  /** An account's movements (`from` given) or balances in each column, in its natural sign. */
  const amounts = (balances: boolean) => (a: QboEntity) =>
    columns.map((c) =>
      ledger
        .filter((p) => p.accountId === String(a.Id) && p.date <= c.end && (balances || p.date >= c.start))
        .reduce((sum, p) => sum + (credit(a) ? -p.cents : p.cents), 0),
    );
  const of = (test: (a: QboEntity) => boolean) => accounts.filter(test).map((account) => ({ account }));
  const type = (t: string) => (a: QboEntity) => a.AccountType === t;
  /** Profit to each column's end (balance sheet) or in each column (profit and loss), credit-positive. */
  const profit = (balances: boolean) =>
    columns.map((c) =>
      ledger
        .filter(
          (p) =>
            ['Revenue', 'Expense'].includes(byId.get(p.accountId)?.Classification) && p.date <= c.end && (balances || p.date >= c.start),
        )
        .reduce((sum, p) => sum - p.cents, 0),
    );
  const sections: Section[] =
    name === 'BalanceSheet'
      ? [
          {
            title: 'ASSETS',
            group: 'TotalAssets',
            children: [
              {
                title: 'Current Assets',
                group: 'CurrentAssets',
                children: [
                  { title: 'Bank Accounts', group: 'BankAccounts', children: of(type('Bank')) },
                  { title: 'Accounts Receivable', group: 'AR', children: of(type('Accounts Receivable')) },
                  { title: 'Other Current Assets', group: 'OtherCurrentAssets', children: of(type('Other Current Asset')) },
                ],
              },
              { title: 'Fixed Assets', group: 'FixedAssets', children: of(type('Fixed Asset')) },
              { title: 'Other Assets', group: 'OtherAssets', children: of(type('Other Asset')) },
            ],
          },
          {
            title: 'LIABILITIES AND EQUITY',
            group: 'TotalLiabilitiesAndEquity',
            children: [
              {
                title: 'Liabilities',
                group: 'Liabilities',
                children: [
                  {
                    title: 'Current Liabilities',
                    group: 'CurrentLiabilities',
                    children: [
                      { title: 'Accounts Payable', group: 'AP', children: of(type('Accounts Payable')) },
                      { title: 'Credit Cards', group: 'CreditCards', children: of(type('Credit Card')) },
                      {
                        title: 'Other Current Liabilities',
                        group: 'OtherCurrentLiabilities',
                        children: of(type('Other Current Liability')),
                      },
                    ],
                  },
                  { title: 'Long-Term Liabilities', group: 'LongTermLiabilities', children: of(type('Long Term Liability')) },
                ],
              },
              {
                title: 'Equity',
                group: 'Equity',
                children: [...of((a) => a.Classification === 'Equity'), { name: 'Net Income', values: profit(true) }],
              },
            ],
          },
        ]
      : (() => {
          const pl = (t: string) => of(type(t));
          const totals = (t: string) => {
            const values = accounts.filter(type(t)).map(amounts(false));
            return columns.map((_, i) => values.reduce((s, v) => s + v[i], 0));
          };
          const [income, cogs, expenses, otherIncome, otherExpenses] = [
            'Income',
            'Cost of Goods Sold',
            'Expense',
            'Other Income',
            'Other Expense',
          ].map(totals);
          const gross = columns.map((_, i) => income[i] - cogs[i]);
          const operating = columns.map((_, i) => gross[i] - expenses[i]);
          const other = columns.map((_, i) => otherIncome[i] - otherExpenses[i]);
          const net = columns.map((_, i) => operating[i] + other[i]);
          return [
            { title: 'Income', group: 'Income', children: pl('Income') },
            { title: 'Cost of Goods Sold', group: 'COGS', children: pl('Cost of Goods Sold') },
            { title: 'Gross Profit', group: 'GrossProfit', children: [], total: gross },
            { title: 'Expenses', group: 'Expenses', children: pl('Expense') },
            { title: 'Net Operating Income', group: 'NetOperatingIncome', children: [], total: operating },
            { title: 'Other Income', group: 'OtherIncome', children: pl('Other Income') },
            { title: 'Other Expenses', group: 'OtherExpenses', children: pl('Other Expense') },
            { title: 'Net Other Income', group: 'NetOtherIncome', children: [], total: other },
            { title: 'Net Income', group: 'NetIncome', children: [], total: net },
          ];
        })();
  const sheet = name === 'BalanceSheet';
  const { rows } = rowsOf(sections, amounts(sheet), columns.length, (v) => (sheet ? (v.at(-1) ?? 0) : v.reduce((a, b) => a + b, 0)));
  const title = (c: Month) => `${MONTHS[Number(c.start.slice(5, 7)) - 1]} ${c.start.slice(0, 4)}`;
  return {
    Header: {
      Time: time,
      ReportName: name,
      ReportBasis: params.get('accounting_method') === 'Cash' ? 'Cash' : 'Accrual',
      StartPeriod: start,
      EndPeriod: end,
      SummarizeColumnsBy: 'Month',
      Currency: realm.preferences.CurrencyPrefs?.HomeCurrency?.value ?? 'GBP',
      Option: [{ Name: 'NoReportData', Value: String(rows.length === 0) }],
    },
    Columns: {
      Column: [
        { ColTitle: '', ColType: 'Account', MetaData: [{ Name: 'ColKey', Value: 'account' }] },
        ...columns.map((c) => ({
          ColTitle: title(c),
          ColType: 'Money',
          MetaData: [
            { Name: 'StartDate', Value: c.start },
            { Name: 'EndDate', Value: c.end },
            { Name: 'ColKey', Value: title(c) },
          ],
        })),
        { ColTitle: 'Total', ColType: 'Money', MetaData: [{ Name: 'ColKey', Value: 'total' }] },
      ],
    },
    Rows: { Row: rows },
  };
}
