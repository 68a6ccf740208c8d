/**
 * The fixed reference data every Sandbox company starts with: its chart of accounts, tax rates, tracking
 * categories, payment methods, journals and bank accounts. Records appended at later epochs come after these.
 */

export const CURRENCIES = ['GBP', 'USD', 'EUR'] as const;
export const BASE_CURRENCY = 'GBP';
export const GBP = 0;
export const USD = 1;
export const EUR = 2;

export type Section =
  | 'bank'
  | 'currentAsset'
  | 'fixedAsset'
  | 'currentLiability'
  | 'nonCurrentLiability'
  | 'equity'
  | 'income'
  | 'otherIncome'
  | 'costOfSales'
  | 'expenses'
  | 'otherExpenses';

export type AccountType = 'Asset' | 'Liability' | 'Equity' | 'Income' | 'Expense';

export interface AccountDef {
  code: string;
  name: string;
  type: AccountType;
  category: string;
  section: Section;
  currency: number;
  description: string;
}

/** Account indices used by the generators. */
export const A = {
  Current: 0,
  Savings: 1,
  UsdCurrent: 2,
  EurCurrent: 3,
  Receivable: 4,
  Equipment: 5,
  Payable: 6,
  Vat: 7,
  CreditCard: 8,
  Loan: 9,
  ShareCapital: 10,
  RetainedEarnings: 11,
  SalesProducts: 12,
  SalesServices: 13,
  Consulting: 14,
  SalesReturns: 15,
  InterestIncome: 16,
  OtherIncome: 17,
  Cogs: 18,
  Subcontractors: 19,
  Freight: 20,
  Rent: 21,
  Utilities: 22,
  Software: 23,
  ProfessionalFees: 24,
  Marketing: 25,
  Travel: 26,
  Insurance: 27,
  Telephone: 28,
  OfficeSupplies: 29,
  Repairs: 30,
  BankCharges: 31,
  Meals: 32,
  InterestExpense: 33,
} as const;

const acc = (
  code: string,
  name: string,
  type: AccountType,
  category: string,
  section: Section,
  description: string,
  currency = GBP,
): AccountDef => ({ code, name, type, category, section, currency, description });

export const CORE_ACCOUNTS: readonly AccountDef[] = [
  acc('1200', 'Business Current Account', 'Asset', 'Asset.Current.Bank', 'bank', 'Main GBP operating account'),
  acc('1210', 'Business Savings Account', 'Asset', 'Asset.Current.Bank', 'bank', 'GBP reserve account'),
  acc('1220', 'USD Current Account', 'Asset', 'Asset.Current.Bank', 'bank', 'Receipts and payments in US dollars', USD),
  acc('1230', 'EUR Current Account', 'Asset', 'Asset.Current.Bank', 'bank', 'Receipts and payments in euros', EUR),
  acc('1100', 'Accounts Receivable', 'Asset', 'Asset.Current.AccountsReceivable', 'currentAsset', 'Amounts owed by customers'),
  acc('0030', 'Office Equipment', 'Asset', 'Asset.Fixed.Equipment', 'fixedAsset', 'Computers, furniture and fittings at cost'),
  acc('2100', 'Accounts Payable', 'Liability', 'Liability.Current.AccountsPayable', 'currentLiability', 'Amounts owed to suppliers'),
  acc('2200', 'VAT Control', 'Liability', 'Liability.Current.Tax', 'currentLiability', 'Output VAT less input VAT'),
  acc('2300', 'Business Credit Card', 'Liability', 'Liability.Current.CreditCard', 'currentLiability', 'Company credit card'),
  acc('2900', 'Bank Loan', 'Liability', 'Liability.NonCurrent.Loans', 'nonCurrentLiability', 'Five-year term loan'),
  acc('3000', 'Share Capital', 'Equity', 'Equity.Owners.ShareCapital', 'equity', 'Ordinary shares'),
  acc('3200', 'Retained Earnings', 'Equity', 'Equity.Owners.RetainedEarnings', 'equity', 'Profits kept in the business'),
  acc('4000', 'Sales - Products', 'Income', 'Income.Revenue.Sales', 'income', 'Sales of goods'),
  acc('4010', 'Sales - Services', 'Income', 'Income.Revenue.Services', 'income', 'Sales of services'),
  acc('4020', 'Consulting Income', 'Income', 'Income.Revenue.Services', 'income', 'Consulting and advisory fees'),
  acc('4090', 'Sales Returns and Allowances', 'Income', 'Income.Revenue.Returns', 'income', 'Credit notes issued to customers'),
  acc('4200', 'Interest Income', 'Income', 'Income.Other.Interest', 'otherIncome', 'Bank interest received'),
  acc('4210', 'Other Income', 'Income', 'Income.Other.Sundry', 'otherIncome', 'Sundry receipts'),
  acc('5000', 'Cost of Goods Sold', 'Expense', 'Expense.CostOfSales.Goods', 'costOfSales', 'Purchases of goods for resale'),
  acc('5010', 'Subcontractor Costs', 'Expense', 'Expense.CostOfSales.Subcontractors', 'costOfSales', 'Work subcontracted to third parties'),
  acc('5020', 'Freight and Delivery', 'Expense', 'Expense.CostOfSales.Freight', 'costOfSales', 'Carriage inwards and outwards'),
  acc('6000', 'Rent and Rates', 'Expense', 'Expense.Operating.Premises', 'expenses', 'Office rent and business rates'),
  acc('6010', 'Utilities', 'Expense', 'Expense.Operating.Premises', 'expenses', 'Electricity, gas and water'),
  acc('6020', 'Software Subscriptions', 'Expense', 'Expense.Operating.Technology', 'expenses', 'SaaS and licences'),
  acc('6030', 'Professional Fees', 'Expense', 'Expense.Operating.Professional', 'expenses', 'Accountancy and legal fees'),
  acc('6040', 'Marketing and Advertising', 'Expense', 'Expense.Operating.Marketing', 'expenses', 'Campaigns and advertising'),
  acc('6050', 'Travel and Subsistence', 'Expense', 'Expense.Operating.Travel', 'expenses', 'Travel, hotels and subsistence'),
  acc('6060', 'Insurance', 'Expense', 'Expense.Operating.Insurance', 'expenses', 'Business insurance'),
  acc('6070', 'Telephone and Internet', 'Expense', 'Expense.Operating.Technology', 'expenses', 'Phones and broadband'),
  acc('6080', 'Office Supplies', 'Expense', 'Expense.Operating.Office', 'expenses', 'Stationery and consumables'),
  acc('6090', 'Repairs and Maintenance', 'Expense', 'Expense.Operating.Premises', 'expenses', 'Repairs to premises and equipment'),
  acc('6100', 'Bank Charges', 'Expense', 'Expense.Operating.BankCharges', 'expenses', 'Bank and card fees'),
  acc('6120', 'Meals and Entertainment', 'Expense', 'Expense.Operating.Entertainment', 'expenses', 'Client and staff entertainment'),
  acc('7000', 'Interest Expense', 'Expense', 'Expense.Other.Interest', 'otherExpenses', 'Interest on loans and overdrafts'),
];

