import { B, EUR, USD } from '../engine/chart.js';
import type { Ctx } from '../engine/context.js';
import { loadBill } from './bill-state.js';
import { CashState, loadDirectCost, loadDirectIncome } from './cash-state.js';
import { DocState, NEVER } from './doc-state.js';
import { loadInvoice } from './invoice-state.js';
import { shopSales } from './shop-sales.js';

/** Monthly flow columns: GBP through the current account (base cents), USD and EUR (their cents), card spend. */
export const F_GBP = 0;
export const F_USD = 1;
export const F_EUR = 2;
export const F_CARD = 3;
const COLUMNS = 4;

/**
 * Net money each month through the current, USD and EUR accounts and on the card, from the documents as at
 * epoch 0 (so transfers sized from it never change with later epochs). Transfers of month m move what
 * month m - 1 left behind: the bank accounts stay in shape without reading a balance. One pass over the
 * documents, O(months) memory, kept on the context.
 */
export function monthlyFlows(ctx: Ctx): Float64Array {
  const cached = (ctx as { flows?: Float64Array }).flows;
  if (cached) return cached;
  const flows = new Float64Array(ctx.cal.months * COLUMNS);
  const add = (day: number, column: number, cents: number) => {
    const m = ctx.cal.month(day);
    if (m >= 0 && m < ctx.cal.months) flows[m * COLUMNS + column] += cents;
  };
  const column = (cur: number) => (cur === USD ? F_USD : cur === EUR ? F_EUR : F_GBP);
  const doc = new DocState();
  for (let pass = 0; pass < 2; pass++) {
    const sales = pass === 0;
    const count = sales ? ctx.lc.invoices.base : ctx.lc.bills.base;
    for (let i = 0; i < count; i++) {
      if (sales) loadInvoice(ctx, i, 0, doc);
      else loadBill(ctx, i, 0, doc);
      const sign = sales ? 1 : -1;
      if (doc.p1Epoch !== NEVER) add(doc.p1Day, column(doc.cur), sign * doc.p1);
      if (doc.p2Epoch !== NEVER) add(doc.p2Day, column(doc.cur), sign * doc.p2);
    }
  }
  const cash = new CashState();
  for (let j = 0; j < ctx.lc.directCosts.base; j++) {
    loadDirectCost(ctx, j, 0, cash);
    add(cash.day, cash.bank === B.Card ? F_CARD : F_GBP, cash.bank === B.Card ? cash.total : -cash.total);
  }
  for (let j = 0; j < ctx.lc.directIncomes.base; j++) {
    loadDirectIncome(ctx, j, 0, cash);
    if (cash.bank === B.Current) add(cash.day, F_GBP, cash.total);
  }
  // What the shop paid in (fixed at epoch 0 too), into the current account of its currency.
  for (const sale of shopSales(ctx)) add(sale.day, column(sale.currency), sale.amount);
  (ctx as { flows?: Float64Array }).flows = flows;
  return flows;
}

export function flowOf(flows: Float64Array, month: number, column: number): number {
  return flows[month * COLUMNS + column];
}
