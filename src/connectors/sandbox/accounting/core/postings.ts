import { A, CORE_BANKS, GBP, J, USD, EUR } from '../engine/chart.js';
import { type Ctx, rateOf, toBase } from '../engine/context.js';
import { CN_NONE, type DocState, NEVER } from './doc-state.js';
import type { CashState } from './cash-state.js';
import type { ShopSale } from './shop-sales.js';

/**
 * Double-entry postings of every source record, in base-currency cents (debit positive), with the amount in
 * the transaction currency alongside. Journal entries, account balances, bank balances and the three reports
 * are all read from these, so they agree by construction. A posting set is live at epochs [from, to).
 */

/** What a posting set comes from; also the last part of a journal entry's index (`source * 16 + code`). */
export const P_INVOICE = 0;
export const P_CREDIT_NOTE = 1;
export const P_PAYMENT_1 = 2;
export const P_PAYMENT_2 = 3;
export const P_BILL = 4;
export const P_BILL_CREDIT_NOTE = 5;
export const P_BILL_PAYMENT_1 = 6;
export const P_BILL_PAYMENT_2 = 7;
export const P_DIRECT_COST = 8;
export const P_DIRECT_INCOME = 9;
export const P_TRANSFER = 10;
export const P_OPENING = 11;
export const P_SHOP_PAYOUT = 12;
export const P_CODES = 16;

export const MAX_POSTING_LINES = 8;

export class Postings {
  code = 0;
  /** Index of the source record (invoice, bill, direct cost, ...). */
  source = 0;
  day = 0;
  from = 0;
  to = NEVER;
  /** Transaction currency and rate. */
  cur = GBP;
  rate = 1;
  /** Customer (sales side) or supplier index, or -1. */
  party = -1;
  partyIsSupplier = false;
  journal = 0;
  n = 0;
  readonly acct = new Int8Array(MAX_POSTING_LINES);
  readonly base = new Float64Array(MAX_POSTING_LINES);
  readonly native = new Float64Array(MAX_POSTING_LINES);
  /** Document line the posting comes from, or -1 (control accounts, tax). */
  readonly line = new Int8Array(MAX_POSTING_LINES);

  add(acct: number, base: number, native: number, line = -1): void {
    const k = this.n++;
    this.acct[k] = acct;
    this.base[k] = base;
    this.native[k] = native;
    this.line[k] = line;
  }
}

export function bankLedgerAccount(bank: number): number {
  return CORE_BANKS[bank][1];
}

function start(
  p: Postings,
  code: number,
  source: number,
  day: number,
  from: number,
  to: number,
  cur: number,
  rate: number,
  journal: number,
): void {
  p.code = code;
  p.source = source;
  p.day = day;
  p.from = from;
  p.to = to;
  p.cur = cur;
  p.rate = rate;
  p.journal = journal;
  p.party = -1;
  p.partyIsSupplier = false;
  p.n = 0;
}

/**
 * Postings of part `code` of an invoice (P_INVOICE, P_CREDIT_NOTE, P_PAYMENT_1, P_PAYMENT_2) or a bill
 * (P_BILL ... P_BILL_PAYMENT_2) in state `s`. Returns false when the part does not exist.
 */
export function documentPostings(s: DocState, code: number, p: Postings): boolean {
  const sales = code < P_BILL;
  const part = sales ? code : code - P_BILL;
  const control = sales ? A.Receivable : A.Payable;
  const sign = sales ? 1 : -1;
  if (part === 0) {
    if (s.postEpoch === NEVER) return false;
    start(p, code, s.index, s.day, s.postEpoch, s.endEpoch, s.cur, s.rate, sales ? J.Sales : J.Purchases);
    p.add(control, sign * s.baseTotal, sign * s.total);
    let taxBase = 0,
      tax = 0;
    for (let l = 0; l < s.n; l++) {
      p.add(s.acct[l], -sign * s.subBase[l], -sign * s.sub[l], l);
      taxBase += s.taxBase[l];
      tax += s.tax[l];
    }
    if (tax !== 0) p.add(A.Vat, -sign * taxBase, -sign * tax);
  } else if (part === 1) {
    if (s.cnKind === CN_NONE) return false;
    start(p, code, s.index, s.cnDay, s.cnEpoch, s.deleted, s.cur, s.rate, sales ? J.Sales : J.Purchases);
    const subBase = toBase(s.cnSub, s.rate);
    const taxBase = toBase(s.cnTax, s.rate);
    p.add(sales ? A.SalesReturns : s.acct[0], sign * subBase, sign * s.cnSub, 0);
    if (s.cnTax !== 0) p.add(A.Vat, sign * taxBase, sign * s.cnTax);
    p.add(control, -sign * (subBase + taxBase), -sign * (s.cnSub + s.cnTax));
  } else {
    const second = part === 3;
    const epoch = second ? s.p2Epoch : s.p1Epoch;
    if (epoch === NEVER) return false;
    const amount = second ? s.p2 : s.p1;
    start(p, code, s.index, second ? s.p2Day : s.p1Day, epoch, s.deleted, s.cur, s.rate, sales ? J.Receipts : J.Payments);
    const base = toBase(amount, s.rate);
    const bank = bankLedgerAccount(bankOfCurrency(s.cur));
    p.add(bank, sign * base, sign * amount);
    p.add(control, -sign * base, -sign * amount);
  }
  p.party = s.party;
  p.partyIsSupplier = !sales;
  return true;
}

