import type { AccountRole, Currency } from './account-kinds.js';
import { categoryName, parentOf } from './category-tree.js';

export type TransactionCode =
  | 'Unknown'
  | 'Fee'
  | 'Payment'
  | 'Cash'
  | 'Transfer'
  | 'Interest'
  | 'Cashback'
  | 'Cheque'
  | 'DirectDebit'
  | 'Purchase'
  | 'StandingOrder'
  | 'Adjustment'
  | 'Credit'
  | 'Other'
  | 'NotSupported';

/** A kind of day-to-day bank transaction: who, how, which category and how much. */
export interface Template {
  weight: number;
  sign: 1 | -1;
  code: TransactionCode;
  category: string;
  categoryName: string;
  /** Where a later re-categorisation moves the transaction (the parent category unless given). */
  altCategory: string;
  altCategoryName: string;
  /** Amount range in currency units (drawn log-uniformly, so small amounts are common). */
  min: number;
  max: number;
  /** `{c}`: a customer, `{s}`: a supplier; null for bank-generated lines. */
  merchant: string | null;
  /** Bank statement text; `{n}` is a reference number, `{c}`/`{s}` the counterparty in capitals. */
  description: string;
  /** `description` split at its placeholders: text, placeholder, text, ... (placeholders are `n` or `party`). */
  parts: string[];
  /** Card purchases are authorised up to this many days before they post. */
  authLagDays: number;
}

type Row = [
  weight: number,
  sign: 1 | -1,
  code: TransactionCode,
  category: string,
  min: number,
  max: number,
  merchant: string | null,
  description: string,
  alt?: string,
];

function build(rows: Row[]): Template[] {
  return rows.map(([weight, sign, code, category, min, max, merchant, description, alt]) => {
    const altCategory = alt ?? parentOf(category);
    return {
      weight,
      sign,
      code,
      category,
      categoryName: categoryName(category),
      altCategory,
      altCategoryName: categoryName(altCategory),
      min,
      max,
      merchant,
      description,
      parts: description.split(/\{([ncs])\}/).map((p, i) => (i % 2 && p !== 'n' ? 'party' : p)),
      authLagDays: code === 'Purchase' ? 3 : 0,
    };
  });
}

const CURRENT_GBP = build([
  [10, 1, 'Credit', 'income-sales', 300, 9000, 'Stripe', 'BACS CREDIT STRIPE PAYMENTS UK LTD ST-{n}'],
  [12, 1, 'Credit', 'income-sales', 250, 15000, '{c}', 'FASTER PAYMENT FROM {c} REF INV-{n}'],
  [1, 1, 'Cheque', 'income-sales', 100, 3000, null, 'CHEQUE DEPOSIT {n}', 'cash-deposits'],
  [0.7, 1, 'Credit', 'income-refunds', 20, 800, '{s}', 'FASTER PAYMENT FROM {s} REFUND {n}'],
  [10, -1, 'Payment', 'suppliers-stock', 200, 12000, '{s}', 'FASTER PAYMENT TO {s} REF PO-{n}', 'suppliers-services'],
  [3, -1, 'Payment', 'payroll-contractors', 300, 5000, '{s}', 'FASTER PAYMENT TO {s} CONTRACT {n}', 'professional-services-consulting'],
  [3, -1, 'DirectDebit', 'software-cloud', 40, 2500, 'Amazon Web Services', 'DIRECT DEBIT AWS EMEA SARL {n}', 'software-saas'],
  [3, -1, 'DirectDebit', 'marketing-online-ads', 100, 4000, 'Google Ads', 'DIRECT DEBIT GOOGLE IRELAND LTD ADS{n}'],
  [2, -1, 'Purchase', 'marketing-online-ads', 50, 2500, 'Meta', 'CARD PAYMENT TO FACEBK *{n}'],
  [4, -1, 'Purchase', 'office-postage', 5, 400, 'Royal Mail', 'CARD PAYMENT TO ROYAL MAIL GROUP {n}'],
  [2, -1, 'DirectDebit', 'office-postage', 50, 1500, 'DHL Parcel UK', 'DIRECT DEBIT DHL PARCEL UK {n}'],
  [2, -1, 'Purchase', 'office-supplies', 15, 600, 'Viking Direct', 'CARD PAYMENT TO VIKING DIRECT {n}', 'office-equipment'],
  [1, -1, 'Payment', 'professional-services-accounting', 250, 3500, 'Moore Kingston Smith', 'FASTER PAYMENT TO MOORE KINGSTON SMITH {n}'],
  [0.5, -1, 'Payment', 'professional-services-legal', 300, 6000, 'Harbottle & Lewis', 'FASTER PAYMENT TO HARBOTTLE & LEWIS {n}'],
  [1, -1, 'Cash', 'cash-withdrawals', 20, 300, null, 'CASH WITHDRAWAL LINK ATM {n}'],
  [1, -1, 'Fee', 'bank-fees-account', 3, 60, null, 'SERVICE CHARGES REF {n}'],
  [0.5, -1, 'DirectDebit', 'taxes-vat', 1000, 20000, 'HMRC', 'DIRECT DEBIT HMRC VAT {n}'],
  [0.5, -1, 'DirectDebit', 'insurance', 50, 900, 'Hiscox', 'DIRECT DEBIT HISCOX INSURANCE {n}'],
]);

