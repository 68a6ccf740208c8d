import { describe, expect, it } from 'vitest';
import {
  engineAmount,
  matchMovements,
  smallestSubsetMaking,
  type MatchInput,
  type Movement,
} from '../../../src/reports/matching/match-engine.js';
import { jaroWinkler } from '../../../src/reports/matching/jaro-winkler.js';
import { pairAccounts, sameAccount } from '../../../src/reports/matching/account-pairing.js';
import { random } from '../../helpers/random.js';

/*
 * The matching engine against the rules as docs/lending/matching.md states them: worked cases for each pass, and on
 * generated pools (shared amounts, dates close together, descriptions alike and not, payments split in parts, paired
 * and unpaired accounts, two currencies) the engine's matches equal those of a plain reading of the rules here: every
 * pass over every accounting transaction against every banking transaction, no index.
 */

const U = 10_000;
let counter = 0;
const mv = (over: Partial<Movement>): Movement => ({
  id: `m${String(counter++).padStart(4, '0')}`,
  account: 'acc',
  currency: 'GBP',
  day: 100,
  amount: 100 * U,
  description: '',
  ...over,
});

function run(accounting: Movement[], banking: Movement[], accountPairs: MatchInput['accountPairs'] = []) {
  const result = matchMovements({ accounting, banking, accountPairs });
  return result.matches.map((m) => ({
    accounting: accounting[m.accounting].id,
    banking: m.banking.map((b) => banking[b].id),
    pass: m.pass,
  }));
}

