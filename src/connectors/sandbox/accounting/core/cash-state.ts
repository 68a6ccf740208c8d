import { A, B, EUR, GBP, PM, T, USD } from '../engine/chart.js';
import { type Ctx, rateOf, toBase } from '../engine/context.js';
import { INV30, Rng } from '../engine/hash.js';
import { type Lifecycle, lastChange } from '../engine/lifecycle.js';
import { pickParty } from '../engine/parties.js';
import { DocState, NEVER, dayOfIndex, identify } from './doc-state.js';
import { F_CARD, F_EUR, F_GBP, F_USD, flowOf, monthlyFlows } from './flows.js';
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
  [A.BankCharges, 5, 40, B.Current, T.Exempt, 20], [A.OfficeSupplies, 10, 300, B.Card, T.Standard, 20],
  [A.Travel, 20, 600, B.Card, T.Standard, 15], [A.Meals, 15, 250, B.Card, T.Standard, 15],
  [A.Software, 10, 200, B.Card, T.Standard, 12], [A.Freight, 20, 400, B.Current, T.Standard, 8],
  [A.InterestExpense, 20, 400, B.Current, T.Exempt, 5], [A.Repairs, 40, 500, B.Current, T.Standard, 5],
];
const COST_PICK: number[] = COSTS.flatMap((c, i) => Array<number>(c[5]).fill(i));

const rng = new Rng();

function common(ctx: Ctx, lc: Lifecycle, j: number, epoch: number, s: CashState, scratch: DocState): boolean {
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

function uniform(): number {
  return rng.next() * INV30;
}

const scratchDoc = new DocState();

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
  s.party = s.acct !== A.BankCharges && s.acct !== A.InterestExpense && uniform() < 0.5
    ? pickParty(ctx.hs, ctx.lc.suppliers, s.created, rng) : -1;
  s.paymentMethod = s.bank === B.Card ? PM.CreditCard : s.acct === A.BankCharges || s.acct === A.InterestExpense ? PM.DirectDebit : PM.DebitCard;
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

/** Transfer kinds, by slot within the month. */
export const USD_SWEEP = 0;
export const EUR_SWEEP = 1;
export const CARD_REPAYMENT = 2;
export const SAVINGS = 3;
export const TRANSFER_KINDS = 4;

/**
 * Transfers keep the bank accounts in shape without reading any balance: each month has `TRANSFER_KINDS`
 * slots (repeated for large companies) that move what the previous month left behind (`monthlyFlows`):
 * foreign receipts net of foreign bills are converted to GBP (or topped up when negative), the card is
 * repaid, and most of the current account's surplus goes to savings (or comes back from it).
 */
export function loadTransfer(ctx: Ctx, j: number, epoch: number, s: CashState): boolean {
  const lc = ctx.lc.transfers;
  // First: the flows are computed (once) with this module's generator, which `common` then seeds.
  const flows = monthlyFlows(ctx);
  if (!common(ctx, lc, j, epoch, s, scratchDoc)) return false;
  const months = ctx.cal.months;
  const perMonth = lc.base / months;
  const reps = perMonth / TRANSFER_KINDS;
  let m: number, kind: number;
  if (j < lc.base) {
    m = Math.floor(j / perMonth);
    const slot = j - m * perMonth;
    kind = slot % TRANSFER_KINDS;
    const length = ctx.cal.monthStart[m + 1] - ctx.cal.monthStart[m];
    s.day = Math.min(ctx.asOfDay, ctx.cal.monthStart[m] + ((slot * 3 + (s.stable % 3)) % length));
  } else {
    m = months - 1;
    kind = s.stable % TRANSFER_KINDS;
  }
  const prev = Math.max(0, m - 1);
  const usdRate = rateOf(ctx, USD, s.day);
  const eurRate = rateOf(ctx, EUR, s.day);
  const usd = 0.9 * flowOf(flows, prev, F_USD);
  const eur = 0.9 * flowOf(flows, prev, F_EUR);
  const card = flowOf(flows, prev, F_CARD);
  let native: number, from: number, to: number, cur = GBP;
  if (kind === USD_SWEEP || kind === EUR_SWEEP) {
    const amount = kind === USD_SWEEP ? usd : eur;
    cur = kind === USD_SWEEP ? USD : EUR;
    const bank = kind === USD_SWEEP ? B.Usd : B.Eur;
    [from, to] = amount >= 0 ? [bank, B.Current] : [B.Current, bank];
    native = Math.abs(amount) / reps;
    if (amount < 0) {
      // A top-up is paid in GBP: convert the foreign amount.
      native = native * (kind === USD_SWEEP ? usdRate : eurRate);
      cur = GBP;
    }
  } else if (kind === CARD_REPAYMENT) {
    [from, to] = [B.Current, B.Card];
    native = card / reps;
  } else {
    const surplus = 0.85 * (flowOf(flows, prev, F_GBP) + usd * usdRate + eur * eurRate - card);
    [from, to] = surplus >= 0 ? [B.Current, B.Savings] : [B.Savings, B.Current];
    native = Math.abs(surplus) / reps;
  }
  s.acct = kind;
  s.bank = from;
  s.toBank = to;
  s.rate = cur === GBP ? 1 : rateOf(ctx, cur, s.day);
  // Whole pounds (or dollars, euros), at least ten, varied a little.
  s.total = Math.max(1_000, Math.round((native * (0.9 + 0.2 * uniform())) / 100) * 100);
  s.toTotal = toBase(s.total, s.rate);
  s.sub = s.total;
  s.tax = 0;
  s.taxRate = T.NoVat;
  s.party = -1;
  s.paymentMethod = PM.BankTransfer;
  return true;
}