const CURRENT_USD = build([
  [10, 1, 'Credit', 'income-sales', 300, 12000, 'Stripe', 'STRIPE TRANSFER ST-{n}'],
  [10, 1, 'Credit', 'income-sales', 500, 20000, '{c}', 'ACH CREDIT {c} INV {n}'],
  [1, 1, 'Cheque', 'income-sales', 100, 4000, null, 'REMOTE ONLINE DEPOSIT {n}', 'cash-deposits'],
  [9, -1, 'Payment', 'suppliers-stock', 200, 10000, '{s}', 'ACH DEBIT {s} PO {n}', 'suppliers-services'],
  [2, -1, 'Payment', 'payroll-contractors', 500, 6000, 'Gusto', 'GUSTO CONTRACTOR PMT {n}'],
  [3, -1, 'DirectDebit', 'software-cloud', 50, 3000, 'Amazon Web Services', 'AMAZON WEB SERVICES AWS.AMAZON.CO {n}', 'software-saas'],
  [2, -1, 'DirectDebit', 'marketing-online-ads', 100, 5000, 'Google Ads', 'GOOGLE *ADS{n}'],
  [3, -1, 'Purchase', 'office-postage', 10, 800, 'FedEx', 'FEDEX {n} MEMPHIS TN'],
  [2, -1, 'Purchase', 'office-postage', 10, 600, 'UPS', 'UPS*{n} ATLANTA GA'],
  [1, -1, 'DirectDebit', 'rent-and-utilities-telecoms', 90, 400, 'Comcast Business', 'COMCAST BUSINESS {n}'],
  [1, -1, 'Fee', 'bank-fees-account', 15, 45, null, 'OUTGOING WIRE FEE {n}'],
]);

const CURRENT_EUR = build([
  [10, 1, 'Credit', 'income-sales', 300, 9000, 'Stripe', 'STRIPE PAYMENTS EUROPE LTD ST-{n}'],
  [10, 1, 'Credit', 'income-sales', 400, 15000, '{c}', 'SEPA CREDIT TRANSFER FROM {c} RE {n}'],
  [9, -1, 'Payment', 'suppliers-stock', 200, 9000, '{s}', 'SEPA CREDIT TRANSFER TO {s} PO {n}', 'suppliers-services'],
  [2, -1, 'DirectDebit', 'rent-and-utilities-telecoms', 40, 300, 'Vodafone', 'SEPA DIRECT DEBIT VODAFONE GMBH {n}'],
  [3, -1, 'Purchase', 'office-postage', 5, 300, 'DHL Paket', 'KARTENZAHLUNG DHL PAKET {n}'],
  [2, -1, 'Purchase', 'travel-rail', 20, 300, 'Deutsche Bahn', 'KARTENZAHLUNG DB VERTRIEB GMBH {n}'],
  [1, -1, 'Purchase', 'travel-air', 90, 1200, 'Lufthansa', 'KARTENZAHLUNG LUFTHANSA {n}'],
  [1, -1, 'Fee', 'bank-fees-account', 2, 40, null, 'KONTOFUEHRUNG ENTGELT {n}'],
]);

