/**
 * Fixed-arity forms of `hash32`/`unit`/`sortableGuid` from `../../random.ts`, with identical output.
 * The generic helpers take rest parameters and build strings with `padStart`/`slice`; in the hot loops of
 * the banking and commerce Sandboxes (millions of records) they cost more than the rest of a record, so
 * these versions avoid allocation. `test/connectors/sandbox/banking/kit.test.ts` checks they agree.
 */

function mix(h: number, key: number): number {
  h = Math.imul(h ^ (key | 0), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

const SEED = 0x811c9dc5;
const TWO32 = 0x1_0000_0000;

export function h1(a: number): number {
  return mix(SEED, a) >>> 0;
}
export function h2(a: number, b: number): number {
  return mix(mix(SEED, a), b) >>> 0;
}
export function h3(a: number, b: number, c: number): number {
  return mix(mix(mix(SEED, a), b), c) >>> 0;
}
export function h4(a: number, b: number, c: number, d: number): number {
  return mix(mix(mix(mix(SEED, a), b), c), d) >>> 0;
}
export function h5(a: number, b: number, c: number, d: number, e: number): number {
  return mix(mix(mix(mix(mix(SEED, a), b), c), d), e) >>> 0;
}

/** Uniform in [0, 1) for these keys (same values as `unit`). */
export function u2(a: number, b: number): number {
  return h2(a, b) / TWO32;
}
export function u3(a: number, b: number, c: number): number {
  return h3(a, b, c) / TWO32;
}
export function u4(a: number, b: number, c: number, d: number): number {
  return h4(a, b, c, d) / TWO32;
}
export function u5(a: number, b: number, c: number, d: number, e: number): number {
  return h5(a, b, c, d, e) / TWO32;
}

/** One of `items` for a uniform `u` in [0, 1). */
export function choose<T>(items: readonly T[], u: number): T {
  return items[Math.floor(u * items.length)];
}

const HEX = '0123456789abcdef';
const HEX1: string[] = HEX.split('');

const CODE: number[] = HEX.split('').map((c) => c.charCodeAt(0));
const DASH = 45;

/**
 * `sortableGuid(seed, typeKey, index)` built in one go: a single flat string from character codes, rather than
 * a dozen concatenations whose rope the serialiser would have to flatten (about twice as fast overall).
 */
export function guid(seed: number, typeKey: number, index: number): string {
  return guidOf(index, h3(seed, typeKey, index), h3(index, typeKey, seed));
}

/**
 * Ids of one data type for one seed, for hot loops: `ids.of(i) === guid(seed, typeKey, i)`, with the seed and
 * type part of the first hash computed once.
 */
export class Ids {
  private readonly prefix: number;
  constructor(
    readonly seed: number,
    readonly typeKey: number,
  ) {
    this.prefix = mix(mix(SEED, seed), typeKey);
  }

  of(index: number): string {
    return guidOf(index, mix(this.prefix, index) >>> 0, h3(index, this.typeKey, this.seed));
  }
}

/** The running state after two keys, so `h4p(pairState(a, b), c, d) === h4(a, b, c, d)`. */
export function pairState(a: number, b: number): number {
  return mix(mix(SEED, a), b);
}
export function h4p(state: number, c: number, d: number): number {
  return mix(mix(state, c), d) >>> 0;
}

/** The running state of `h3(seed, …)` after its first key, so `h3s(seedState(seed), b, c) === h3(seed, b, c)`. */
export function seedState(seed: number): number {
  return mix(SEED, seed);
}
export function h3s(state: number, b: number, c: number): number {
  return mix(mix(state, b), c) >>> 0;
}

function guidOf(index: number, a: number, b: number): string {
  const hi = Math.floor(index / 0x1_0000_00); // top 24 bits of the 48-bit index
  const lo = index - hi * 0x1_0000_00;
  const c = CODE;
  return String.fromCharCode(
    c[(hi >>> 20) & 15],
    c[(hi >>> 16) & 15],
    c[(hi >>> 12) & 15],
    c[(hi >>> 8) & 15],
    c[(hi >>> 4) & 15],
    c[hi & 15],
    c[(lo >>> 20) & 15],
    c[(lo >>> 16) & 15],
    DASH,
    c[(lo >>> 12) & 15],
    c[(lo >>> 8) & 15],
    c[(lo >>> 4) & 15],
    c[lo & 15],
    DASH,
    c[4],
    c[a >>> 28],
    c[(a >>> 24) & 15],
    c[(a >>> 20) & 15],
    DASH,
    c[8 + ((a >>> 16) & 3)],
    c[(a >>> 12) & 15],
    c[(a >>> 8) & 15],
    c[(a >>> 4) & 15],
    DASH,
    c[a & 15],
    c[b >>> 28],
    c[(b >>> 24) & 15],
    c[(b >>> 20) & 15],
    c[(b >>> 16) & 15],
    c[(b >>> 12) & 15],
    c[(b >>> 8) & 15],
    c[(b >>> 4) & 15],
    c[b & 15],
    c[(hi >>> 20) & 15],
    c[(hi >>> 16) & 15],
    c[(hi >>> 12) & 15],
  );
}

const DIGITS2: string[] = [];
for (let i = 0; i < 100; i++) DIGITS2.push(i < 10 ? `0${i}` : `${i}`);

/** Two-digit zero-padded text of 0..99. */
export function two(n: number): string {
  return DIGITS2[n];
}

/** `HH:MM:SS` of a second of the day. */
export function clock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return DIGITS2[h] + ':' + DIGITS2[m] + ':' + DIGITS2[seconds % 60];
}

/** A number of cents as the decimal amount served on the wire. */
export function money(cents: number): number {
  return cents / 100;
}

/** `count` decimal digits drawn from a hash of `key`, as text (keeps leading zeros). */
export function digitsOf(count: number, key: number): string {
  let out = '';
  for (let i = 0; out.length < count; i++) {
    let v = h2(key, i);
    for (let j = 0; j < 9 && out.length < count; j++) {
      out += HEX1[v % 10];
      v = Math.floor(v / 10);
    }
  }
  return out;
}