describe('matching passes', () => {
  it('pass 1 takes the same amount on the same day before pass 2 looks at nearer days for others', () => {
    const a1 = mv({ id: 'a1', day: 10 });
    const a2 = mv({ id: 'a2', day: 10 });
    const b1 = mv({ id: 'b1', day: 11, account: 'bank' });
    const b2 = mv({ id: 'b2', day: 10, account: 'bank' });
    // a1 claims first in pass 1 (same day: b2); a2 then gets b1 in pass 2.
    expect(run([a1, a2], [b1, b2])).toEqual([
      { accounting: 'a1', banking: ['b2'], pass: 1 },
      { accounting: 'a2', banking: ['b1'], pass: 2 },
    ]);
  });

  it('claims in (date, id) order, closest date first, ties by id', () => {
    const early = mv({ id: 'z-early', day: 10 });
    const late = mv({ id: 'a-late', day: 12 });
    const b = [mv({ id: 'b2', day: 13, account: 'bank' }), mv({ id: 'b1', day: 9, account: 'bank' })];
    // z-early (day 10) claims first: b1 (1 day) and b2 (3 days) → b1. a-late then takes b2 (1 day).
    expect(run([late, early], b)).toEqual([
      { accounting: 'z-early', banking: ['b1'], pass: 2 },
      { accounting: 'a-late', banking: ['b2'], pass: 2 },
    ]);
    // Equal distance: the lower id.
    const c = [mv({ id: 'c2', day: 11, account: 'bank' }), mv({ id: 'c1', day: 9, account: 'bank' })];
    expect(run([mv({ id: 'x', day: 10 })], c)[0].banking).toEqual(['c1']);
  });

  it('pass 2 reaches 3 days and no further; pass 3 needs alike descriptions', () => {
    const a = mv({ id: 'a', day: 20, amount: -250 * U, description: 'Supplier payment BP-7' });
    expect(run([a], [mv({ day: 24, amount: -250 * U, account: 'bank', description: 'unrelated' })])).toEqual([]);
    expect(run([a], [mv({ id: 'b', day: 23, amount: -250 * U, account: 'bank' })])).toEqual([{ accounting: 'a', banking: ['b'], pass: 2 }]);
    // 4 to 7 days away, amount within 1% and descriptions alike: pass 3.
    expect(run([a], [mv({ id: 'b', day: 27, amount: -252 * U, account: 'bank', description: 'SUPPLIER  PAYMENT bp-7' })])).toEqual([
      { accounting: 'a', banking: ['b'], pass: 3 },
    ]);
    // 8 days: nothing.
    expect(run([a], [mv({ day: 28, amount: -250 * U, account: 'bank', description: 'Supplier payment BP-7' })])).toEqual([]);
    // Beyond 1% (and beyond one unit): nothing.
    expect(run([a], [mv({ day: 21, amount: -253 * U, account: 'bank', description: 'Supplier payment BP-7' })])).toEqual([]);
  });

  it('pass 3 allows one unit on small amounts', () => {
    const a = mv({ id: 'a', day: 5, amount: 12 * U, description: 'Card fee' });
    expect(run([a], [mv({ id: 'b', day: 6, amount: 13 * U, account: 'bank', description: 'card fee' })])).toEqual([
      { accounting: 'a', banking: ['b'], pass: 3 },
    ]);
    expect(run([a], [mv({ day: 6, amount: 13.01 * U, account: 'bank', description: 'card fee' })])).toEqual([]);
  });

  it('pass 4 makes the amount from two to five parts, the fewest first, within 7 days', () => {
    const a = mv({ id: 'a', day: 50, amount: 1000 * U });
    const parts = [600, 400, 300, 300, 100].map((v, i) => mv({ id: `p${i}`, day: 50 + i, amount: v * U, account: 'bank' }));
    expect(run([a], parts)).toEqual([{ accounting: 'a', banking: ['p0', 'p1'], pass: 4 }]);
    const five = [150, 250, 200, 100, 300].map((v, i) => mv({ id: `q${i}`, day: 44 + i * 3, amount: v * U, account: 'bank' }));
    // Only all five make 1000; they come closest first (q1 and q3 both 3 days away: by id).
    expect(run([a], five)).toEqual([{ accounting: 'a', banking: ['q2', 'q1', 'q3', 'q0', 'q4'], pass: 4 }]);
    // One of them 8 days away: no longer.
    five[4].day = 58;
    expect(run([a], five)).toEqual([]);
  });

  it('never matches across currencies or sides, or a zero amount', () => {
    const a = mv({ id: 'a', amount: 100 * U });
    expect(run([a], [mv({ account: 'bank', currency: 'EUR' })])).toEqual([]);
    expect(run([a], [mv({ account: 'bank', amount: -100 * U })])).toEqual([]);
    expect(run([mv({ amount: 0 })], [mv({ account: 'bank', amount: 0 })])).toEqual([]);
  });

  it('keeps paired accounts to each other, and unpaired ones to the unpaired', () => {
    const a = mv({ id: 'a', account: 'current' });
    const other = mv({ id: 'b-other', account: 'bank-savings' });
    const own = mv({ id: 'b-own', account: 'bank-current', day: 102 });
    expect(run([a], [other, own], [['current', 'bank-current']])).toEqual([{ accounting: 'a', banking: ['b-own'], pass: 2 }]);
    // An unpaired accounting account may not take a paired banking account's transactions.
    expect(run([mv({ id: 'c', account: 'card' })], [own], [['current', 'bank-current']])).toEqual([]);
    expect(run([mv({ id: 'c', account: 'card' })], [other], [['current', 'bank-current']])).toEqual([
      { accounting: 'c', banking: ['b-other'], pass: 1 },
    ]);
  });

  it('leaves a movement without a date or with an amount it cannot hold out', () => {
    const a = mv({ id: 'a', day: Number.NaN });
    expect(run([a], [mv({ account: 'bank' })])).toEqual([]);
    expect(run([mv({ amount: 0.5 })], [mv({ account: 'bank', amount: 0.5 })])).toEqual([]);
    expect(run([mv({ id: 'ok' })], [mv({ id: 'b', account: 'bank', day: Number.NaN }), mv({ id: 'c', account: 'bank' })])).toEqual([
      { accounting: 'ok', banking: ['c'], pass: 1 },
    ]);
  });

  it('reads amounts exactly to four places', () => {
    expect(engineAmount(0.1)).toBe(1000);
    expect(engineAmount(-1234.5678)).toBe(-12345678);
    expect(engineAmount(0.1 + 0.2)).toBe(3000);
    expect(engineAmount('12')).toBeNull();
    expect(engineAmount(Number.NaN)).toBeNull();
    expect(engineAmount(1e16)).toBeNull();
  });
});

describe('account pairing', () => {
  it('pairs by IBAN, else sort code and number, else number and currency', () => {
    const gb = { id: 'x', iban: 'GB29 NWBK 6016 1331 9268 19' };
    expect(sameAccount(gb, { id: 'y', iban: 'gb29nwbk60161331926819' })).toBe(true);
    expect(sameAccount(gb, { id: 'y', sortCode: '60-16-13', number: '31926819' })).toBe(true);
    expect(sameAccount(gb, { id: 'y', iban: 'GB94BARC10201530093459', sortCode: '60-16-13', number: '31926819' })).toBe(false);
    expect(sameAccount({ id: 'x', number: '12345678', currency: 'usd' }, { id: 'y', number: '1234-5678', currency: 'USD' })).toBe(true);
    expect(sameAccount({ id: 'x', number: '12345678', currency: 'USD' }, { id: 'y', number: '12345678', currency: 'EUR' })).toBe(false);
    expect(sameAccount({ id: 'x', number: '12345678' }, { id: 'y', number: '12345678' })).toBe(false);
    expect(pairAccounts([gb, { id: 'z' }], [{ id: 'b', iban: 'GB29NWBK60161331926819' }])).toEqual([['x', 'b']]);
  });
});

