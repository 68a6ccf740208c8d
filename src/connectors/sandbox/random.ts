/**
 * Deterministic randomness for the Sandbox: every value is a pure function of a seed and some keys, so any
 * record can be regenerated on its own (no state to keep, memory flat at any size) and a company looks the
 * same every time it is generated.
 */

/** A well-mixed 32-bit hash of integers (murmur3's finaliser over a running combination). */
export function hash32(...keys: number[]): number {
  let h = 0x811c9dc5;
  for (const key of keys) {
    h = Math.imul(h ^ (key | 0), 0x01000193);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** A uniform number in [0, 1) for these keys. */
export function unit(...keys: number[]): number {
  return hash32(...keys) / 0x1_0000_0000;
}

/** A uniform integer in [min, max] for these keys. */
export function intBetween(min: number, max: number, ...keys: number[]): number {
  return min + Math.floor(unit(...keys) * (max - min + 1));
}

/** One of `items`, chosen by these keys. */
export function pick<T>(items: readonly T[], ...keys: number[]): T {
  return items[Math.floor(unit(...keys) * items.length)];
}

/** Rounds to cents (amounts are decimals with two places). */
export function cents(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Stable small integers for string keys (e.g. a data type name used as a key). */
export function keyOf(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * A GUID-shaped id whose text order follows `index` (so records stream in id order): the first 12 hex digits
 * are the index, the rest are derived from the seed and the type.
 */
export function sortableGuid(seed: number, typeKey: number, index: number): string {
  const hex = index.toString(16).padStart(12, '0');
  const tail = hash32(seed, typeKey, index).toString(16).padStart(8, '0') + hash32(index, typeKey, seed).toString(16).padStart(8, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${tail.slice(0, 3)}-${(8 + (parseInt(tail[3], 16) & 3)).toString(16)}${tail.slice(4, 7)}-${tail.slice(7, 16)}${hex.slice(0, 3)}`;
}

/** A business-local date-time (`YYYY-MM-DDT00:00:00`), the form Codat uses for issue and due dates. */
export function localDate(day: string): string {
  return `${day}T00:00:00`;
}
