import type { FetchContext } from '../generated-source.js';
import { keyOf } from '../random.js';
import { accountKind, accountName, type AccountKind } from './account-kinds.js';
import { BASE_CATEGORIES } from './category-tree.js';
import { Calendar } from './kit/calendar.js';
import { guid, u3 } from './kit/fast.js';
import { DEFAULT_RATES, Movement } from './kit/movement.js';
import { RECURRING, templateMean, templatesFor, type Recurring, type Template } from './templates.js';

export const KEY = {
  accounts: keyOf('banking-accounts'),
  balances: keyOf('banking-accountBalances'),
  transactions: keyOf('banking-transactions'),
  categories: keyOf('banking-transactionCategories'),
};

/** Slots per month for derived transactions (recurring payments, interest, month-end transfers). */
export const SLOTS_PER_MONTH = 64;
export const SLOT = { recurring: 0, interest: 16, card: 24, savings: 40, sweep: 56 } as const;
/** Derived transactions are numbered after every possible day-to-day transaction, so they sort last. */
export const DERIVED_BASE = 2 ** 40;

const NO_DELETE = { ...DEFAULT_RATES, delete: 0 };
const INTEREST = { GBP: 0.035, USD: 0.042, EUR: 0.02 } as const;

export interface AccountPlan {
  index: number;
  id: string;
  name: string;
  kind: AccountKind;
  /** Opened before the span (epoch 0) or at a later epoch. */
  createdEpoch: number;
  /** The current account that funds a card or savings account (same currency), or -1. */
  fundedBy: number;
  /** The first current account of its currency: pays the recurring bills. */
  primary: boolean;
  templates: readonly Template[];
  templateCum: Float64Array;
  recurring: { item: Recurring; cents: number }[];
  /** Typical balance (cents) a current or savings account is swept to; 0 for cards. */
  level: number;
  /** Overdraft (current) or credit (card) limit in currency units; null for savings. */
  limit: number | null;
}

/** Everything about a banking company that does not depend on a single record; built once per fetch. */
export class BankingPlan {
  readonly seed: number;
  readonly epoch: number;
  readonly cal: Calendar;
  readonly accountMoves: Movement;
  readonly txnMoves: Movement;
  readonly categoryMoves: Movement;
  readonly accounts: AccountPlan[] = [];
  /** Months per sweep period: monthly for large companies, quarterly or half-yearly for small ones. */
  readonly period: number;
  /** Completed months and periods (their month-end postings have happened by `asOf`). */
  readonly completedMonths: number;
  readonly periods: number;
  /** Day-to-day transactions at epoch 0. */
  readonly baseTxns: number;
  /** Per creation epoch: cumulative weights of the accounts that take day-to-day transactions. */
  private readonly accountCum: { index: number[]; cum: number[]; total: number }[] = [];

  constructor(ctx: FetchContext) {
    const { seed, invoices, asOf } = ctx.settings;
    if (!Number.isInteger(invoices) || invoices < 1) throw new Error(`invoices must be a positive integer, got ${invoices}`);
    this.seed = seed;
    this.epoch = ctx.epoch;
    this.cal = new Calendar(asOf);
    this.period = invoices >= 5000 ? 1 : invoices >= 1000 ? 3 : 6;
    this.completedMonths = this.cal.completedMonths;
    this.periods = Math.floor(this.completedMonths / this.period);
    const baseAccounts = Math.min(10, Math.max(5, 3 + Math.floor(Math.log10(invoices))));
    this.accountMoves = new Movement(seed, KEY.accounts, baseAccounts, ctx.epoch, NO_DELETE);
    this.categoryMoves = new Movement(seed, KEY.categories, BASE_CATEGORIES.length, ctx.epoch, NO_DELETE);
    const tier = invoices >= 10_000 ? 2 : invoices >= 1000 ? 1 : 0;
    for (let j = 0; j < this.accountMoves.total; j++) this.accounts.push(this.describe(j, tier));
    this.baseTxns = Math.max(invoices, 2 * (invoices - Math.floor(this.derivedCount() / 2)));
    this.txnMoves = new Movement(seed, KEY.transactions, this.baseTxns, ctx.epoch);
    this.price();
    for (let k = 0; k <= ctx.epoch; k++) {
      const open = this.accounts.filter((a) => a.createdEpoch <= k && a.kind.weight > 0);
      const cum: number[] = [];
      let total = 0;
      for (const a of open) cum.push((total += a.kind.weight));
      this.accountCum.push({ index: open.map((a) => a.index), cum, total });
    }
  }

