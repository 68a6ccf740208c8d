import { comparableText, jaroWinkler } from './jaro-winkler.js';

/**
 * The one matching engine of data integrity and enhanced invoices (docs/lending/matching.md): which banking
 * transactions (the bank's own statement) settle which accounting transactions (the books' movements of their bank
 * accounts), for one pool: one accounting connection against one banking connection.
 *
 * Four passes, each over the accounting transactions still unmatched, in (date, id) order, each claiming the
 * unclaimed banking transactions it matches:
 *   1. exactly the amount, on the same date;
 *   2. exactly the amount, dates at most 3 days apart;
 *   3. the amount within 1% of the accounting amount or within 1 unit, dates at most 7 days apart, and descriptions
 *      at least 0.8 alike (Jaro-Winkler on lower-cased, whitespace-collapsed text);
 *   4. two to five banking transactions that together make exactly the amount, each at most 7 days away.
 * Always within one currency and on the same side (money in or out). A banking transaction settles at most one
 * accounting transaction and is consumed whole (its amount is at most what it settles, give or take pass 3's
 * tolerance). Among candidates, the closest date wins, then the lower id (text order). In pass 4 the fewest
 * transactions win, then the combination whose members come first in that order, among the 32 closest candidates.
 */

/** One movement of money through a bank account, on either side. */
export interface Movement {
  id: string;
  /** The bank account it moved through (an accounting `bankAccounts` id, or a banking account id). */
  account: string;
  currency: string;
  /** Days since 1970-01-01 of its date (accounting `date`; banking `postedDate`, else `authorizedDate`). */
  day: number;
  /** Signed, money in positive, in ten-thousandths of the currency unit (an exact integer). */
  amount: number;
  description: string;
}

export interface MatchInput {
  accounting: readonly Movement[];
  banking: readonly Movement[];
  /**
   * Which accounting bank account is which banking account (`pairAccounts`). Transactions of a paired accounting
   * account match only transactions of the banking accounts it is paired with; those of an unpaired one match only
   * transactions of banking accounts paired with no accounting account.
   */
  accountPairs: readonly (readonly [accountingAccount: string, bankingAccount: string])[];
}

export type MatchPass = 1 | 2 | 3 | 4;

export interface Match {
  /** Index into `accounting`. */
  accounting: number;
  /** Indexes into `banking`, closest date first, then by id. */
  banking: number[];
  pass: MatchPass;
}

export interface MatchResult {
  /** In the order they were made: pass by pass, accounting transactions in (date, id) order. */
  matches: Match[];
  /** For each accounting transaction, the index of its match in `matches`, or -1. */
  accountingMatch: Int32Array;
  /** For each banking transaction, the index of its match in `matches`, or -1. */
  bankingMatch: Int32Array;
}

/** An amount in the engine's unit: ten-thousandths, exactly, or null for one it cannot compare exactly. */
export function engineAmount(value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const scaled = Math.round(value * 10_000);
  return Number.isSafeInteger(scaled * 5) ? scaled : null;
}

export const DATE_WINDOW = { exact: 0, near: 3, loose: 7 } as const;
export const SIMILARITY_THRESHOLD = 0.8;
export const MAX_PARTS = 5;
export const PART_CANDIDATES = 32;

const UNIT = 10_000;