const CARD_GBP = build([
  [4, -1, 'Purchase', 'food-and-drink-coffee', 3, 35, 'Pret A Manger', 'PRET A MANGER {n} LONDON', 'food-and-drink-restaurants'],
  [3, -1, 'Purchase', 'food-and-drink-coffee', 2, 25, 'Costa Coffee', 'COSTA COFFEE {n}', 'food-and-drink-restaurants'],
  [3, -1, 'Purchase', 'food-and-drink-groceries', 5, 120, 'Tesco', 'TESCO STORES {n}'],
  [2, -1, 'Purchase', 'food-and-drink-restaurants', 25, 400, 'Dishoom', 'DISHOOM {n} LONDON', 'other-general'],
  [4, -1, 'Purchase', 'travel-taxi', 8, 90, 'Uber', 'UBER *TRIP {n}'],
  [3, -1, 'Purchase', 'travel-rail', 15, 350, 'Trainline', 'TRAINLINE.COM {n}'],
  [1, -1, 'Purchase', 'travel-air', 80, 1800, 'British Airways', 'BRITISH AIRWAYS {n}'],
  [2, -1, 'Purchase', 'travel-hotels', 60, 450, 'Premier Inn', 'PREMIER INN {n}'],
  [2, -1, 'Purchase', 'travel-fuel', 30, 120, 'Shell', 'SHELL {n}'],
  [4, -1, 'Purchase', 'office-supplies', 5, 600, 'Amazon', 'AMAZON.CO.UK*{n}', 'office-equipment'],
  [1, -1, 'Purchase', 'software-saas', 20, 90, 'Adobe', 'ADOBE *CREATIVE CLOUD {n}'],
  [1, -1, 'Purchase', 'software-saas', 7, 800, 'Slack', 'SLACK T0{n} DUBLIN'],
  [1, -1, 'Purchase', 'software-saas', 12, 300, 'Zoom', 'ZOOM.US {n}'],
  [1, -1, 'Fee', 'bank-fees-foreign-exchange', 0.5, 30, null, 'NON-STERLING TRANSACTION FEE {n}'],
  [0.5, 1, 'Credit', 'income-refunds', 5, 200, 'Amazon', 'AMAZON.CO.UK REFUND {n}'],
]);

const CARD_USD = build([
  [4, -1, 'Purchase', 'food-and-drink-coffee', 3, 30, 'Starbucks', 'STARBUCKS STORE {n}', 'food-and-drink-restaurants'],
  [3, -1, 'Purchase', 'travel-taxi', 8, 120, 'Uber', 'UBER *TRIP {n}'],
  [2, -1, 'Purchase', 'travel-taxi', 8, 100, 'Lyft', 'LYFT *RIDE {n}'],
  [1, -1, 'Purchase', 'travel-air', 120, 2200, 'Delta Air Lines', 'DELTA AIR LINES {n}'],
  [2, -1, 'Purchase', 'travel-hotels', 120, 600, 'Marriott', 'MARRIOTT {n}'],
  [2, -1, 'Purchase', 'food-and-drink-groceries', 10, 200, 'Whole Foods Market', 'WHOLEFDS {n}'],
  [2, -1, 'Purchase', 'office-supplies', 8, 500, 'Staples', 'STAPLES {n}', 'office-equipment'],
  [1, -1, 'Purchase', 'software-saas', 8, 400, 'Notion', 'NOTION LABS {n}'],
  [1, -1, 'Purchase', 'software-saas', 15, 450, 'Figma', 'FIGMA {n}'],
  [1, -1, 'Fee', 'bank-fees-card', 1, 25, null, 'CARD SERVICE FEE {n}'],
]);