  get baseAccounts(): number {
    return this.accountMoves.base;
  }

  private describe(index: number, tier: number): AccountPlan {
    const kind = accountKind(index);
    const createdEpoch = this.accountMoves.createdAt(index);
    const earlier = this.accounts.filter((a) => a.kind.currency === kind.currency && a.kind.role === 'current');
    const fundedBy = kind.role === 'current' ? -1 : (earlier[0]?.index ?? -1);
    const primary = kind.role === 'current' && earlier.length === 0 && createdEpoch === 0;
    const templates = templatesFor(kind.role, kind.currency);
    const templateCum = new Float64Array(templates.length);
    let acc = 0;
    templates.forEach((t, i) => (templateCum[i] = acc += t.weight));
    const recurring = primary
      ? RECURRING.filter((r) => r.currency === kind.currency && r.tier <= tier).map((item) => ({ item, cents: 0 }))
      : [];
    return {
      index,
      id: guid(this.seed, KEY.accounts, index),
      name: accountName(index),
      kind,
      createdEpoch,
      fundedBy,
      primary,
      templates,
      templateCum,
      recurring,
      level: 0,
      limit: null,
    };
  }

  /** Number of derived (non day-to-day) transactions: they count towards the ≈ 2 × invoices total. */
  private derivedCount(): number {
    let n = 0;
    for (let m = 0; m < this.cal.months; m++) n += this.derivedSlots(m).length;
    return n;
  }

  /** Expected money flows, then recurring amounts, sweep levels and limits, all in cents. */
  private price(): void {
    const base = this.accounts.filter((a) => a.createdEpoch === 0);
    const totalWeight = base.reduce((s, a) => s + a.kind.weight, 0);
    const perMonth = (a: AccountPlan) => (this.baseTxns * a.kind.weight) / totalWeight / this.cal.months;
    for (const a of base) {
      const w = a.templates.reduce((s, t) => s + t.weight, 0) || 1;
      const income = (perMonth(a) * a.templates.filter((t) => t.sign > 0).reduce((s, t) => s + t.weight * templateMean(t), 0)) / w;
      const spend = (perMonth(a) * a.templates.filter((t) => t.sign < 0).reduce((s, t) => s + t.weight * templateMean(t), 0)) / w;
      const shares = a.recurring.reduce((s, r) => s + r.item.share, 0);
      const budget = Math.max(0, 0.97 * income - spend);
      for (const r of a.recurring) r.cents = Math.round((budget * r.item.share * 100) / shares);
      const outflowPerPeriod = (spend + budget) * this.period;
      if (a.kind.role === 'current') {
        a.level = Math.round(Math.max(5000, 1.5 * outflowPerPeriod) * 100);
        a.limit = Math.max(1000, Math.round((0.25 * a.level) / 100 / 1000) * 1000);
      } else if (a.kind.role === 'card') {
        a.limit = Math.max(2000, Math.ceil((2 * outflowPerPeriod) / 1000) * 1000);
      }
    }
    for (const a of this.accounts) {
      if (a.kind.role === 'savings') {
        const funder = this.accounts[a.fundedBy];
        a.level = Math.round(Math.max(10_000_00, (funder?.level ?? 0) * 0.6));
      }
      if (a.createdEpoch > 0 && a.kind.role !== 'savings') a.limit = a.kind.role === 'card' ? 2000 : 1000;
    }
  }

  /** The account carrying day-to-day transaction `t` created at `epoch`, for a uniform `u`. */
  accountFor(created: number, u: number): number {
    const table = this.accountCum[created];
    const x = u * table.total;
    let i = 0;
    while (i < table.cum.length - 1 && x >= table.cum[i]) i++;
    return table.index[i];
  }

  /** The period (sweep interval) a month belongs to, or -1 when that period is not complete. */
  periodOfMonth(m: number): number {
    const p = Math.floor(m / this.period);
    return p < this.periods ? p : -1;
  }

