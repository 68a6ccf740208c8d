import { LRUCache } from 'lru-cache';
import type { ConnectionSettings } from '../../generated-source.js';
import { keyOf } from '../../random.js';
import { Calendar, dayOf, monthStartAfter } from './calendar.js';
import { CORE_ACCOUNTS, CORE_BANKS, CORE_JOURNALS, CORE_PAYMENT_METHODS, CORE_TAX_RATES, CORE_TRACKING } from './chart.js';
import { guid as guidOf, r3, seedKey, u4 } from './hash.js';
import { type Lifecycle, lifecycle, onePercent } from './lifecycle.js';

/** Months of data (and of monthly reports) up to and including the month of `asOf`. */
export const MONTHS = 48;

/** Keys of the data types in hashes and ids (`keyOf(dataType)`). */
export const K = {
  accountTransactions: keyOf('accountTransactions'),
  bankAccounts: keyOf('bankAccounts'),
  bankTransactions: keyOf('bankTransactions'),
  billCreditNotes: keyOf('billCreditNotes'),
  billPayments: keyOf('billPayments'),
  bills: keyOf('bills'),
  chartOfAccounts: keyOf('chartOfAccounts'),
  company: keyOf('company'),
  creditNotes: keyOf('creditNotes'),
  customers: keyOf('customers'),
  directCosts: keyOf('directCosts'),
  directIncomes: keyOf('directIncomes'),
  invoices: keyOf('invoices'),
  itemReceipts: keyOf('itemReceipts'),
  items: keyOf('items'),
  journalEntries: keyOf('journalEntries'),
  journals: keyOf('journals'),
  paymentMethods: keyOf('paymentMethods'),
  payments: keyOf('payments'),
  purchaseOrders: keyOf('purchaseOrders'),
  salesOrders: keyOf('salesOrders'),
  suppliers: keyOf('suppliers'),
  taxRates: keyOf('taxRates'),
  trackingCategories: keyOf('trackingCategories'),
  transfers: keyOf('transfers'),
} as const;

export interface Ref {
  id: string;
  name: string;
}

/** Everything about a Sandbox company that does not depend on a record index: sizes, calendar, reference tables. */
export interface Ctx {
  /** The connection's seed, as in ids (`guid(seed, K.x, index)`). */
  seed: number;
  /** The seed as a 30-bit integer, for hashing (`r4(hs, lc.hk, index, salt)`). */
  hs: number;
  invoices: number;
  asOf: string;
  asOfDay: number;
  /** First day of data (first day of the first report month). */
  startDay: number;
  cal: Calendar;
  /** Currency rate (foreign units to base) per currency and report month: `rates[cur * (months + 1) + m]`. */
  rates: Float64Array;
  /** Expected monthly sales in pounds (sizes the opening balances). */
  monthlySales: number;
  /** First month of the financial year (0 = January). */
  fyStartMonth: number;
  lc: {
    invoices: Lifecycle;
    bills: Lifecycle;
    customers: Lifecycle;
    suppliers: Lifecycle;
    items: Lifecycle;
    directCosts: Lifecycle;
    directIncomes: Lifecycle;
    transfers: Lifecycle;
    accounts: Lifecycle;
    taxRates: Lifecycle;
    trackingCategories: Lifecycle;
    paymentMethods: Lifecycle;
    journals: Lifecycle;
    bankAccounts: Lifecycle;
    company: Lifecycle;
    /** Cosmetic changes of records whose existence follows a parent (payments, credit notes, ...). */
    payments: Lifecycle;
    creditNotes: Lifecycle;
    salesOrders: Lifecycle;
    billPayments: Lifecycle;
    billCreditNotes: Lifecycle;
    purchaseOrders: Lifecycle;
    itemReceipts: Lifecycle;
  };
  accountRefs: Ref[];
  bankRefs: Ref[];
  taxRefs: { id: string; name: string; effectiveTaxRate: number }[];
  trackingRefs: Ref[];
  paymentMethodRefs: Ref[];
  journalRefs: Ref[];
}

/**
 * Built contexts, reused by every page of a sync. A context's memory grows with its invoice count, which the
 * client chooses (up to 5,000,000), so the cache is bounded by entries and by invoices held: room for one context
 * of the largest size, or many small ones, least recently used first.
 */
const cache = new LRUCache<string, Ctx>({ max: 16, maxSize: 6_000_000, sizeCalculation: (ctx) => ctx.invoices + 1_000 });

export function contextOf(settings: ConnectionSettings): Ctx {
  const key = `${settings.seed}|${settings.invoices}|${settings.asOf}`;
  let ctx = cache.get(key);
  if (!ctx) {
    ctx = build(settings);
    cache.set(key, ctx);
  }
  return ctx;
}