export function bankOfCurrency(cur: number): number {
  return cur === USD ? 2 : cur === EUR ? 3 : 0;
}

/** Postings of a direct cost (P_DIRECT_COST), direct income (P_DIRECT_INCOME) or transfer (P_TRANSFER). */
export function cashPostings(s: CashState, code: number, p: Postings): void {
  start(
    p,
    code,
    s.index,
    s.day,
    s.created,
    s.deleted,
    GBP,
    1,
    code === P_TRANSFER ? J.Bank : code === P_DIRECT_COST ? J.Payments : J.Receipts,
  );
  if (code === P_TRANSFER) {
    // The receiving side is in GBP or the same currency, so its amount is the base amount of the transfer.
    p.cur = CORE_BANKS[s.bank][2];
    p.rate = s.rate;
    p.add(bankLedgerAccount(s.toBank), s.toTotal, s.toTotal);
    p.add(bankLedgerAccount(s.bank), -s.toTotal, -s.total);
    return;
  }
  const sign = code === P_DIRECT_COST ? 1 : -1;
  p.add(s.acct, sign * s.sub, sign * s.sub, 0);
  if (s.tax !== 0) p.add(A.Vat, sign * s.tax, sign * s.tax);
  p.add(bankLedgerAccount(s.bank), -sign * s.total, -sign * s.total);
  p.party = s.party;
  p.partyIsSupplier = code === P_DIRECT_COST;
}

/**
 * Postings of a shop payout (P_SHOP_PAYOUT): the bank of its currency by what was paid out and bank charges by the
 * processor's fees, against product sales (the takings less their tax) and the tax. Each figure is converted to pounds
 * once; tax, a balance sheet figure, takes what rounding leaves, so the set balances while sales, charges and the bank
 * are each their own amount converted.
 */
export function shopPostings(s: ShopSale, p: Postings): void {
  start(p, P_SHOP_PAYOUT, s.source, s.day, 0, NEVER, s.currency, s.currency === GBP ? 1 : s.rate, J.Receipts);
  const bank = toBase(s.amount, p.rate);
  const fees = toBase(s.fees, p.rate);
  const sales = toBase(s.takings - s.tax, p.rate);
  p.add(bankLedgerAccount(bankOfCurrency(s.currency)), bank, s.amount);
  if (s.fees !== 0) p.add(A.BankCharges, fees, s.fees, 1);
  p.add(A.SalesProducts, -sales, s.tax - s.takings, 0);
  if (s.tax !== 0 || bank + fees !== sales) p.add(A.Vat, sales - bank - fees, -s.tax);
}

/** The opening balances journal on the first day of data. */
export function openingPostings(ctx: Ctx, p: Postings): void {
  start(p, P_OPENING, 0, ctx.startDay, 0, NEVER, GBP, 1, J.General);
  const m = ctx.monthlySales;
  const pounds = (v: number) => Math.round(v) * 100;
  const usdRate = rateOf(ctx, USD, ctx.startDay);
  const eurRate = rateOf(ctx, EUR, ctx.startDay);
  const current = pounds(m * 1.2);
  const savings = pounds(m * 0.5);
  const usd = pounds((m * 0.25) / usdRate);
  const eur = pounds((m * 0.2) / eurRate);
  const equipment = pounds(m * 0.8);
  const share = pounds(Math.max(1_000, m * 0.3));
  const loan = pounds(m * 0.6);
  p.add(A.Current, current, current);
  p.add(A.Savings, savings, savings);
  p.add(A.UsdCurrent, toBase(usd, usdRate), usd);
  p.add(A.EurCurrent, toBase(eur, eurRate), eur);
  p.add(A.Equipment, equipment, equipment);
  p.add(A.ShareCapital, -share, -share);
  p.add(A.Loan, -loan, -loan);
  let rest = 0;
  for (let k = 0; k < p.n; k++) rest += p.base[k];
  p.add(A.RetainedEarnings, -rest, -rest);
}