const CARD_EUR = build([
  [3, -1, 'Purchase', 'travel-rail', 20, 250, 'SNCF', 'SNCF VOYAGEURS {n}'],
  [2, -1, 'Purchase', 'travel-air', 80, 900, 'Air France', 'AIR FRANCE {n}'],
  [2, -1, 'Purchase', 'travel-hotels', 80, 400, 'Accor Hotels', 'ACCOR HOTELS {n}'],
  [2, -1, 'Purchase', 'travel-taxi', 8, 70, 'Bolt', 'BOLT.EU {n}'],
  [2, -1, 'Purchase', 'food-and-drink-groceries', 5, 90, 'Carrefour', 'CARREFOUR {n}'],
  [3, -1, 'Purchase', 'food-and-drink-coffee', 2, 20, 'Café Nero', 'CAFFE NERO {n}', 'food-and-drink-restaurants'],
]);

const TEMPLATES: Record<string, readonly Template[]> = {
  'current:GBP': CURRENT_GBP,
  'current:USD': CURRENT_USD,
  'current:EUR': CURRENT_EUR,
  'card:GBP': CARD_GBP,
  'card:USD': CARD_USD,
  'card:EUR': CARD_EUR,
};

export function templatesFor(role: AccountRole, currency: Currency): readonly Template[] {
  return TEMPLATES[`${role}:${currency}`] ?? [];
}

/** Mean of a log-uniform draw on [min, max]. */
export function templateMean(t: Template): number {
  return t.max === t.min ? t.min : (t.max - t.min) / Math.log(t.max / t.min);
}

const COUNTERPARTIES: Record<Currency, { customers: string[]; suppliers: string[] }> = {
  GBP: {
    customers: [
      'Acme Retail Ltd',
      'Brightside Interiors',
      'Castle Foods Ltd',
      'Denholm Logistics',
      'Elm Street Dental',
      'Foxglove Events',
      'Greenway Builders',
      'Hollis & Reed',
      'Ivy Lane Studios',
      'Juniper Health',
      'Kingfisher Media',
      'Lowther Estates',
    ],
    suppliers: [
      'Northern Packaging Ltd',
      'Orchard Wholesale',
      'Pennine Print Co',
      'Quayside Freight',
      'Riverside Textiles',
      'Saxon Components',
      'Thames Office Supplies',
      'Union Coffee Roasters',
    ],
  },
  USD: {
    customers: [
      'Bluewater Holdings Inc',
      'Cedar Point Marketing',
      'Evergreen Clinics LLC',
      'Granite State Goods',
      'Hudson Valley Grocers',
      'Lakeshore Design Co',
      'Maple & Main LLC',
      'Redwood Analytics Inc',
    ],
    suppliers: ['Atlas Supply Co', 'Keystone Distributors', 'Pacific Paper Inc', 'Summit Electronics LLC', 'Prairie Logistics'],
  },
  EUR: {
    customers: [
      'Alpenblick GmbH',
      'Boulangerie Martin SARL',
      'Canal Huis B.V.',
      'Dublin Digital Ltd',
      'Elbe Handels GmbH',
      'Fiori Design S.r.l.',
      'Grafton Retail DAC',
    ],
    suppliers: ['Rheinland Verpackung GmbH', 'Van Dijk Groothandel B.V.', 'Lyon Textiles SAS', 'Nordsee Logistik GmbH'],
  },
};

export interface Counterparties {
  customers: string[];
  suppliers: string[];
  /** The same names in capitals, as statement text shows them. */
  customersUpper: string[];
  suppliersUpper: string[];
}

const PARTIES = Object.fromEntries(
  Object.entries(COUNTERPARTIES).map(([currency, { customers, suppliers }]) => [
    currency,
    { customers, suppliers, customersUpper: customers.map((c) => c.toUpperCase()), suppliersUpper: suppliers.map((s) => s.toUpperCase()) },
  ]),
) as Record<Currency, Counterparties>;

export function counterparties(currency: Currency): Counterparties {
  return PARTIES[currency];
}

