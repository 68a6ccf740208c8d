import { LRUCache } from 'lru-cache';
import type { ConnectionSettings } from '../generated-source.js';
import { NEVER } from '../accounting/core/doc-state.js';
import { CORE_BANKS } from '../accounting/engine/chart.js';
import { contextOf, type Ctx } from '../accounting/engine/context.js';
import { countAt, createdEpoch, deletedEpoch } from '../accounting/engine/lifecycle.js';
import { moves, type Move } from '../accounting/types/cash-transactions.js';
import { Calendar } from './kit/calendar.js';
import { u3 } from './kit/fast.js';

/*
 * The bank side of the books (docs/sandbox-banking-commerce.md, "One company, one story"): a company's Banking
 * Sandbox serves the statements of the bank accounts its accounting Sandbox keeps, made from the books' own
 * movements (the accounting Sandbox's `moves`, for the same seed, size and as-of day). Within the bank's span (its
 * last 36 months; the books go back 48):
 *   - each movement of the books reaches the bank as one line of the same amount, 0 to 3 days later (never after
 *     the as-of day), except a tenth of the money received, which never reaches it (the books' unmatched share);
 *   - the bank adds charges of its own, about one line in twenty (the bank's unmatched share).
 * So that the data integrity matching (docs/lending/matching.md) finds exactly these pairs and nothing else:
 *   - a movement with a twin (another of the same account and amount within 10 days) reaches the bank the same day,
 *     and is never one of the unmatched: twins then pair in id order, as the matching pairs them;
 *   - the unmatched are money received, the charges money paid out: the two never meet;
 *   - a charge's amount is one no movement of its account has within 10 days.
 * Twins and charges are decided over the base set (the movements made at epoch 0, those deleted since included), so a
 * line never changes once made; a movement a later sync adds reaches the bank the same day, with no charge.
 * The lines' ids follow the movements' order (`index * 2`, a charge `index * 2 + 1`), so they stream in id order.
 */

/** Days a movement takes to reach the bank, at most (a card purchase posts after it is authorised, for instance). */
export const MAX_LAG_DAYS = 3;
/** The share of money received (movements into an account) that never reaches the bank. */
export const UNMATCHED_RECEIPTS = 0.1;
/** The bank's own charges: one for about every nineteen movements, so about one line in twenty. */
export const CHARGE_RATE = 1 / 19;
/** Movements of one account and amount within this many days of each other are twins. */
export const TWIN_DAYS = 10;

const DRAW = { lag: 0x1a91, unmatched: 0x0b5e, charge: 0xc4a2, fee: 0xfee5, time: 0x71e6 } as const;

/** What the bank makes of the books at an epoch: per movement its fate, and the accounts' balances day by day. */
export interface BankSide {
  ctx: Ctx;
  cal: Calendar;
  /** Day of the bank's first day in the books' day numbers (days since 1970-01-01). */
  startDay: number;
  /** The books' bank accounts at the epoch: CORE_BANKS, then deposit accounts. */
  accounts: number;
  /** Creation epoch of each account. */
  accountCreated: Int32Array;
  /** Whether each account is still in the books (a deposit account opened later may be deleted; the bank then shows it no more). */
  accountLive: Uint8Array;
  /** Per movement the generator yields (in its order, deleted ones included): what the bank shows of it. */
  fate: Uint8Array;
  /** The day its line posts (bank day), for lines. */
  posted: Int32Array;
  /** The charge's amount (cents, negative), 0 for none. */
  charge: Float64Array;
  /** Each account's balance (cents) at the end of each bank day: `balance[b * cal.days + d]`. */
  balance: Float64Array;
  /** The latest epoch that changed each of those balances (0: none since the base set). */
  touched: Int32Array;
}

export const FATE = {
  /** Before the bank's span, or deleted before the epoch: nothing of it is served. */
  none: 0,
  /** A line. */
  line: 1,
  /** Money received that never reached the bank. */
  unmatched: 2,
} as const;

const sides = new LRUCache<string, BankSide>({ max: 2 });

/** Every movement of the books at `epoch`, deleted ones too (their lines are gone; they mark what changed). */
export function bookMoves(side: BankSide, epoch: number): Generator<Move> {
  return moves(side.ctx, epoch, true, true);
}

/** The bank day of a books' day. */
export const bankDay = (side: BankSide, day: number) => day - side.startDay;

export function bankSideOf(settings: ConnectionSettings, epoch: number): BankSide {
  const key = `${settings.seed}|${settings.invoices}|${settings.asOf}|${epoch}`;
  let side = sides.get(key);
  if (!side) {
    side = build(settings, epoch);
    sides.set(key, side);
  }
  return side;
}

