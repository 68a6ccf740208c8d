import { B, EUR, GBP, PM, T, USD } from '../engine/chart.js';
import { type Ctx, rateOf, toBase } from '../engine/context.js';
import { type CashState, common, scratchDoc, uniform } from './cash-state.js';
import { F_CARD, F_EUR, F_GBP, F_USD, flowOf, monthlyFlows } from './flows.js';

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
  let native: number,
    from: number,
    to: number,
    cur = GBP;
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