export function matchMovements(input: MatchInput): MatchResult {
  const { accounting, banking } = input;
  const accountingMatch = new Int32Array(accounting.length).fill(-1);
  const bankingMatch = new Int32Array(banking.length).fill(-1);
  const matches: Match[] = [];
  const allowed = accountRule(input);

  const order = (list: readonly Movement[]) =>
    Array.from(list.keys())
      .filter((i) => Number.isSafeInteger(list[i].amount) && list[i].amount !== 0 && Number.isSafeInteger(list[i].day))
      .sort((x, y) => list[x].day - list[y].day || textOrder(list[x].id, list[y].id));
  const claimOrder = order(accounting);
  const bankOrder = order(banking);

  // Banking transactions by currency and exact amount, in (day, id) order.
  const byAmount = new Map<string, number[]>();
  for (const b of bankOrder) push(byAmount, `${banking[b].currency} ${banking[b].amount}`, b);
  // And by currency and day, each day's in amount order: passes 3 and 4 look at a few days' amounts in a range.
  const byDayAmount = new Map<string, Map<number, number[]>>();
  for (const b of bankOrder) {
    const t = banking[b];
    let days = byDayAmount.get(t.currency);
    if (!days) byDayAmount.set(t.currency, (days = new Map()));
    push(days, t.day, b);
  }
  for (const days of byDayAmount.values()) for (const list of days.values()) list.sort((x, y) => banking[x].amount - banking[y].amount);
  /**
   * The banking transactions of `a`'s currency with an amount in [low, high] that `keep` keeps, nearest days first
   * (day `a.day`, then a day either side, and so on up to `window`), each distance's in id order; the days stop once
   * `enough` says so after a whole distance.
   */
  const nearest = (
    a: Movement,
    window: number,
    low: number,
    high: number,
    keep: (b: number) => boolean,
    enough: (found: number[]) => boolean,
  ): number[] => {
    const found: number[] = [];
    const days = byDayAmount.get(a.currency);
    if (!days) return found;
    for (let distance = 0; distance <= window; distance++) {
      const level: number[] = [];
      for (const day of distance === 0 ? [a.day] : [a.day - distance, a.day + distance]) {
        const list = days.get(day);
        if (!list) continue;
        for (let k = firstAtLeast(list, amountOf, low); k < list.length && banking[list[k]].amount <= high; k++)
          if (keep(list[k])) level.push(list[k]);
      }
      level.sort((x, y) => textOrder(banking[x].id, banking[y].id));
      for (const b of level) found.push(b);
      if (enough(found)) break;
    }
    return found;
  };
  const dayOf = (b: number) => banking[b].day;
  const amountOf = (b: number) => banking[b].amount;
  const texts = new Map<number, string>();
  const bankText = (b: number) => {
    let text = texts.get(b);
    if (text === undefined) texts.set(b, (text = comparableText(banking[b].description)));
    return text;
  };

  const claim = (a: number, parts: number[], pass: MatchPass) => {
    accountingMatch[a] = matches.length;
    for (const b of parts) bankingMatch[b] = matches.length;
    matches.push({ accounting: a, banking: parts, pass });
  };
  /** Is `b` free and of an account `a`'s transactions may match, in `a`'s currency and on its side? */
  const open = (a: Movement, b: number) =>
    bankingMatch[b] < 0 && Math.sign(banking[b].amount) === Math.sign(a.amount) && allowed(a.account, banking[b].account);
  /** The closest free candidate of `list` (in day order) within `window` days of `a` that `fits`, ties by id. */
  const closest = (a: Movement, list: number[] | undefined, window: number, fits: (b: number) => boolean) => {
    if (!list) return -1;
    let best = -1;
    let bestGap = Infinity;
    for (let k = firstAtLeast(list, dayOf, a.day - window); k < list.length; k++) {
      const b = list[k];
      const gap = banking[b].day - a.day;
      if (gap > window) break;
      if (!open(a, b) || !fits(b)) continue;
      const distance = Math.abs(gap);
      if (distance < bestGap || (distance === bestGap && textOrder(banking[b].id, banking[best].id) < 0)) {
        best = b;
        bestGap = distance;
      }
    }
    return best;
  };

  const passes: [MatchPass, (a: Movement) => number[] | null][] = [
    [1, (a) => one(closest(a, byAmount.get(`${a.currency} ${a.amount}`), DATE_WINDOW.exact, always))],
    [2, (a) => one(closest(a, byAmount.get(`${a.currency} ${a.amount}`), DATE_WINDOW.near, always))],
    [
      3,
      (a) => {
        const text = comparableText(a.description);
        if (text === '') return null;
        const tolerance = Math.max(Math.abs(a.amount) / 100, UNIT);
        // The nearest distance with a candidate alike enough decides; its lowest id wins.
        const alike = (b: number) => open(a, b) && jaroWinkler(text, bankText(b)) >= SIMILARITY_THRESHOLD;
        const found = nearest(a, DATE_WINDOW.loose, a.amount - tolerance, a.amount + tolerance, alike, (f) => f.length > 0);
        return found.length > 0 ? [found[0]] : null;
      },
    ],
    [4, (a) => partsMaking(a)],
  ];

  function partsMaking(a: Movement): number[] | null {
    const target = Math.abs(a.amount);
    // Same side, each smaller than the whole; the nearest PART_CANDIDATES (whole distances are read, then cut).
    const [low, high] = a.amount > 0 ? [1, a.amount - 1] : [a.amount + 1, -1];
    const candidates = nearest(
      a,
      DATE_WINDOW.loose,
      low,
      high,
      (b) => open(a, b),
      (found) => found.length >= PART_CANDIDATES,
    );
    if (candidates.length < 2) return null;
    const ranked = candidates.slice(0, PART_CANDIDATES);
    const found = smallestSubsetMaking(
      ranked.map((b) => Math.abs(banking[b].amount)),
      target,
    );
    return found && found.map((r) => ranked[r]);
  }

  for (const [pass, find] of passes) {
    for (const a of claimOrder) {
      if (accountingMatch[a] >= 0) continue;
      const parts = find(accounting[a]);
      if (parts) claim(a, parts, pass);
    }
  }
  return { matches, accountingMatch, bankingMatch };
}

