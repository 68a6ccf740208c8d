import { u2, u3 } from './kit/fast.js';
import type { AccountPlan, BankingPlan } from './plan.js';

/** Hash keys of the independent draws of a day-to-day transaction. */
export const DRAW = {
  day: 0x1da7,
  account: 0xacc0,
  template: 0x7e3d,
  amount: 0xa301,
  time: 0x71e5,
  party: 0xc0de,
  ref: 0x4ef0,
  lag: 0x1a90,
};

/** The money facts of day-to-day transaction `t`: enough for balances, without building the record. */
export interface Core {
  t: number;
  created: number;
  /** Epoch at which it was deleted, or 0 while it is live. */
  deleted: number;
  day: number;
  account: number;
  template: number;
  cents: number;
}

export function newCore(): Core {
  return { t: 0, created: 0, deleted: 0, day: 0, account: 0, template: 0, cents: 0 };
}

/** Day of base transaction `t`: transactions are numbered in date order, spread evenly over the span. */
export function dayOf(plan: BankingPlan, t: number): number {
  return Math.floor(((t + u2(plan.seed ^ DRAW.day, t)) * plan.cal.days) / plan.baseTxns);
}

export function coreOf(plan: BankingPlan, t: number, out: Core): Core {
  const moves = plan.txnMoves;
  const created = t < moves.base ? 0 : moves.createdAt(t);
  out.t = t;
  out.created = created;
  out.deleted = moves.deletedAt(t, created);
  out.day = created === 0 ? dayOf(plan, t) : plan.cal.days - 1;
  const account = plan.accounts[plan.accountFor(created, u2(plan.seed ^ DRAW.account, t))];
  out.account = account.index;
  const cum = account.templateCum;
  const x = u2(plan.seed ^ DRAW.template, t) * cum[cum.length - 1];
  let i = 0;
  while (i < cum.length - 1 && x >= cum[i]) i++;
  out.template = i;
  const tpl = account.templates[i];
  const units = tpl.min * Math.pow(tpl.max / tpl.min, u2(plan.seed ^ DRAW.amount, t));
  out.cents = tpl.sign * Math.max(1, Math.round(units * 100));
  return out;
}

/** First base transaction on or after day `d` (binary search: days never decrease with `t`). */
export function firstIndexOnDay(plan: BankingPlan, d: number): number {
  let lo = 0;
  let hi = plan.baseTxns;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (dayOf(plan, mid) < d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Per-account running balances (cents) and the latest epoch that changed them since the last reset. */
export interface BalanceState {
  cents: Float64Array;
  touched: Int32Array;
}

/**
 * Replays every transaction (day-to-day and derived) from the day after the end of period `fromPeriod`
 * (-1: from the start of the span) to `asOf`, calling `onDayEnd` with closing balances. Period ends reset
 * current and savings accounts to their targets and cards to zero, exactly what the month-end sweeps,
 * transfers and card repayments post. Accounts opened at later epochs start from their first deposit.
 */
export function replay(plan: BankingPlan, fromPeriod: number, onDayEnd: (day: number, state: BalanceState) => void): BalanceState {
  const n = plan.accounts.length;
  const state: BalanceState = { cents: new Float64Array(n), touched: new Int32Array(n) };
  for (const a of plan.accounts) {
    state.cents[a.index] = a.createdEpoch === 0 ? (fromPeriod < 0 ? plan.opening(a) : plan.target(a, fromPeriod)) : plan.opening(a);
    state.touched[a.index] = a.createdEpoch;
  }
  const startDay = fromPeriod < 0 ? 0 : plan.periodEnd(fromPeriod) + 1;
  const last = plan.cal.days - 1;
  const core = newCore();
  let t = firstIndexOnDay(plan, startDay);
  const total = plan.txnMoves.total;
  const base = plan.accounts.filter((a) => a.createdEpoch === 0);
  for (let d = startDay; d <= last; d++) {
    const end = d === last ? total : plan.baseTxns;
    for (; t < end; t++) {
      coreOf(plan, t, core);
      if (core.day !== d) break;
      const a = core.account;
      if (core.deleted) {
        if (core.deleted > state.touched[a]) state.touched[a] = core.deleted;
        continue;
      }
      state.cents[a] += core.cents;
      if (core.created > state.touched[a]) state.touched[a] = core.created;
    }
    const m = plan.cal.monthOf(d);
    for (const a of base) {
      a.recurring.forEach((r, i) => {
        if (plan.recurringDay(r.item, m) === d) state.cents[a.index] -= plan.recurringAmount(a, i, m);
      });
    }
    if (d === plan.cal.monthEnd(m) && m < plan.completedMonths) {
      for (const a of base) if (a.kind.role === 'savings') state.cents[a.index] += plan.interest(a, m);
      const p = plan.periodOfMonth(m);
      if (p >= 0 && plan.periodEnd(p) === d) {
        for (const a of base) {
          state.cents[a.index] = plan.target(a, p);
          state.touched[a.index] = 0;
        }
      }
    }
    onDayEnd(d, state);
  }
  return state;
}

/** Served balance amounts of an account holding `cents`. */
export function balanceAmounts(a: AccountPlan, cents: number): { available: number; current: number; limit: number | null } {
  const current = cents / 100;
  if (a.kind.role === 'card') return { available: Math.round(a.limit! * 100 + cents) / 100, current, limit: a.limit };
  return { available: current, current, limit: a.limit };
}

/** A reference number for statement text. */
export function referenceOf(plan: BankingPlan, t: number): string {
  return String(100000 + Math.floor(u3(plan.seed, DRAW.ref, t) * 900000));
}
