import { INV30, r4 } from './hash.js';

/**
 * How the records of one data type move from sync to sync (epoch to epoch), as pure functions of
 * (seed, index, epoch) (`seed` here is the company's 30-bit seed key, `Ctx.hs`):
 * - epoch 0 holds `base` records (indices 0..base-1); each later epoch appends `growth` more;
 * - a deletable record is deleted at an epoch drawn once from a geometric law with rate `deleteRate` per
 *   epoch (so "deleted at epoch d" is O(1) to test, and once deleted it stays deleted);
 * - a record changes at epochs drawn as geometric gaps with rate `changeRate` (about `changeRate` of the
 *   records change per epoch): the j-th change is `created + gap(0) + ... + gap(j)`, each gap a function of
 *   (seed, type, index, j), so finding a record's changes up to epoch e costs O(1 + changes) however large e is.
 */
export interface Lifecycle {
  /** `keyOf(dataType)`, as in ids. */
  readonly key: number;
  /** The key as a 30-bit integer, for hashing. */
  readonly hk: number;
  readonly base: number;
  readonly growth: number;
  readonly changeRate: number;
  readonly deleteRate: number;
  /** ln(1 - changeRate), ln(1 - deleteRate). */
  readonly lnChange: number;
  readonly lnDelete: number;
  /** P(gap <= span) for small spans, for changes and deletions. */
  readonly withinChange: Float64Array;
  readonly withinDelete: Float64Array;
}

export const SALT_DELETE = 0x5eed_de1;
export const SALT_CHANGE = 0x0c4a_0000;

export function lifecycle(key: number, base: number, growth: number, changeRate: number, deleteRate: number): Lifecycle {
  const lnChange = changeRate > 0 ? Math.log1p(-Math.min(changeRate, 0.99)) : 0;
  const lnDelete = deleteRate > 0 ? Math.log1p(-Math.min(deleteRate, 0.99)) : 0;
  return {
    key,
    hk: key >>> 2,
    base,
    growth,
    changeRate,
    deleteRate,
    lnChange,
    lnDelete,
    withinChange: withinTable(lnChange),
    withinDelete: withinTable(lnDelete),
  };
}

/** Growth per epoch for a base count: about 1 %, at least 1. */
export function onePercent(base: number): number {
  return Math.max(1, Math.round(base / 100));
}

export function countAt(lc: Lifecycle, epoch: number): number {
  return lc.base + epoch * lc.growth;
}

export function createdEpoch(lc: Lifecycle, index: number): number {
  return index < lc.base ? 0 : 1 + Math.floor((index - lc.base) / lc.growth);
}

/** Geometric gap >= 1 with ln(1 - p) = `ln`, from a 30-bit hash. */
function gap(hash: number, ln: number): number {
  return 1 + Math.floor(Math.log(1 - hash * INV30) / ln);
}

/** Probability that a geometric gap with ln(1 - p) = `ln` is at most `span` epochs: 1 - (1 - p)^span. */
function within(table: Float64Array, ln: number, span: number): number {
  if (span <= 0) return 0;
  return span < table.length ? table[span] : withinExact(ln, span);
}

/** The margin keeps the shortcut on the safe side of rounding: near the boundary the exact gap decides. */
function withinExact(ln: number, span: number): number {
  return 1 - Math.exp(ln * span) + 1e-9;
}

function withinTable(ln: number): Float64Array {
  const table = new Float64Array(64);
  for (let k = 1; k < 64; k++) table[k] = withinExact(ln, k);
  return table;
}

/**
 * Epoch at which the record is deleted, or Infinity if it is not deleted by `epoch` (default: ever). Testing
 * against `epoch` first spares the logarithm for the records that survive, which are nearly all.
 */
export function deletedEpoch(seed: number, lc: Lifecycle, index: number, deletable = true, epoch = Infinity): number {
  if (!deletable || lc.deleteRate <= 0) return Infinity;
  const hash = r4(seed, lc.hk, index, SALT_DELETE);
  const created = createdEpoch(lc, index);
  if (epoch !== Infinity && hash * INV30 >= within(lc.withinDelete, lc.lnDelete, epoch - created)) return Infinity;
  return created + gap(hash, lc.lnDelete);
}

/**
 * The j-th change epoch after `from` (j = 0, 1, ...) is `from + gaps`; returns the epoch of change `j` given
 * the previous one (Infinity when it falls after `last`, tested without a logarithm). Loop:
 * `for (let j = 0, k = nextChange(..., created, 0, e); k <= e; k = nextChange(..., k, ++j, e))`.
 */
export function nextChange(seed: number, lc: Lifecycle, index: number, previous: number, j: number, last = Infinity): number {
  if (lc.changeRate <= 0 || previous >= last) return Infinity;
  const hash = r4(seed, lc.hk, index, SALT_CHANGE + j);
  if (last !== Infinity && hash * INV30 >= within(lc.withinChange, lc.lnChange, last - previous)) return Infinity;
  return previous + gap(hash, lc.lnChange);
}

/** Latest change epoch <= `epoch` (and before deletion), or 0 when the record is as created. */
export function lastChange(seed: number, lc: Lifecycle, index: number, epoch: number, created = createdEpoch(lc, index)): number {
  let last = 0;
  for (let j = 0, k = nextChange(seed, lc, index, created, 0, epoch); k <= epoch; k = nextChange(seed, lc, index, k, ++j, epoch)) last = k;
  return last;
}
