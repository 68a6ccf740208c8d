import { sql } from 'kysely';
import type { Store } from '../storage/database.js';
import { DOC_KEY_TEXT } from './record-key.js';
import { previousRecordOf, type PreviousRecord } from './data-set-writer.js';
import { ROW_COLUMNS, type FencedBatches } from './record-sink.js';

/** Positions copied per statement: each statement holds SQLite's write lock, which the API's own writes wait for. */
const COPY_SLICE = 20_000;

/**
 * The previous version as the staged writer (staged-writer.ts) composes the new one beside it: the rows of the
 * ids that arrive, documents by key, where a new id goes among its records, and its positions carried over.
 * `prev` is null on a first sync: no rows, and every new id goes first.
 */
export function createPreviousVersion(store: Store, prev: number | null, version: number, batches: FencedBatches) {
  const { db, dialect } = store;
  const sqlite = store.sqlite;
  /** The previous record the last new id was placed before (see rankOf). */
  let successor: { after: string; id: string | null; rank: number } | undefined;

  return {
    /** Rows of the previous version for these ids. */
    async rowsOf(ids: string[]): Promise<Map<string, PreviousRecord>> {
      if (prev === null || ids.length === 0) return new Map();
      const rows = await db
        .selectFrom('record_index')
        .select(ROW_COLUMNS)
        .select(DOC_KEY_TEXT)
        .where('version', '=', prev)
        .where('record_id', 'in', ids)
        .execute();
      return new Map(rows.map((r) => [r.record_id, previousRecordOf(dialect, r)]));
    },

    async documents(keys: (bigint | string)[]): Promise<Map<string, string>> {
      if (keys.length === 0) return new Map();
      const rows = await db
        .selectFrom('record_docs')
        .select(['doc'])
        .select(sql<string>`CAST(key AS TEXT)`.as('key'))
        .where('key', 'in', keys)
        .execute();
      return new Map(rows.map((r) => [String(r.key), r.doc]));
    },

    /** The rows at positions [from, to), in position order. */
    async between(from: number, to: number): Promise<PreviousRecord[]> {
      return (
        await db
          .selectFrom('record_index')
          .select(ROW_COLUMNS)
          .select(DOC_KEY_TEXT)
          .where('version', '=', prev as number)
          .where('position', '>=', from)
          .where('position', '<', to)
          .orderBy('position')
          .execute()
      ).map((r) => previousRecordOf(dialect, r));
    },

    /** How many records of the previous version sort before `id` (where a new record goes among them). */
    async rankOf(id: string, size: number): Promise<number> {
      if (prev === null) return 0;
      // New ids arrive in ascending order: while they still sort before the previous record found last (or after
      // every previous record), they share its rank, so a run of new records (appended ones, typically) costs one query.
      if (successor && id > successor.after && (successor.id === null || id < successor.id)) return successor.rank;
      const next = await db
        .selectFrom('record_index')
        .select(['position', 'record_id'])
        .where('version', '=', prev)
        .where('record_id', '>', id)
        .orderBy('record_id')
        .limit(1)
        .executeTakeFirst();
      successor = next ? { after: id, id: next.record_id, rank: Number(next.position) } : { after: id, id: null, rank: size };
      return successor.rank;
    },

    /**
     * Copies the previous version's positions [from, to) into the new version, `shift` places later, sharing their
     * documents; `afterSlice` is awaited with the number of positions after each statement.
     */
    async copy(from: number, to: number, shift: number, afterSlice: (copied: number) => Promise<void>): Promise<void> {
      for (let a = from; a < to; a += COPY_SLICE) {
        const b = Math.min(to, a + COPY_SLICE);
        const statement = sql`INSERT INTO record_index (version, record_id, position, content_hash, modified_date, is_deleted, f_status, f_date, f_amount, f_currency, f_ref, f_kept, doc_key)
        SELECT ${version}, record_id, position + ${shift}, content_hash, modified_date, is_deleted, f_status, f_date, f_amount, f_currency, f_ref, f_kept, doc_key
        FROM record_index WHERE version = ${prev} AND position >= ${a} AND position < ${b}`;
        const compiled = statement.compile(db);
        await batches.run(
          () => {
            sqlite!.prepare(compiled.sql).run(...(compiled.parameters as unknown[]));
          },
          async (trx) => {
            await trx.executeQuery(compiled);
          },
        );
        await afterSlice(b - a);
      }
    },
  };
}