describe('pass 4: the fewest parts, first in rank order', () => {
  /** Every combination of 2 to 5 ranks, fewest first, each size in rank order: the first that makes the target. */
  function plainly(values: number[], target: number): number[] | null {
    for (let size = 2; size <= 5; size++) {
      const walk = (from: number, chosen: number[]): number[] | null => {
        if (chosen.length === size) return chosen.reduce((s, r) => s + values[r], 0) === target ? chosen : null;
        for (let r = from; r < values.length; r++) {
          const hit = walk(r + 1, [...chosen, r]);
          if (hit) return hit;
        }
        return null;
      };
      const found = walk(0, []);
      if (found) return found;
    }
    return null;
  }

  it('agrees with trying every combination, on 300 generated candidate lists up to 32 long', () => {
    const next = random(99);
    const sizes = new Set<number>();
    for (let k = 0; k < 300; k++) {
      const n = 2 + Math.floor(next() * 31);
      // Few distinct values (repeats), some small, so that three to five parts are often needed.
      const pool = [3, 5, 7, 11, 13, 40, 41, 97, 100, 250];
      const values = Array.from({ length: n }, () => pool[Math.floor(next() * pool.length)]);
      const target =
        next() < 0.7
          ? values.slice(0, 2 + Math.floor(next() * 4)).reduce((s, v) => s + v, 0) + (next() < 0.3 ? 1 : 0)
          : 1 + Math.floor(next() * 600);
      // The engine offers only candidates smaller than the whole.
      const candidates = values.filter((v) => v < target);
      const got = smallestSubsetMaking(candidates, target);
      expect(got, `values ${candidates.join(',')} target ${target}`).toEqual(plainly(candidates, target));
      if (got) sizes.add(got.length);
    }
    expect([...sizes].sort()).toEqual([2, 3, 4, 5]);
  });
});

/** A plain reading of the rules, for the comparison below. */
function oracle({ accounting, banking, accountPairs }: MatchInput) {
  const paired = new Set(accountPairs.map((p) => p[1]));
  const allowed = (a: Movement, b: Movement) => {
    const mine = accountPairs.filter((p) => p[0] === a.account).map((p) => p[1]);
    return mine.length > 0 ? mine.includes(b.account) : !paired.has(b.account);
  };
  const norm = (t: string) => t.toLowerCase().split(/\s+/u).filter(Boolean).join(' ');
  const taken = new Set<number>();
  const done = new Set<number>();
  const out: { accounting: string; banking: string[]; pass: number }[] = [];
  const byClaimOrder = [...accounting.keys()]
    .filter((i) => accounting[i].amount !== 0)
    .sort((x, y) => accounting[x].day - accounting[y].day || (accounting[x].id < accounting[y].id ? -1 : 1));
  const rank = (a: Movement) => (x: number, y: number) =>
    Math.abs(banking[x].day - a.day) - Math.abs(banking[y].day - a.day) || (banking[x].id < banking[y].id ? -1 : 1);
  const candidates = (a: Movement, window: number, ok: (b: Movement) => boolean) =>
    [...banking.keys()]
      .filter((k) => {
        const b = banking[k];
        return (
          !taken.has(k) &&
          b.amount !== 0 &&
          b.currency === a.currency &&
          Math.sign(b.amount) === Math.sign(a.amount) &&
          Math.abs(b.day - a.day) <= window &&
          allowed(a, b) &&
          ok(b)
        );
      })
      .sort(rank(a));
  const single: [number, number, (a: Movement, b: Movement) => boolean][] = [
    [1, 0, (a, b) => a.amount === b.amount],
    [2, 3, (a, b) => a.amount === b.amount],
    [
      3,
      7,
      (a, b) =>
        Math.abs(a.amount - b.amount) <= Math.max(Math.abs(a.amount) / 100, U) &&
        norm(a.description) !== '' &&
        jaroWinkler(norm(a.description), norm(b.description)) >= 0.8,
    ],
  ];
  for (const [pass, window, ok] of single) {
    for (const i of byClaimOrder) {
      if (done.has(i)) continue;
      const found = candidates(accounting[i], window, (b) => ok(accounting[i], b));
      if (found.length === 0) continue;
      done.add(i);
      taken.add(found[0]);
      out.push({ accounting: accounting[i].id, banking: [banking[found[0]].id], pass });
    }
  }
  for (const i of byClaimOrder) {
    if (done.has(i)) continue;
    const a = accounting[i];
    const pool = candidates(a, 7, (b) => Math.abs(b.amount) < Math.abs(a.amount)).slice(0, 32);
    let best: number[] | null = null;
    for (let size = 2; size <= 5 && !best; size++) {
      // Every combination of `size` ranks, in rank order; the first that makes the amount.
      const walk = (from: number, chosen: number[]): number[] | null => {
        if (chosen.length === size) {
          return chosen.reduce((s, r) => s + Math.abs(banking[pool[r]].amount), 0) === Math.abs(a.amount) ? chosen : null;
        }
        for (let r = from; r < pool.length; r++) {
          const hit = walk(r + 1, [...chosen, r]);
          if (hit) return hit;
        }
        return null;
      };
      best = walk(0, []);
    }
    if (!best) continue;
    done.add(i);
    for (const r of best) taken.add(pool[r]);
    out.push({ accounting: a.id, banking: best.map((r) => banking[pool[r]].id), pass: 4 });
  }
  return out;
}

