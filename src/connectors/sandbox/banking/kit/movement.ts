import { h4, h4p, pairState } from './fast.js';

/** How a data type moves between epochs (syncs). */
export interface MovementRates {
  /** Share of the records existing at epoch k-1 that epoch k appends (at least `minAdd`). */
  growth: number;
  /** Chance that a record changes at a given epoch (chosen by hash of seed, type, index and epoch). */
  change: number;
  /** Share of the records existing at epoch k-1 that epoch k deletes (rounded, so 0 below 100 records). */
  delete: number;
  /** Fewest records appended per epoch. */
  minAdd: number;
}

export const DEFAULT_RATES: MovementRates = { growth: 0.01, change: 0.02, delete: 0.005, minAdd: 1 };

const TWO32 = 0x1_0000_0000;
/** Multipliers stay below 2^20 so that `a * i` is exact for up to 2^33 records. */
const MAX_MULTIPLIER = 1 << 20;

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * The life of the records of one data type, as a pure function of (seed, type, index, epoch): nothing is
 * stored per record. Records are numbered in creation order; epoch 0 holds `base` of them and each later
 * epoch appends about 1%, changes about 2% and deletes about 0.5%.
 *
 * Deletions at epoch k are the indices `i < N(k-1)` with `(a*i + b) mod N(k-1) < D(k)`, an affine permutation
 * per epoch, so deciding whether a record is gone costs one multiplication per epoch and the count is exact.
 * A deleted record stays deleted in every later epoch.
 */
export class Movement {
  /** `totals[k]`: records created up to and including epoch k. */
  readonly totals: number[] = [];
  private readonly delA: number[] = [0];
  private readonly delB: number[] = [0];
  private readonly delN: number[] = [0];
  private readonly delCount: number[] = [0];
  private readonly changeBelow: number;
  /** `pairState(seed, typeKey)`: the change hash of (seed, type, i, k) from there costs two mixing rounds. */
  private readonly changeState: number;

  constructor(
    readonly seed: number,
    readonly typeKey: number,
    readonly base: number,
    readonly epoch: number,
    rates: MovementRates = DEFAULT_RATES,
  ) {
    if (!Number.isInteger(epoch) || epoch < 0) throw new Error(`epoch must be a non-negative integer, got ${epoch}`);
    this.changeBelow = Math.floor(rates.change * TWO32);
    this.changeState = pairState(seed, typeKey);
    let n = base;
    this.totals.push(n);
    for (let k = 1; k <= epoch; k++) {
      const count = Math.round(rates.delete * n);
      let a = 1 + (h4(seed, typeKey, k, 0x5eed) % Math.max(1, Math.min(n, MAX_MULTIPLIER) - 1));
      while (n > 1 && gcd(a, n) !== 1) a++;
      this.delA.push(a);
      this.delB.push(n > 0 ? h4(seed, typeKey, k, 0xb0b) % n : 0);
      this.delN.push(n);
      this.delCount.push(count);
      n += Math.max(rates.minAdd, Math.round(rates.growth * n));
      this.totals.push(n);
    }
  }

  /** Records created up to the current epoch (live or not). */
  get total(): number {
    return this.totals[this.epoch];
  }

  /** The epoch that created record `i`. */
  createdAt(i: number): number {
    if (i < this.base) return 0;
    let k = 1;
    while (i >= this.totals[k]) k++;
    return k;
  }

  /** The epoch (≤ current) at which record `i` was deleted, or 0 if it is live. */
  deletedAt(i: number, created = this.createdAt(i)): number {
    for (let k = created + 1; k <= this.epoch; k++) {
      const n = this.delN[k];
      if (i >= n || this.delCount[k] === 0) continue;
      // (a·i + b) mod n without a floating-point remainder (slow); exact for a·i + b < 2^53.
      const x = this.delA[k] * i + this.delB[k];
      let r = x - Math.floor(x / n) * n;
      if (r < 0) r += n;
      else if (r >= n) r -= n;
      if (r < this.delCount[k]) return k;
    }
    return 0;
  }

  /** Whether record `i` exists at the current epoch. */
  isLive(i: number): boolean {
    return i < this.total && this.deletedAt(i) === 0;
  }

  /** The latest epoch (≤ current, after its creation) at which record `i` changed, or 0. */
  changedAt(i: number, created = this.createdAt(i)): number {
    for (let k = this.epoch; k > created; k--) {
      if (h4p(this.changeState, i, k) < this.changeBelow) return k;
    }
    return 0;
  }

  /** Every epoch (ascending, ≤ current) at which record `i` changed. */
  changes(i: number, created = this.createdAt(i)): number[] {
    const out: number[] = [];
    for (let k = created + 1; k <= this.epoch; k++) {
      if (h4p(this.changeState, i, k) < this.changeBelow) out.push(k);
    }
    return out;
  }

  /** The first epoch after its creation at which record `i` changed, or 0. */
  firstChange(i: number, created = this.createdAt(i)): number {
    for (let k = created + 1; k <= this.epoch; k++) {
      if (h4p(this.changeState, i, k) < this.changeBelow) return k;
    }
    return 0;
  }
}