/**
 * The ranks (ascending) of the fewest values, two to five, that sum exactly to `target`; among as few, the
 * combination first in rank order (compared rank by rank). Values are positive and each below `target`.
 */
export function smallestSubsetMaking(values: readonly number[], target: number): number[] | null {
  const n = values.length;
  // For each rank, the least and the most that k values at or after it can make (k below MAX_PARTS): a branch whose
  // rest cannot make what is left is cut. Built from the last rank back, keeping the values seen in order.
  const least: Float64Array[] = new Array(n + 1);
  const most: Float64Array[] = new Array(n + 1);
  const seen: number[] = [];
  for (let r = n; r >= 0; r--) {
    if (r < n) {
      const v = values[r];
      let at = seen.length;
      while (at > 0 && seen[at - 1] > v) at--;
      seen.splice(at, 0, v);
    }
    least[r] = new Float64Array(MAX_PARTS);
    most[r] = new Float64Array(MAX_PARTS);
    for (let k = 1; k < MAX_PARTS; k++) {
      least[r][k] = k <= seen.length ? least[r][k - 1] + seen[k - 1] : Infinity;
      most[r][k] = k <= seen.length ? most[r][k - 1] + seen[seen.length - k] : -Infinity;
    }
  }
  // For the last member: each value's ranks, ascending.
  const ranksOf = new Map<number, number[]>();
  values.forEach((v, r) => push(ranksOf, v, r));
  const picked: number[] = [];
  const search = (from: number, left: number, size: number): boolean => {
    if (size === 1) {
      const ranks = ranksOf.get(left);
      const r = ranks?.find((x) => x >= from);
      if (r === undefined) return false;
      picked.push(r);
      return true;
    }
    for (let r = from; r <= n - size; r++) {
      const rest = left - values[r];
      if (rest <= 0 || rest < least[r + 1][size - 1] || rest > most[r + 1][size - 1]) continue;
      picked.push(r);
      if (search(r + 1, rest, size - 1)) return true;
      picked.pop();
    }
    return false;
  };
  for (let size = 2; size <= Math.min(MAX_PARTS, n); size++) {
    picked.length = 0;
    if (search(0, target, size)) return picked.slice();
  }
  return null;
}

/** Accounting account → which banking accounts its transactions may match (see `MatchInput.accountPairs`). */
function accountRule(input: MatchInput): (accountingAccount: string, bankingAccount: string) => boolean {
  const pairs = new Map<string, Set<string>>();
  const paired = new Set<string>();
  for (const [accountingAccount, bankingAccount] of input.accountPairs) {
    let set = pairs.get(accountingAccount);
    if (!set) pairs.set(accountingAccount, (set = new Set()));
    set.add(bankingAccount);
    paired.add(bankingAccount);
  }
  return (accountingAccount, bankingAccount) => {
    const set = pairs.get(accountingAccount);
    return set ? set.has(bankingAccount) : !paired.has(bankingAccount);
  };
}

/** The first position of `list` (ascending by `key`) whose key is at least `value`. */
function firstAtLeast(list: readonly number[], key: (b: number) => number, value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(list[mid]) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function push<K>(map: Map<K, number[]>, key: K, value: number) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const always = () => true;
const one = (b: number) => (b < 0 ? null : [b]);

/** Ids compare as text, by UTF-16 code units (as JavaScript and the stores' binary collation order them). */
export function textOrder(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
