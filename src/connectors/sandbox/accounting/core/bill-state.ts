import { A, GBP, T } from '../engine/chart.js';
import { type Ctx, rateOf } from '../engine/context.js';
import { INV30, Rng, r3 } from '../engine/hash.js';
import { asBillItem, itemTable } from '../engine/items.js';
import { currencyOf, partyBits, pickParty, termsOf } from '../engine/parties.js';
import { type DocState, dayOfIndex, identify, settle, totals } from './doc-state.js';
import { DEPT_ADMIN, DEPT_MARKETING, DEPT_OPERATIONS, TAX_PERCENT } from './invoice-state.js';

/** Overheads billed by suppliers: [account, min pounds, max pounds, department, weight]. */
const OVERHEADS: readonly (readonly [number, number, number, number, number])[] = [
  [A.Rent, 1_500, 6_000, DEPT_ADMIN, 6],
  [A.Utilities, 80, 600, DEPT_ADMIN, 8],
  [A.Software, 20, 800, DEPT_ADMIN, 12],
  [A.ProfessionalFees, 300, 4_000, DEPT_ADMIN, 6],
  [A.Marketing, 200, 5_000, DEPT_MARKETING, 8],
  [A.Travel, 50, 1_200, DEPT_OPERATIONS, 8],
  [A.Insurance, 200, 2_000, DEPT_ADMIN, 3],
  [A.Telephone, 40, 300, DEPT_ADMIN, 6],
  [A.Repairs, 80, 1_500, DEPT_OPERATIONS, 5],
];
const OVERHEAD_PICK: number[] = OVERHEADS.flatMap((o, i) => Array<number>(o[4]).fill(i));
const rng = new Rng();

/** Loads bill `j` as it is at `epoch` (see `loadInvoice`); goods lines have an item, others none (item -1). */
export function loadBill(ctx: Ctx, j: number, epoch: number, s: DocState): boolean {
  const lc = ctx.lc.bills;
  if (!identify(ctx, lc, j, epoch, s)) return false;
  const hs = ctx.hs;
  const suppliers = ctx.lc.suppliers;
  rng.seed(hs, lc.hk, j);
  s.day = dayOfIndex(ctx, lc, j, 0);
  s.party = pickParty(hs, suppliers, s.created, rng);
  const bits = partyBits(hs, suppliers.hk, s.party);
  s.cur = currencyOf(bits, false);
  s.dueDay = s.day + termsOf(bits);
  s.rate = rateOf(ctx, s.cur, s.day);

  const items = itemTable(ctx);
  const nu = rng.next() * INV30;
  s.n = nu < 0.55 ? 1 : nu < 0.85 ? 2 : 3;
  for (let l = 0; l < s.n; l++) {
    const u = rng.next() * INV30;
    const q = rng.next() * INV30;
    let qty = 1,
      unit: number,
      acct: number,
      dept = DEPT_OPERATIONS,
      item = -1;
    let tr: number = s.cur === GBP ? T.Standard : T.NoVat;
    if (u < 0.5) {
      item = asBillItem(Math.floor((u / 0.5) * items.count));
      qty = 1 + Math.floor(q * q * 120);
      unit = s.rate === 1 ? items.cost[item] : Math.round(items.cost[item] / s.rate);
      acct = A.Cogs;
    } else if (u < 0.6) {
      unit = pounds(500, 6_000, q, s.rate);
      acct = A.Subcontractors;
    } else if (u < 0.65) {
      unit = pounds(30, 800, q, s.rate);
      acct = A.Freight;
    } else {
      const o = OVERHEADS[OVERHEAD_PICK[Math.floor(((u - 0.65) / 0.35) * OVERHEAD_PICK.length)]];
      unit = pounds(o[1], o[2], q, s.rate);
      acct = o[0];
      dept = o[3];
      if (acct === A.Insurance && s.cur === GBP) tr = T.Exempt;
    }
    s.item[l] = item;
    s.qty[l] = qty;
    s.unit[l] = unit;
    s.discPct[l] = 0;
    s.disc[l] = 0;
    s.sub[l] = qty * unit;
    s.taxRate[l] = tr;
    s.tax[l] = Math.round((s.sub[l] * TAX_PERCENT[tr]) / 100);
    s.acct[l] = acct;
    s.dept[l] = dept;
  }
  totals(s);
  settle(ctx, lc, s, epoch, rng, 0.04, false);
  return true;
}

/** An amount between `min` and `max` pounds in the document currency, in cents. */
function pounds(min: number, max: number, u: number, rate: number): number {
  return Math.round(((min + (max - min) * u * u) * 100) / rate);
}

/** Does bill `j` come from a purchase order? (About 40 % of bills with goods do.) */
export function hasPurchaseOrder(ctx: Ctx, s: DocState): boolean {
  return s.acct[0] === A.Cogs && r3(ctx.hs, ctx.lc.bills.hk ^ 0x60, s.index) * INV30 < 0.8;
}

/** Was a purchase order's delivery receipted separately? (Half are.) */
export function hasItemReceipt(ctx: Ctx, j: number): boolean {
  return r3(ctx.hs, ctx.lc.bills.hk ^ 0x70, j) * INV30 < 0.5;
}
