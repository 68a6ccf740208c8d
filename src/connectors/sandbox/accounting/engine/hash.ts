/**
 * Hashing for the generators: the same mixing as `hash32` in `../../random.ts`, in fixed-arity forms that
 * return 30-bit integers. V8 keeps such values unboxed (small integers), which matters because the generators
 * draw tens of values per record: a function returning a double or a full 32-bit integer allocates a heap
 * number whenever it is not inlined. Divide by 2^30 (`* INV30`) at the call site for a uniform in [0, 1).
 *
 * Within a record, values come from `Rng`, a small sequential generator seeded once per record, so a record
 * costs one hash plus cheap steps instead of one hash per value.
 */

const SEED = 0x811c9dc5;
export const INV30 = 1 / 0x4000_0000;

function mix(h: number, key: number): number {
  h = Math.imul(h ^ (key | 0), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/** 30-bit hashes of 2 to 4 integers. */
export function r2(a: number, b: number): number {
  return mix(mix(SEED, a), b) >>> 2;
}

export function r3(a: number, b: number, c: number): number {
  return mix(mix(mix(SEED, a), b), c) >>> 2;
}

export function r4(a: number, b: number, c: number, d: number): number {
  return mix(mix(mix(mix(SEED, a), b), c), d) >>> 2;
}

/** Uniform in [0, 1) (for code off the hot paths). */
export function u4(a: number, b: number, c: number, d: number): number {
  return r4(a, b, c, d) * INV30;
}

/**
 * A sequential generator (mulberry32 steps) whose state lives in an Int32Array, so stepping it allocates
 * nothing. Each user keeps its own instance: nested generators must not share one.
 */
export class Rng {
  private readonly s = new Int32Array(1);

  seed(a: number, b: number, c: number): void {
    this.s[0] = mix(mix(mix(SEED, a), b), c);
  }

  /** Next 30-bit integer. */
  next(): number {
    let t = (this.s[0] = (this.s[0] + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 2;
  }

  /** Integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * INV30 * n);
  }
}

/** Seed as a 30-bit integer mixing all of its bits. */
export function seedKey(seed: number): number {
  return r2(seed, 0x5eed);
}

const H = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const TWO_24 = 0x100_0000;

/**
 * Same text as `sortableGuid(seed, typeKey, index)` from `../../random.ts` (the first 12 hex digits are the
 * index, so ids sort in index order), built as one flat string from character codes: the generators make
 * several ids per record. With hi/lo the index's upper/lower 24 bits and a, b the two hashes, the layout is
 * `hi lo[0..1] - lo[2..5] - 4 a[0..2] - v a[4..6] - a[7] b hi[0..2]` with v = 8 + (a[3] & 3).
 */
export function guid(seed: number, typeKey: number, index: number): string {
  const hi = Math.floor(index / TWO_24);
  const lo = index - hi * TWO_24;
  const a = mix(mix(mix(SEED, seed), typeKey), index) >>> 0;
  const b = mix(mix(mix(SEED, index), typeKey), seed) >>> 0;
  return String.fromCharCode(
    H[hi >>> 20],
    H[(hi >>> 16) & 15],
    H[(hi >>> 12) & 15],
    H[(hi >>> 8) & 15],
    H[(hi >>> 4) & 15],
    H[hi & 15],
    H[lo >>> 20],
    H[(lo >>> 16) & 15],
    45,
    H[(lo >>> 12) & 15],
    H[(lo >>> 8) & 15],
    H[(lo >>> 4) & 15],
    H[lo & 15],
    45,
    52,
    H[a >>> 28],
    H[(a >>> 24) & 15],
    H[(a >>> 20) & 15],
    45,
    H[8 + ((a >>> 16) & 3)],
    H[(a >>> 12) & 15],
    H[(a >>> 8) & 15],
    H[(a >>> 4) & 15],
    45,
    H[a & 15],
    H[b >>> 28],
    H[(b >>> 24) & 15],
    H[(b >>> 20) & 15],
    H[(b >>> 16) & 15],
    H[(b >>> 12) & 15],
    H[(b >>> 8) & 15],
    H[(b >>> 4) & 15],
    H[b & 15],
    H[hi >>> 20],
    H[(hi >>> 16) & 15],
    H[(hi >>> 12) & 15],
  );
}
