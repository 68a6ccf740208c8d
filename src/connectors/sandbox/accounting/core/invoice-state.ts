import { EUR, GBP, T } from '../engine/chart.js';
import { type Ctx, rateOf } from '../engine/context.js';
import { INV30, Rng, r3 } from '../engine/hash.js';
import { INVENTORY, SERVICE, asInvoiceItem, itemKind, itemTable } from '../engine/items.js';
import { currencyOf, partyBits, pickParty, termsOf } from '../engine/parties.js';
import { type DocState, dayOfIndex, identify, settle, totals } from './doc-state.js';

export const TAX_PERCENT = [20, 5, 0, 0, 0, 0, 0] as const;
/** Department tracking categories. */
export const DEPT_SALES = 1;
export const DEPT_OPERATIONS = 2;
export const DEPT_MARKETING = 3;
export const DEPT_ADMIN = 4;

const rng = new Rng();

/**
 * Loads invoice `i` as it is at `epoch` into `s`. Returns false when it does not exist yet. A deleted invoice
 * loads as it was just before deletion (`s.deleted <= epoch` tells the caller it is gone).
 */
export function loadInvoice(ctx: Ctx, i: number, epoch: number, s: DocState): boolean {
  const lc = ctx.lc.invoices;
  if (!identify(ctx, lc, i, epoch, s)) return false;
  const hs = ctx.hs;
  const customers = ctx.lc.customers;
  rng.seed(hs, lc.hk, i);
  s.day = dayOfIndex(ctx, lc, i, 0);
  s.party = pickParty(hs, customers, s.created, rng);
  const bits = partyBits(hs, customers.hk, s.party);
  s.cur = currencyOf(bits, true);
  s.dueDay = s.day + termsOf(bits);
  s.rate = rateOf(ctx, s.cur, s.day);

  const items = itemTable(ctx);
  const nu = rng.next() * INV30;
  s.n = nu < 0.45 ? 1 : nu < 0.75 ? 2 : nu < 0.92 ? 3 : 4;
  for (let l = 0; l < s.n; l++) {
    const k = asInvoiceItem(rng.below(items.count));
    const kind = itemKind(k);
    const q = rng.next() * INV30;
    const qty = kind === INVENTORY ? 1 + Math.floor(q * q * 40) : 1 + Math.floor(q * 16);
    const unit = s.rate === 1 ? items.price[k] : Math.round(items.price[k] / s.rate);
    const d = rng.next() * INV30;
    const pct = d < 0.06 ? 5 : d < 0.12 ? 10 : 0;
    const gross = qty * unit;
    const disc = pct === 0 ? 0 : Math.round((gross * pct) / 100);
    const sub = gross - disc;
    const t = rng.next() * INV30;
    let tr: number;
    if (s.cur === GBP) tr = t < 0.91 ? T.Standard : t < 0.97 ? T.Reduced : T.Zero;
    else if (s.cur === EUR) tr = kind === SERVICE ? T.ExportServices : T.EcGoods;
    else tr = kind === SERVICE ? T.ExportServices : T.Zero;
    s.item[l] = k;
    s.qty[l] = qty;
    s.unit[l] = unit;
    s.discPct[l] = pct;
    s.disc[l] = disc;
    s.sub[l] = sub;
    s.taxRate[l] = tr;
    s.tax[l] = Math.round((sub * TAX_PERCENT[tr]) / 100);
    s.acct[l] = items.salesAccount[k];
    s.dept[l] = kind === SERVICE ? DEPT_OPERATIONS : DEPT_SALES;
  }
  totals(s);
  settle(ctx, lc, s, epoch, rng, 0.06, true);
  return true;
}

/** Does invoice `i` come from a sales order? (About a quarter do.) */
export function hasSalesOrder(ctx: Ctx, i: number): boolean {
  return r3(ctx.hs, ctx.lc.invoices.hk ^ 0x50, i) * INV30 < 0.25;
}