/** A monthly payment on a fixed day (rent, payroll, taxes, utilities) of a currency's main account. */
export interface Recurring {
  currency: Currency;
  /** 0: every company; 1: from 1,000 invoices; 2: from 10,000. */
  tier: number;
  dayOfMonth: number;
  /** Share of the account's expected monthly income it costs. */
  share: number;
  code: TransactionCode;
  category: string;
  merchant: string | null;
  /** `{m}` is the month (e.g. `MAR 2024`). */
  description: string;
}

export const RECURRING: readonly Recurring[] = [
  {
    currency: 'GBP',
    tier: 0,
    dayOfMonth: 1,
    share: 0.08,
    code: 'StandingOrder',
    category: 'rent-and-utilities-rent',
    merchant: 'Fairview Property Management',
    description: 'STANDING ORDER FAIRVIEW PROPERTY RENT {m}',
  },
  {
    currency: 'GBP',
    tier: 0,
    dayOfMonth: 25,
    share: 0.34,
    code: 'Payment',
    category: 'payroll-salaries',
    merchant: null,
    description: 'BULK PAYMENT SALARIES {m}',
  },
  {
    currency: 'GBP',
    tier: 1,
    dayOfMonth: 22,
    share: 0.1,
    code: 'DirectDebit',
    category: 'taxes-payroll',
    merchant: 'HMRC',
    description: 'DIRECT DEBIT HMRC PAYE NIC {m}',
  },
  {
    currency: 'GBP',
    tier: 1,
    dayOfMonth: 27,
    share: 0.03,
    code: 'DirectDebit',
    category: 'payroll-pensions',
    merchant: 'NEST',
    description: 'DIRECT DEBIT NEST PENSIONS {m}',
  },
  {
    currency: 'GBP',
    tier: 2,
    dayOfMonth: 15,
    share: 0.006,
    code: 'DirectDebit',
    category: 'rent-and-utilities-energy',
    merchant: 'British Gas',
    description: 'DIRECT DEBIT BRITISH GAS BUSINESS {m}',
  },
  {
    currency: 'GBP',
    tier: 2,
    dayOfMonth: 18,
    share: 0.004,
    code: 'DirectDebit',
    category: 'rent-and-utilities-telecoms',
    merchant: 'BT Business',
    description: 'DIRECT DEBIT BT BUSINESS {m}',
  },
  {
    currency: 'GBP',
    tier: 2,
    dayOfMonth: 5,
    share: 0.002,
    code: 'DirectDebit',
    category: 'software-saas',
    merchant: 'Xero',
    description: 'DIRECT DEBIT XERO UK {m}',
  },
  {
    currency: 'USD',
    tier: 1,
    dayOfMonth: 1,
    share: 0.1,
    code: 'Payment',
    category: 'rent-and-utilities-rent',
    merchant: 'WeWork',
    description: 'WEWORK MEMBERSHIP {m}',
  },
  {
    currency: 'USD',
    tier: 1,
    dayOfMonth: 15,
    share: 0.32,
    code: 'Payment',
    category: 'payroll-salaries',
    merchant: 'Gusto',
    description: 'GUSTO PAYROLL {m}',
  },
  {
    currency: 'USD',
    tier: 2,
    dayOfMonth: 16,
    share: 0.09,
    code: 'Payment',
    category: 'taxes-payroll',
    merchant: 'IRS',
    description: 'IRS USATAXPYMT {m}',
  },
  {
    currency: 'EUR',
    tier: 1,
    dayOfMonth: 3,
    share: 0.1,
    code: 'StandingOrder',
    category: 'rent-and-utilities-rent',
    merchant: null,
    description: 'DAUERAUFTRAG MIETE BUERO {m}',
  },
  {
    currency: 'EUR',
    tier: 1,
    dayOfMonth: 28,
    share: 0.3,
    code: 'Payment',
    category: 'payroll-salaries',
    merchant: null,
    description: 'SAMMELUEBERWEISUNG GEHAELTER {m}',
  },
  {
    currency: 'EUR',
    tier: 2,
    dayOfMonth: 10,
    share: 0.09,
    code: 'Payment',
    category: 'taxes-payroll',
    merchant: 'Finanzamt',
    description: 'FINANZAMT LOHNSTEUER {m}',
  },
];