function build(settings: ConnectionSettings, epoch: number): BankSide {
  const ctx = contextOf(settings);
  const cal = new Calendar(settings.asOf);
  const startDay = Math.round(Date.parse(`${cal.day(0)}T00:00:00Z`) / 86_400_000);
  const lastDay = cal.days - 1;
  const accounts = countAt(ctx.lc.bankAccounts, epoch);
  const lc = ctx.lc.bankAccounts;
  const accountCreated = Int32Array.from({ length: accounts }, (_, b) => createdEpoch(lc, b));
  const accountLive = Uint8Array.from({ length: accounts }, (_, b) => (deletedEpoch(ctx.hs, lc, b, b >= lc.base, epoch) <= epoch ? 0 : 1));
  const opening = new Float64Array(accounts);

  // First pass: what every movement is, and its (account, amount, day) for finding twins.
  const account: number[] = [];
  const cents: number[] = [];
  const day: number[] = [];
  const live: boolean[] = [];
  /** Of the base set (made at epoch 0, deleted since or not): what twins and charges are decided over. */
  const base: boolean[] = [];
  const receipt: boolean[] = [];
  const index: number[] = [];
  const created: number[] = [];
  const deleted: number[] = [];
  for (const m of moves(ctx, epoch, true, true)) {
    const d = m.day - startDay;
    const isLive = m.deleted === NEVER;
    if (isLive && d < 0 && m.bank < accounts) opening[m.bank] += m.amount;
    account.push(m.bank);
    cents.push(m.amount);
    day.push(d);
    live.push(isLive && d >= 0 && m.childType !== '');
    // Movements just before the span count too: matching reads them, and one could take a line near the start.
    base.push(m.created === 0 && d >= -TWIN_DAYS && m.childType !== '');
    receipt.push(m.amount > 0);
    index.push(m.index);
    created.push(m.created);
    deleted.push(m.deleted === NEVER ? 0 : m.deleted);
  }
  const n = account.length;

  // Twins: sorted by account, amount and day, neighbours of one account and amount within TWIN_DAYS. Decided over the
  // base set alone, deleted movements included, so that every later epoch decides each line the same way (a line's
  // fate, day and charge never change; it only comes and goes with its movement).
  const order = Int32Array.from({ length: n }, (_, i) => i).filter((i) => base[i]);
  order.sort((x, y) => account[x] - account[y] || cents[x] - cents[y] || day[x] - day[y]);
  const twin = new Uint8Array(n);
  for (let k = 1; k < order.length; k++) {
    const x = order[k - 1];
    const y = order[k];
    if (account[x] === account[y] && cents[x] === cents[y] && day[y] - day[x] <= TWIN_DAYS) twin[x] = twin[y] = 1;
  }
  /** Does a base movement of `acct` have exactly `amount` within TWIN_DAYS of `d`? (binary search of `order`) */
  const taken = (acct: number, amount: number, d: number) => {
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const i = order[mid];
      if (account[i] < acct || (account[i] === acct && (cents[i] < amount || (cents[i] === amount && day[i] < d - TWIN_DAYS))))
        lo = mid + 1;
      else hi = mid;
    }
    return lo < order.length && account[order[lo]] === acct && cents[order[lo]] === amount && day[order[lo]] <= d + TWIN_DAYS;
  };

  const fate = new Uint8Array(n);
  const posted = new Int32Array(n);
  const charge = new Float64Array(n);
  const seed = ctx.seed;
  for (let i = 0; i < n; i++) {
    if (!live[i]) continue;
    // A movement added at a later sync reaches the bank the same day, with no charge.
    const later = created[i] > 0;
    if (!later && receipt[i] && !twin[i] && u3(seed, DRAW.unmatched, index[i]) < UNMATCHED_RECEIPTS) {
      fate[i] = FATE.unmatched;
      continue;
    }
    fate[i] = FATE.line;
    const lag = twin[i] || later ? 0 : Math.floor(u3(seed, DRAW.lag, index[i]) * (MAX_LAG_DAYS + 1));
    posted[i] = Math.min(day[i] + lag, lastDay);
    if (!later && u3(seed, DRAW.charge, index[i]) < CHARGE_RATE) {
      // A charge of 0.50 to 35.00 the account has no movement of, near it.
      let amount = -Math.round(50 + u3(seed, DRAW.fee, index[i]) * 3450);
      while (taken(account[i], amount, posted[i])) amount -= 1;
      charge[i] = amount;
    }
  }

  // Balances: the opening, then each day's lines; a day's balance changed at the latest epoch that added or removed
  // a line on or before it (a movement removed before the span changes the opening, so every day).
  const days = cal.days;
  const balance = new Float64Array(accounts * days);
  const touched = new Int32Array(accounts * days);
  const openingTouched = new Int32Array(accounts);
  for (let i = 0; i < n; i++) {
    const b = account[i];
    if (b >= accounts) continue;
    const changed = Math.max(deleted[i], created[i]);
    if (day[i] < 0) {
      if (changed > openingTouched[b]) openingTouched[b] = changed;
      continue;
    }
    const at = b * days + (fate[i] === FATE.line ? posted[i] : Math.min(day[i], lastDay));
    if (fate[i] === FATE.line) balance[at] += cents[i] + charge[i];
    if (fate[i] !== FATE.unmatched && changed > touched[at]) touched[at] = changed;
  }
  for (let b = 0; b < accounts; b++) {
    let running = opening[b];
    let latest = openingTouched[b];
    for (let d = 0; d < days; d++) {
      running += balance[b * days + d];
      latest = Math.max(latest, touched[b * days + d]);
      balance[b * days + d] = running;
      touched[b * days + d] = latest;
    }
  }
  return { ctx, cal, startDay, accounts, accountCreated, accountLive, fate, posted, charge, balance, touched };
}

/** The books' name of account `b` (CORE_BANKS, then deposit accounts). */
export function bookAccountName(b: number): string {
  return b < CORE_BANKS.length ? CORE_BANKS[b][0] : `Deposit Account ${b - CORE_BANKS.length + 1}`;
}

/** The overdraft (current accounts) or credit (cards) limit of account `b`, in currency units, as the books have it. */
export function bookAccountLimit(b: number): number {
  return b < CORE_BANKS.length ? CORE_BANKS[b][5] : 0;
}

/** The seconds into its day a line was created at (its movement's, for lines made at epoch 0). */
export const lineSeconds = (seed: number, index: number) => Math.floor(u3(seed, DRAW.time, index) * 86_400);
