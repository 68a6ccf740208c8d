/*
 * Lists of record ids as one text and where each id ends: what a part carries its ids in (aged-facts.ts), as its
 * digest stores them (aged-digest.ts). Putting a million-record company's parts together then compares and copies
 * ranges of a few texts, and makes no string per id.
 */

/** Ids as one text: id i runs from the end of id i − 1 (0 for the first) to `ends[i]`. */
export interface IdList {
  text: string;
  ends: Int32Array;
}

/** Where id `i` of a list starts in its text. */
export const idStart = (list: IdList, i: number): number => (i === 0 ? 0 : list.ends[i - 1]);

/** A list of these ids. */
export function idListOf(ids: readonly string[]): IdList {
  const ends = new Int32Array(ids.length);
  for (let i = 0, end = 0; i < ids.length; i++) ends[i] = end += ids[i].length;
  return { text: ids.join(''), ends };
}

/**
 * Id `a` of `A` against id `b` of `B`, as JavaScript orders strings (by UTF-16 code unit, a prefix first): negative,
 * zero when they are the same id, positive.
 */
export function compareIds(A: IdList, a: number, B: IdList, b: number): number {
  const from = idStart(A, a);
  const to = idStart(B, b);
  const lengthA = A.ends[a] - from;
  const lengthB = B.ends[b] - to;
  const common = Math.min(lengthA, lengthB);
  const textA = A.text;
  const textB = B.text;
  for (let k = 0; k < common; k++) {
    const difference = textA.charCodeAt(from + k) - textB.charCodeAt(to + k);
    if (difference !== 0) return difference;
  }
  return lengthA - lengthB;
}

/** Whether id `a` of `A` is id `b` of `B`. */
export function sameId(A: IdList, a: number, B: IdList, b: number): boolean {
  return A.ends[a] - idStart(A, a) === B.ends[b] - idStart(B, b) && compareIds(A, a, B, b) === 0;
}
