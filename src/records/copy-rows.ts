import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A value of one column of a row handed to COPY: text, a number, a 64-bit integer, or null. */
export type CopyValue = string | number | bigint | null;

const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One field in COPY's text format: backslash, tab, newline and carriage return escaped; null as `\N`. */
export function copyField(value: CopyValue): string {
  if (value === null) return '\\N';
  if (typeof value !== 'string') return String(value);
  // Served JSON rarely holds a backslash (JSON.stringify writes control characters as escapes already).
  return SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ESCAPES[c]) : value;
}

/** Rows are sent in chunks of this many bytes (a row may straddle two: COPY reads a byte stream). */
const CHUNK_BYTES = 256 * 1024;
const TAB = 0x09;
const NEWLINE = 0x0a;

/**
 * Appends rows to a table with `COPY … FROM STDIN` on this client (inside its transaction, if one is open).
 * Postgres' bulk path: no statement to parse per batch and no array literal to build and unescape, which for a
 * batch of 1,000 invoices cost the server process 80 µs a record against 8 here (docs/benchmarks.md).
 * Each field is written straight into the chunk's bytes: no row or chunk is built as a string first.
 * `table` and `columns` are the caller's constants, never input.
 */
export async function copyRows(
  client: pg.PoolClient,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly CopyValue[]>,
): Promise<void> {
  await pipeline(Readable.from(chunksOf(rows)), client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`)));
}

function* chunksOf(rows: Iterable<readonly CopyValue[]>): Generator<Buffer> {
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let at = 0;
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const text = copyField(row[i]);
      // At most 3 bytes of UTF-8 per UTF-16 unit, and the separator after it.
      const most = text.length * 3 + 1;
      if (at + most > chunk.length) {
        if (at > 0) yield chunk.subarray(0, at);
        chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, most));
        at = 0;
      }
      at += chunk.write(text, at);
      chunk[at++] = i === row.length - 1 ? NEWLINE : TAB;
    }
  }
  if (at > 0) yield chunk.subarray(0, at);
}
