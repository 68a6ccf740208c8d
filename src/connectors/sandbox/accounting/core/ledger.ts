import { CORE_ACCOUNTS, CORE_BANKS } from '../engine/chart.js';
import type { Ctx } from '../engine/context.js';
import { countAt } from '../engine/lifecycle.js';
import { loadBill } from './bill-state.js';
import { CashState, loadDirectCost, loadDirectIncome } from './cash-state.js';
import { loadTransfer } from './transfers.js';
import { DocState } from './doc-state.js';
import { loadInvoice } from './invoice-state.js';
import {
  P_BILL,
  P_BILL_PAYMENT_1,
  P_BILL_PAYMENT_2,
  P_DIRECT_COST,
  P_DIRECT_INCOME,
  P_INVOICE,
  P_PAYMENT_1,
  P_PAYMENT_2,
  P_SHOP_PAYOUT,
  P_TRANSFER,
  Postings,
  cashPostings,
  documentPostings,
  openingPostings,
  shopPostings,
} from './postings.js';
import { shopSales } from './shop-sales.js';

export const NA = CORE_ACCOUNTS.length;
export const NB = CORE_BANKS.length;
/** Cash-flow columns. */
export const CF_CUSTOMERS = 0;
export const CF_OTHER_RECEIPTS = 1;
export const CF_SUPPLIERS = 2;
export const CF_DIRECT = 3;

const IS_PL = Uint8Array.from(CORE_ACCOUNTS, (a) => (a.type === 'Income' || a.type === 'Expense' ? 1 : 0));
const BANK_OF_ACCOUNT = Int8Array.from(CORE_ACCOUNTS, (_, a) => CORE_BANKS.findIndex((b) => b[1] === a));

/**
 * Every posting of the company at one epoch, summed per account and month, plus bank balances, monthly cash
 * flows and, for change tracking, the latest epoch at which anything behind each figure appeared or went.
 * One pass over all documents (O(records) time, O(accounts x months) memory), cached per company and epoch.
 */
export interface Ledger {
  epoch: number;
  months: number;
  /** Base-currency movement (cents, debit positive) of account a in month m at `movement[m * NA + a]`. */
  movement: Float64Array;
  /** Balance of each bank account in its own currency (cents). */
  bankNative: Float64Array;
  accountLast: Int32Array;
  bankLast: Int32Array;
  /** Latest change epoch behind the month's profit and loss, balance sheet (cumulative) and cash flow. */
  plLast: Int32Array;
  bsLast: Int32Array;
  cfLast: Int32Array;
  /** Cash flows in base cents (positive) at `cash[m * 4 + CF_*]`. */
  cash: Float64Array;
}

const cache = new WeakMap<Ctx, Map<number, Ledger>>();

export function ledgerOf(ctx: Ctx, epoch: number): Ledger {
  let byEpoch = cache.get(ctx);
  if (!byEpoch) cache.set(ctx, (byEpoch = new Map()));
  let ledger = byEpoch.get(epoch);
  if (!ledger) {
    ledger = compute(ctx, epoch);
    if (byEpoch.size >= 8) byEpoch.delete(byEpoch.keys().next().value as number);
    byEpoch.set(epoch, ledger);
  }
  return ledger;
}

function compute(ctx: Ctx, epoch: number): Ledger {
  const months = ctx.cal.months;
  const L: Ledger = {
    epoch,
    months,
    movement: new Float64Array(months * NA),
    bankNative: new Float64Array(NB),
    accountLast: new Int32Array(NA),
    bankLast: new Int32Array(NB),
    plLast: new Int32Array(months),
    bsLast: new Int32Array(months),
    cfLast: new Int32Array(months),
    cash: new Float64Array(months * 4),
  };
  const p = new Postings();
  openingPostings(ctx, p);
  apply(ctx, L, p);

  const doc = new DocState();
  const invoices = countAt(ctx.lc.invoices, epoch);
  for (let i = 0; i < invoices; i++) {
    loadInvoice(ctx, i, epoch, doc);
    for (let code = P_INVOICE; code <= P_PAYMENT_2; code++) if (documentPostings(doc, code, p)) apply(ctx, L, p);
  }
  const bills = countAt(ctx.lc.bills, epoch);
  for (let j = 0; j < bills; j++) {
    loadBill(ctx, j, epoch, doc);
    for (let code = P_BILL; code <= P_BILL_PAYMENT_2; code++) if (documentPostings(doc, code, p)) apply(ctx, L, p);
  }
  const cash = new CashState();
  const sources: [number, (c: Ctx, j: number, e: number, s: CashState) => boolean, number][] = [
    [countAt(ctx.lc.directCosts, epoch), loadDirectCost, P_DIRECT_COST],
    [countAt(ctx.lc.directIncomes, epoch), loadDirectIncome, P_DIRECT_INCOME],
    [countAt(ctx.lc.transfers, epoch), loadTransfer, P_TRANSFER],
  ];
  for (const [count, load, code] of sources) {
    for (let j = 0; j < count; j++) {
      load(ctx, j, epoch, cash);
      cashPostings(cash, code, p);
      apply(ctx, L, p);
    }
  }
  for (const sale of shopSales(ctx)) {
    shopPostings(sale, p);
    apply(ctx, L, p);
  }
  for (let m = 1; m < months; m++) if (L.bsLast[m - 1] > L.bsLast[m]) L.bsLast[m] = L.bsLast[m - 1];
  return L;
}

function cashColumn(code: number): number {
  switch (code) {
    case P_PAYMENT_1:
    case P_PAYMENT_2:
      return CF_CUSTOMERS;
    case P_DIRECT_INCOME:
    case P_SHOP_PAYOUT:
      return CF_OTHER_RECEIPTS;
    case P_BILL_PAYMENT_1:
    case P_BILL_PAYMENT_2:
      return CF_SUPPLIERS;
    case P_DIRECT_COST:
      return CF_DIRECT;
    default:
      return -1;
  }
}

function apply(ctx: Ctx, L: Ledger, p: Postings): void {
  const e = L.epoch;
  const m = ctx.cal.month(p.day);
  const live = p.from <= e && e < p.to;
  let event = p.from > 0 && p.from <= e ? p.from : 0;
  if (p.to <= e && p.to > event) event = p.to;
  const column = cashColumn(p.code);
  for (let k = 0; k < p.n; k++) {
    const a = p.acct[k];
    const b = BANK_OF_ACCOUNT[a];
    if (live) {
      L.movement[m * NA + a] += p.base[k];
      if (b >= 0) {
        L.bankNative[b] += p.native[k];
        if (column >= 0) L.cash[m * 4 + column] += Math.abs(p.base[k]);
      }
    }
    if (event > 0) {
      if (event > L.accountLast[a]) L.accountLast[a] = event;
      if (b >= 0 && event > L.bankLast[b]) L.bankLast[b] = event;
      if (IS_PL[a] && event > L.plLast[m]) L.plLast[m] = event;
      if (b >= 0 && column >= 0 && event > L.cfLast[m]) L.cfLast[m] = event;
    }
  }
  if (event > L.bsLast[m]) L.bsLast[m] = event;
}