function build(settings: ConnectionSettings): Ctx {
  const seed = settings.seed | 0;
  const n = Math.max(1, Math.floor(settings.invoices));
  if (!/^\d{4}-\d{2}-\d{2}$/.test(settings.asOf) || Number.isNaN(Date.parse(settings.asOf))) {
    throw new Error(`Sandbox asOf must be a YYYY-MM-DD date, got '${settings.asOf}'`);
  }
  const asOfDay = dayOf(settings.asOf);
  const startDay = monthStartAfter(asOfDay, -(MONTHS - 1));
  const cal = new Calendar(startDay, asOfDay, 400);
  const months = cal.months;

  const customers = clamp(Math.round(n / 20), 20, 50_000);
  const suppliers = clamp(Math.round(n / 40), 10, 25_000);
  const bills = Math.max(1, Math.round(n / 2));
  const items = clamp(Math.round(2 * Math.sqrt(n)), 12, 2_000);
  const directCosts = Math.max(24, Math.round(n / 10));
  const directIncomes = Math.max(12, Math.round(n / 40));
  // Four transfer slots a month (see core/cash-state.ts), repeated for large companies: about n / 200.
  const transfers = 4 * months * Math.max(1, Math.round(n / 200 / (4 * months)));
  const core = (key: number, base: number) => lifecycle(key, base, 1, 0.02, 0.05);
  const derived = (key: number) => lifecycle(key, 0, 1, 0.02, 0);

  const hs = seedKey(seed);
  const rates = new Float64Array(3 * (months + 1));
  const phase = u4(hs, 0x7a7e, 0, 0) * 6.283;
  for (let m = 0; m <= months; m++) {
    rates[m] = 1;
    rates[months + 1 + m] = round6(0.79 * (1 + 0.045 * Math.sin(m / 5 + phase) + 0.012 * (u4(hs, 0x7a7e, 1, m) - 0.5)));
    rates[2 * (months + 1) + m] = round6(0.86 * (1 + 0.03 * Math.sin(m / 7 + phase * 1.3) + 0.01 * (u4(hs, 0x7a7e, 2, m) - 0.5)));
  }

  const refs = (typeKey: number, names: readonly string[]): Ref[] => names.map((name, i) => ({ id: guidOf(seed, typeKey, i), name }));

  return {
    seed,
    hs,
    invoices: n,
    asOf: settings.asOf,
    asOfDay,
    startDay,
    cal,
    rates,
    monthlySales: Math.max(8_000, (n / months) * 3_400),
    fyStartMonth: r3(hs, 0xf1, 0) % 2 === 0 ? 0 : 3,
    lc: {
      invoices: lifecycle(K.invoices, n, onePercent(n), 0.02, 0.005),
      bills: lifecycle(K.bills, bills, onePercent(bills), 0.02, 0.005),
      // Only prospects (15 %, never invoiced) can be deleted: 0.005 / 0.15 gives about 0.5 % overall.
      customers: lifecycle(K.customers, customers, onePercent(customers), 0.02, 0.005 / 0.15),
      suppliers: lifecycle(K.suppliers, suppliers, onePercent(suppliers), 0.02, 0.005 / 0.15),
      items: lifecycle(K.items, items, onePercent(items), 0.02, 0.05),
      directCosts: lifecycle(K.directCosts, directCosts, onePercent(directCosts), 0.02, 0.005),
      directIncomes: lifecycle(K.directIncomes, directIncomes, onePercent(directIncomes), 0.02, 0.005),
      transfers: lifecycle(K.transfers, transfers, onePercent(transfers), 0.02, 0.005),
      accounts: core(K.chartOfAccounts, CORE_ACCOUNTS.length),
      taxRates: core(K.taxRates, CORE_TAX_RATES.length),
      trackingCategories: core(K.trackingCategories, CORE_TRACKING.length),
      paymentMethods: core(K.paymentMethods, CORE_PAYMENT_METHODS.length),
      journals: core(K.journals, CORE_JOURNALS.length),
      bankAccounts: core(K.bankAccounts, CORE_BANKS.length),
      company: lifecycle(K.company, 1, 0, 0.02, 0),
      payments: derived(K.payments),
      creditNotes: derived(K.creditNotes),
      salesOrders: derived(K.salesOrders),
      billPayments: derived(K.billPayments),
      billCreditNotes: derived(K.billCreditNotes),
      purchaseOrders: derived(K.purchaseOrders),
      itemReceipts: derived(K.itemReceipts),
    },
    accountRefs: refs(
      K.chartOfAccounts,
      CORE_ACCOUNTS.map((a) => a.name),
    ),
    bankRefs: refs(
      K.bankAccounts,
      CORE_BANKS.map((b) => b[0]),
    ),
    taxRefs: CORE_TAX_RATES.map(([name, , rate], i) => ({ id: guidOf(seed, K.taxRates, i), name, effectiveTaxRate: rate })),
    trackingRefs: refs(
      K.trackingCategories,
      CORE_TRACKING.map((t) => t[0]),
    ),
    paymentMethodRefs: refs(
      K.paymentMethods,
      CORE_PAYMENT_METHODS.map((p) => p[0]),
    ),
    journalRefs: refs(
      K.journals,
      CORE_JOURNALS.map((j) => j[0]),
    ),
  };
}

export function rateOf(ctx: Ctx, currency: number, day: number): number {
  const months = ctx.cal.months;
  let m = ctx.cal.month(day);
  if (m < 0) m = 0;
  if (m > months) m = months;
  return ctx.rates[currency * (months + 1) + m];
}

/** Amount in cents converted to base-currency cents. */
export function toBase(cents: number, rate: number): number {
  return rate === 1 ? cents : Math.round(cents * rate);
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

function round6(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}

/** Cents to a JSON amount. */
export function money(cents: number): number {
  return cents / 100;
}
