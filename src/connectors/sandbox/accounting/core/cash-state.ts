import { A, B, PM, T } from '../engine/chart.js';
import type { Ctx } from '../engine/context.js';
import { INV30, Rng } from '../engine/hash.js';
import { type Lifecycle, lastChange } from '../engine/lifecycle.js';
import { pickParty } from '../engine/parties.js';
import { DocState, NEVER, dayOfIndex, identify } from './doc-state.js';
import { TAX_PERCENT } from './invoice-state.js';

/**
 * Direct costs, direct incomes and transfers: money that moves through a bank account without an invoice or
 * bill. Direct costs and incomes are one GBP line (costs paid from the current account or the credit card);
 * transfers move money between bank accounts, converting USD and EUR to GBP.
 */
export class CashState {
  index = 0;
  created = 0;
  deleted = NEVER;
  lastChange = 0;
  day = 0;
  /** Ledger account of the line (direct costs and incomes) or the kind of transfer. */
  acct = 0;
  /** Bank account paid from / into (`B.*`); for transfers, the account paid from. */
  bank = 0;
  /** Transfers: the bank account paid into, the amount it receives (its currency, cents) and the rate. */
  toBank = 0;
  toTotal = 0;
  rate = 1;
  sub = 0;
  tax = 0;
  taxRate = 0;
  total = 0;
  /** Customer or supplier, or -1. */
  party = -1;
  paymentMethod = 0;
  /** A fixed random number of the record, and one that moves with each change (descriptions, notes). */
  stable = 0;
  variant = 0;
}

/** [account, min pounds, max pounds, bank, tax rate, weight]. */
const COSTS: readonly (readonly [number, number, number, number, number, number])[] = [
  [A.BankCharges, 5, 40, B.Current, T.Exempt, 20],
  [A.OfficeSupplies, 10, 300, B.Card, T.Standard, 20],
  [A.Travel, 20, 600, B.Card, T.Standard, 15],
  [A.Meals, 15, 250, B.Card, T.Standard, 15],
  [A.Software, 10, 200, B.Card, T.Standard, 12],
  [A.Freight, 20, 400, B.Current, T.Standard, 8],
  [A.InterestExpense, 20, 400, B.Current, T.Exempt, 5],
  [A.Repairs, 40, 500, B.Current, T.Standard, 5],
];
const COST_PICK: number[] = COSTS.flatMap((c, i) => Array<number>(c[5]).fill(i));

const rng = new Rng();

/** Fills what every cash record has (shared with transfers.ts, which seeds the same generator). */
export function common(ctx: Ctx, lc: Lifecycle, j: number, epoch: number, s: CashState, scratch: DocState): boolean {
  if (!identify(ctx, lc, j, epoch, scratch)) return false;
  s.index = j;
  s.created = scratch.created;
  s.deleted = scratch.deleted;
  s.lastChange = lastChange(ctx.hs, lc, j, Math.min(epoch, s.deleted - 1), s.created);
  s.day = dayOfIndex(ctx, lc, j, 0);
  rng.seed(ctx.hs, lc.hk, j);
  s.stable = rng.next();
  s.variant = s.stable + s.lastChange;
  return true;
}

export function uniform(): number {
  return rng.next() * INV30;
}

export const scratchDoc = new DocState();

export function loadDirectCost(ctx: Ctx, j: number, epoch: number, s: CashState): boolean {
  const lc = ctx.lc.directCosts;
  if (!common(ctx, lc, j, epoch, s, scratchDoc)) return false;
  const c = COSTS[COST_PICK[rng.below(COST_PICK.length)]];
  const u = uniform();
  s.acct = c[0];
  s.bank = c[3];
  s.taxRate = c[4];
  s.total = Math.round((c[1] + (c[2] - c[1]) * u * u) * 100);
  // Prices include VAT: take the tax out so that sub + tax = total exactly.
  s.sub = Math.round((s.total * 100) / (100 + TAX_PERCENT[s.taxRate]));
  s.tax = s.total - s.sub;
  s.party =
    s.acct !== A.BankCharges && s.acct !== A.InterestExpense && uniform() < 0.5 ? pickParty(ctx.hs, ctx.lc.suppliers, s.created, rng) : -1;
  s.paymentMethod =
    s.bank === B.Card ? PM.CreditCard : s.acct === A.BankCharges || s.acct === A.InterestExpense ? PM.DirectDebit : PM.DebitCard;
  return true;
}

export function loadDirectIncome(ctx: Ctx, j: number, epoch: number, s: CashState): boolean {
  const lc = ctx.lc.directIncomes;
  if (!common(ctx, lc, j, epoch, s, scratchDoc)) return false;
  const interest = uniform() < 0.3;
  const u = uniform();
  s.acct = interest ? A.InterestIncome : A.OtherIncome;
  s.bank = interest ? B.Savings : B.Current;
  s.taxRate = interest ? T.Exempt : T.Standard;
  s.total = Math.round((interest ? 5 + 195 * u * u : 20 + 1_480 * u * u) * 100);
  s.sub = Math.round((s.total * 100) / (100 + TAX_PERCENT[s.taxRate]));
  s.tax = s.total - s.sub;
  s.party = !interest && uniform() < 0.5 ? pickParty(ctx.hs, ctx.lc.customers, s.created, rng) : -1;
  s.paymentMethod = interest ? PM.BankTransfer : uniform() < 0.5 ? PM.Cash : PM.BankTransfer;
  return true;
}
