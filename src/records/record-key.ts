import { sql } from 'kysely';
import type { SqlDialect } from '../storage/dialect.js';

/**
 * A stored document's key: `version * 2^32 + position`. A version's documents form one contiguous key range in
 * position order, so a page of an unfiltered list is a range read and dropping a version is a range delete.
 * Keys pass BigInt to SQLite and text to Postgres (both hold 64-bit integers; a double would not, past 2^21
 * versions).
 */
const POSITION_BITS = 32n;

export function recordKey(dialect: SqlDialect, version: number, position: number): bigint | string {
  const key = (BigInt(version) << POSITION_BITS) + BigInt(position);
  return dialect.name === 'postgres' ? key.toString() : key;
}

/** The first key of a version and the first key after it. */
export function versionKeyRange(dialect: SqlDialect, version: number): [bigint | string, bigint | string] {
  return [recordKey(dialect, version, 0), recordKey(dialect, version + 1, 0)];
}

/** Selects `doc_key` as text: SQLite would hand a 64-bit integer back as a double, which loses digits past 2^53. */
export const DOC_KEY_TEXT = sql<string>`CAST(doc_key AS TEXT)`.as('doc_key');

/** A document key as read back from the store, in the form this dialect binds (see recordKey). */
export function docKey(dialect: SqlDialect, stored: number | bigint | string): bigint | string {
  return dialect.name === 'postgres' ? String(stored) : BigInt(stored);
}

/** The version whose key range holds a document key. */
export function versionOfKey(key: bigint | string): number {
  return Number(BigInt(key) >> POSITION_BITS);
}
