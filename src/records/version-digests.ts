import type { Kysely } from 'kysely';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Store } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import { createFencedBatches, type WriteFence } from './record-sink.js';

/*
 * What a report keeps of one data-set version, made when the sync writes it (a digest: its `kind` says whose, the
 * bytes are that report's business). Written by the sync before it completes, so a version is current with its
 * digests; deleted with the version (version-deletion.ts). A complete version never changes, so neither does
 * its digest.
 */

/**
 * The bytes of one stored piece at most: large digests (a hundred megabytes) go in many rows. Postgres reads a row's
 * value whole into memory on both sides; 1 MiB pieces were written and read fastest of 0.25, 1 and 8 MiB
 * (docs/benchmarks.md).
 */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Stores a version's digest of a kind, in place of any it had, in one transaction that commits only while the sync's
 * run holds its operation (`fence`, as the version's own rows: record-sink.ts).
 */
export async function saveVersionDigest(store: Store, version: number, kind: string, bytes: Uint8Array, fence?: WriteFence): Promise<void> {
  const pieces: Buffer[] = [];
  // Both drivers bind a Buffer as bytes (views: nothing is copied).
  for (let at = 0; pieces.length === 0 || at < bytes.byteLength; at += CHUNK_BYTES) {
    const piece = bytes.subarray(at, at + CHUNK_BYTES);
    pieces.push(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
  }
  await createFencedBatches(store, fence).run(
    () => {
      const sqlite = store.sqlite!;
      sqlite.prepare('DELETE FROM version_digests WHERE version = ? AND kind = ?').run(version, kind);
      const insert = sqlite.prepare('INSERT INTO version_digests (version, kind, chunk, bytes) VALUES (?, ?, ?, ?)');
      pieces.forEach((piece, chunk) => insert.run(version, kind, chunk, piece));
    },
    async (trx) => {
      await trx.deleteFrom('version_digests').where('version', '=', version).where('kind', '=', kind).execute();
      for (const [chunk, piece] of pieces.entries())
        await trx.insertInto('version_digests').values({ version, kind, chunk, bytes: piece }).execute();
    },
  );
}

/**
 * A version's digest of a kind, in its stored pieces (on Postgres one piece, the whole digest); undefined when it has
 * none.
 */
export async function readVersionDigest(store: Store, version: number, kind: string): Promise<Uint8Array[] | undefined> {
  if (store.pgPool) return copiedDigest(store.pgPool, version, kind);
  const rows = await store.db
    .selectFrom('version_digests')
    .select(['chunk', 'bytes'])
    .where('version', '=', version)
    .where('kind', '=', kind)
    .orderBy('chunk')
    .execute();
  // Pieces 0 to n − 1, none missing: anything else is no digest.
  if (rows.length === 0 || rows.some((row, index) => Number(row.chunk) !== index)) return undefined;
  return rows.map((row) => row.bytes);
}

/** COPY's binary format: its signature, then a flags word and the length of a header extension. */
const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * Postgres: the digest by COPY in binary, its pieces' bytes put straight into one buffer of the digest's size (asked
 * first). A query answers bytea as hexadecimal text, which took four times as long to read and decode (1.3 s against
 * 0.3 s for 130 MB: docs/benchmarks.md), and a buffer per piece and one for the whole would be copied once more. COPY
 * takes no parameters: the version is an integer and the kind is quoted by the driver.
 */
async function copiedDigest(pool: pg.Pool, version: number, kind: string): Promise<Uint8Array[] | undefined> {
  if (!Number.isSafeInteger(version)) throw new Error(`not a version: ${version}`);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const { rows } = await client.query<{ pieces: number; bytes: string }>(
      'SELECT count(*)::integer AS pieces, coalesce(sum(octet_length(bytes)), 0)::text AS bytes FROM version_digests WHERE version = $1 AND kind = $2',
      [version, kind],
    );
    const pieces = rows[0].pieces;
    if (pieces === 0) return undefined;
    const whole = new Uint8Array(Number(rows[0].bytes));
    const stream = client.query(
      copyTo(
        `COPY (SELECT chunk, bytes FROM version_digests WHERE version = ${version} AND kind = ${client.escapeLiteral(kind)} ORDER BY chunk) TO STDOUT (FORMAT binary)`,
      ),
    );
    const reader = copyReader(whole);
    for await (const data of stream) reader.add(data as Buffer);
    // Pieces 0 to n − 1, none missing, filling the digest exactly: anything else is no digest.
    return reader.pieces() === pieces && reader.filled() ? [whole] : undefined;
  } catch (err) {
    // A COPY stopped half-way leaves the connection mid-answer: the pool must discard it, not lend it again.
    broken = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.release(broken);
  }
}

/**
 * Reads COPY's binary format as it streams (`add`, in whatever pieces it comes): each row's field count (−1 ends the
 * data), then each field's length and bytes; here `chunk` (int4) and `bytes`, which are copied into `whole` one after
 * another. Counts the pieces that came in order.
 */
function copyReader(whole: Uint8Array) {
  const HEADER = COPY_SIGNATURE.length + 8;
  // The bytes of what is being read when it straddles two pieces of the stream.
  let pending = Buffer.alloc(0);
  let state: 'header' | 'extension' | 'row' | 'data' | 'end' = 'header';
  let need = HEADER;
  let filledTo = 0;
  let dataLeft = 0;
  let rows = 0;
  let inOrder = true;
  let overflow = false;
  return {
    add(data: Buffer) {
      let at = 0;
      while (at < data.length && state !== 'end') {
        if (state === 'data') {
          const n = Math.min(dataLeft, data.length - at);
          // More than the size asked first (a digest replaced in between): read to the end, then no digest.
          if (filledTo + n > whole.length) overflow = true;
          else whole.set(data.subarray(at, at + n), filledTo);
          filledTo += n;
          dataLeft -= n;
          at += n;
          if (dataLeft === 0) {
            state = 'row';
            need = 2;
          }
          continue;
        }
        // Gather `need` bytes of a header.
        const n = Math.min(need - pending.length, data.length - at);
        pending = Buffer.concat([pending, data.subarray(at, at + n)]);
        at += n;
        if (pending.length < need) break;
        const head = pending;
        pending = Buffer.alloc(0);
        if (state === 'header') {
          if (!head.subarray(0, COPY_SIGNATURE.length).equals(COPY_SIGNATURE))
            throw new Error('COPY answered something other than its binary format');
          state = 'extension';
          need = head.readUInt32BE(COPY_SIGNATURE.length + 4);
          if (need === 0) {
            state = 'row';
            need = 2;
          }
        } else if (state === 'extension') {
          state = 'row';
          need = 2;
        } else if (need === 2) {
          const fields = head.readInt16BE(0);
          if (fields === -1) state = 'end';
          else if (fields !== 2) throw new Error("a digest's row came in a shape COPY does not write");
          else need = 12;
        } else {
          // chunk: length 4, value; bytes: length, then the data.
          if (head.readInt32BE(0) !== 4) throw new Error("a digest's row came in a shape COPY does not write");
          if (head.readInt32BE(4) !== rows) inOrder = false;
          rows++;
          dataLeft = head.readInt32BE(8);
          if (dataLeft < 0) throw new Error("a digest's piece came without bytes");
          state = 'data';
          if (dataLeft === 0) {
            state = 'row';
            need = 2;
          }
        }
      }
    },
    /** How many pieces came, numbered 0, 1, … in order; −1 if not in order or not ended. */
    pieces: () => (inOrder && state === 'end' ? rows : -1),
    filled: () => !overflow && filledTo === whole.length,
  };
}

/** Which of the versions have a digest of the kind. */
export async function digestedVersions(db: Kysely<Database>, versions: number[], kind: string): Promise<Set<number>> {
  if (versions.length === 0) return new Set();
  const rows = await db
    .selectFrom('version_digests')
    .select('version')
    .where('version', 'in', versions)
    .where('kind', '=', kind)
    .where('chunk', '=', 0)
    .execute();
  return new Set(rows.map((row) => Number(row.version)));
}

/** Deletes every digest of a version. */
export async function deleteVersionDigests(db: Kysely<Database>, version: number): Promise<void> {
  await db.deleteFrom('version_digests').where('version', '=', version).execute();
}