  /** Last day of period `p`. */
  periodEnd(p: number): number {
    return this.cal.monthEnd(p * this.period + this.period - 1);
  }

  /** Balance (cents) a current or savings account is brought to at the end of period p (p = -1: opening). */
  target(a: AccountPlan, p: number): number {
    if (a.kind.role === 'card') return 0;
    const progress = (p + 1) / Math.max(1, this.periods);
    if (a.kind.role === 'savings') return Math.round(a.level * (1 + 1.5 * progress) * (0.97 + 0.06 * u3(this.seed, a.index, p + 7)));
    return Math.round(a.level * (1 + 0.5 * progress) * (0.8 + 0.4 * u3(this.seed, a.index, p + 7)));
  }

  /** Opening balance (cents) of an account: its period -1 target, or the first deposit of a later account. */
  opening(a: AccountPlan): number {
    if (a.createdEpoch === 0) return this.target(a, -1);
    return a.kind.role === 'card' ? 0 : Math.round(1000_00 * (1 + 9 * u3(this.seed, a.index, 0x0be)));
  }

  /** Recurring amount (cents) in month m: salaries rise each year, other bills vary a little. */
  recurringAmount(a: AccountPlan, r: number, m: number): number {
    const { item, cents } = a.recurring[r];
    if (item.category === 'payroll-salaries' || item.category === 'rent-and-utilities-rent')
      return Math.round(cents * (0.9 + 0.05 * Math.floor(m / 12)));
    return Math.round(cents * (0.85 + 0.3 * u3(this.seed, a.index * 64 + r, m)));
  }

  /** Monthly interest (cents) on a savings account, from the balance it was swept to. */
  interest(a: AccountPlan, m: number): number {
    const p = Math.floor(m / this.period) - 1;
    return Math.round((this.target(a, p) * INTEREST[a.kind.currency]) / 12);
  }

  /** Savings transfer (cents, into the savings account) at the end of period p. */
  savingsTransfer(a: AccountPlan, p: number): number {
    let interest = 0;
    for (let m = p * this.period; m < (p + 1) * this.period; m++) interest += this.interest(a, m);
    return this.target(a, p) - this.target(a, p - 1) - interest;
  }

  /**
   * The derived transactions of month m in slot order: [slot, kind, account index, extra]. `extra` is the
   * recurring item for `recurring` entries.
   */
  derivedSlots(
    m: number,
  ): [number, 'recurring' | 'interest' | 'card' | 'cardFunding' | 'savings' | 'savingsFunding' | 'sweep', number, number][] {
    const out: ReturnType<BankingPlan['derivedSlots']> = [];
    const base = this.accounts.filter((a) => a.createdEpoch === 0);
    let r = 0;
    for (const a of base) {
      a.recurring.forEach((item, i) => {
        if (this.recurringDay(item.item, m) <= this.cal.days - 1) out.push([SLOT.recurring + r, 'recurring', a.index, i]);
        r++;
      });
    }
    if (m >= this.completedMonths) return out;
    base.filter((a) => a.kind.role === 'savings').forEach((a, i) => out.push([SLOT.interest + i, 'interest', a.index, 0]));
    if (m % this.period !== this.period - 1 || this.periodOfMonth(m) < 0) return out;
    base
      .filter((a) => a.kind.role === 'card')
      .forEach((a, i) => {
        out.push([SLOT.card + 2 * i, 'card', a.index, 0]);
        if (a.fundedBy >= 0) out.push([SLOT.card + 2 * i + 1, 'cardFunding', a.index, 0]);
      });
    base
      .filter((a) => a.kind.role === 'savings')
      .forEach((a, i) => {
        out.push([SLOT.savings + 2 * i, 'savings', a.index, 0]);
        if (a.fundedBy >= 0) out.push([SLOT.savings + 2 * i + 1, 'savingsFunding', a.index, 0]);
      });
    base.filter((a) => a.kind.role === 'current').forEach((a, i) => out.push([SLOT.sweep + i, 'sweep', a.index, 0]));
    return out;
  }

  /** Day a recurring payment of month m posts (its day of month, or the month's last day). */
  recurringDay(item: Recurring, m: number): number {
    return Math.min(this.cal.monthStart[m] + item.dayOfMonth - 1, this.cal.monthEnd(m));
  }
}