/** Bank accounts: [name, ledger account, currency, type, institution, overdraft limit (pounds)]. */
export const CORE_BANKS: readonly (readonly [string, number, number, 'Debit' | 'Credit', string, number])[] = [
  ['Business Current Account', A.Current, GBP, 'Debit', 'Barclays', 5000],
  ['Business Savings Account', A.Savings, GBP, 'Debit', 'Barclays', 0],
  ['USD Current Account', A.UsdCurrent, USD, 'Debit', 'HSBC', 0],
  ['EUR Current Account', A.EurCurrent, EUR, 'Debit', 'HSBC', 0],
  ['Business Credit Card', A.CreditCard, GBP, 'Credit', 'American Express', 15000],
];
export const B = { Current: 0, Savings: 1, Usd: 2, Eur: 3, Card: 4 } as const;
/** Bank account receiving or paying in each currency. */
export const BANK_OF_CURRENCY = [B.Current, B.Usd, B.Eur] as const;

/** Tax rates: [name, code, rate %]. */
export const CORE_TAX_RATES: readonly (readonly [string, string, number])[] = [
  ['Standard Rate', 'SR', 20],
  ['Reduced Rate', 'RR', 5],
  ['Zero Rated', 'ZR', 0],
  ['Exempt', 'EX', 0],
  ['No VAT', 'NV', 0],
  ['Zero Rated EC Goods', 'ECG', 0],
  ['Zero Rated Services Outside UK', 'ZRS', 0],
];
export const T = { Standard: 0, Reduced: 1, Zero: 2, Exempt: 3, NoVat: 4, EcGoods: 5, ExportServices: 6 } as const;

/** Tracking categories: [name, parent index or -1]. */
export const CORE_TRACKING: readonly (readonly [string, number])[] = [
  ['Department', -1],
  ['Sales', 0],
  ['Operations', 0],
  ['Marketing', 0],
  ['Administration', 0],
  ['Region', -1],
  ['United Kingdom', 5],
  ['Europe', 5],
  ['North America', 5],
];
/** Region tracking category of each currency's customers and suppliers. */
export const REGION_OF_CURRENCY = [6, 8, 7] as const;

export const CORE_PAYMENT_METHODS: readonly (readonly [
  string,
  'Cash' | 'Check' | 'CreditCard' | 'DebitCard' | 'BankTransfer' | 'Other',
])[] = [
  ['Bank Transfer', 'BankTransfer'],
  ['Cheque', 'Check'],
  ['Credit Card', 'CreditCard'],
  ['Debit Card', 'DebitCard'],
  ['Cash', 'Cash'],
  ['Direct Debit', 'Other'],
  ['PayPal', 'Other'],
];
export const PM = { BankTransfer: 0, Cheque: 1, CreditCard: 2, DebitCard: 3, Cash: 4, DirectDebit: 5, PayPal: 6 } as const;

/** Journals: [name, code, type]. */
export const CORE_JOURNALS: readonly (readonly [string, string, string])[] = [
  ['Sales Journal', 'SJ', 'Sales'],
  ['Purchases Journal', 'PJ', 'Purchases'],
  ['Cash Receipts Journal', 'CRJ', 'CashReceipts'],
  ['Cash Payments Journal', 'CPJ', 'CashPayments'],
  ['General Journal', 'GJ', 'General'],
  ['Bank Journal', 'BJ', 'Bank'],
];
export const J = { Sales: 0, Purchases: 1, Receipts: 2, Payments: 3, General: 4, Bank: 5 } as const;