function pool(seed: number): MatchInput {
  const next = random(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]) => list[int(list.length)];
  const words = ['Receipt INV-1001', 'Supplier payment', 'Rent March', 'card fee', 'ACME LTD', 'Transfer to savings', ''];
  const amounts = [10, 25.5, 40, 99.99, 100, 250, 1000, 1000.01, 12.3456];
  const accounting: Movement[] = [];
  const banking: Movement[] = [];
  const accountsA = ['A1', 'A2', 'A3'];
  const accountsB = ['B1', 'B2', 'B3', 'B4'];
  const n = 8 + int(30);
  for (let i = 0; i < n; i++) {
    const currency = next() < 0.85 ? 'GBP' : 'EUR';
    const sign = next() < 0.6 ? 1 : -1;
    const amount = sign * Math.round(pick(amounts) * (next() < 0.3 ? 1 + int(5) : 1) * U);
    const a: Movement = {
      id: `a${String(int(1000)).padStart(3, '0')}-${i}`,
      account: pick(accountsA),
      currency,
      day: int(40),
      amount,
      description: pick(words),
    };
    accounting.push(a);
    const fate = next();
    const bank = (over: Partial<Movement>) =>
      banking.push({ ...a, id: `b${String(int(1000)).padStart(3, '0')}-${banking.length}`, account: pick(accountsB), ...over });
    if (fate < 0.4) bank({ day: a.day + int(9) - 4 });
    else if (fate < 0.55)
      bank({
        day: a.day + int(15) - 7,
        amount: a.amount + sign * int(2 * U),
        description: a.description.toUpperCase() + (next() < 0.5 ? ' ref' : ''),
      });
    else if (fate < 0.7) {
      const cut = Math.round((a.amount * (1 + int(9))) / 10);
      bank({ day: a.day + int(7) - 3, amount: cut });
      bank({ day: a.day + int(7) - 3, amount: a.amount - cut });
    }
  }
  for (let i = int(10); i > 0; i--) {
    banking.push({
      id: `b${String(int(1000)).padStart(3, '0')}-x${i}`,
      account: pick(accountsB),
      currency: 'GBP',
      day: int(40),
      amount: (next() < 0.5 ? 1 : -1) * Math.round(pick(amounts) * U),
      description: pick(words),
    });
  }
  const accountPairs: [string, string][] = [];
  if (next() < 0.7) accountPairs.push(['A1', 'B1']);
  if (next() < 0.5) accountPairs.push(['A2', 'B2'], ['A2', 'B3']);
  return { accounting, banking, accountPairs };
}

describe('matching, against a plain reading of the rules', () => {
  it('agrees on 400 generated pools', () => {
    const passes = new Set<number>();
    for (let seed = 1; seed <= 400; seed++) {
      const input = pool(seed);
      const got = run([...input.accounting], [...input.banking], input.accountPairs);
      expect(got, `seed ${seed}`).toEqual(oracle(input));
      for (const m of got) passes.add(m.pass);
    }
    expect([...passes].sort()).toEqual([1, 2, 3, 4]);
  });
});
