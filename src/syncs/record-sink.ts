import { sql } from 'kysely';
import type { Store } from '../storage/database.js';

/** The narrow row of one record of a version being written. */
export interface IndexRow {
  version: number;
  record_id: string;
  position: number;
  content_hash: string;
  modified_date: string;
  is_deleted: number;
  /** Values of the indexed columns, in INDEXED_COLUMNS order. */
  fields: (string | number | null)[];
}

/** Buffers the rows of a version being written and stores them a batch at a time, one transaction per batch. */
export interface RecordSink {
  /** Buffers one record; true when the batch is full and should be flushed. */
  add(index: IndexRow, key: bigint | string, doc: string): boolean;
  flush(): Promise<void>;
}

/** Which run of the sync writes: a batch commits only while that run still holds its pull operation. */
export interface WriteFence {
  pullOperationId: string;
  runner: string;
}

/** Thrown by a batch of a run that no longer holds its operation (another run took it over). */
export const TAKEN_OVER = 'the sync was taken over by another run';

const INDEX_COLUMNS = 'version, record_id, position, content_hash, modified_date, is_deleted, f_status, f_date, f_amount, f_currency, f_ref';

/**
 * SQLite: prepared statements run in one transaction per batch. A sync writes hundreds of thousands of rows,
 * and building each statement through the query builder costs more than SQLite's insert itself.
 * Postgres: multi-row inserts, two per batch.
 * With a fence, each batch first checks, in its own transaction, that its run still holds the operation (on
 * Postgres with a share lock, which a takeover's update waits for): a run presumed dead and taken over can add
 * nothing to the version the new run rewrites.
 */
export function createRecordSink(store: Store, batchSize?: number, fence?: WriteFence): RecordSink {
  // SQLite batches stay small: each holds the store's write lock, which the API's own writes wait for.
  const size = batchSize ?? (store.sqlite ? 500 : 1000);
  let rows: { index: IndexRow; key: bigint | string; doc: string }[] = [];
  const add = (index: IndexRow, key: bigint | string, doc: string) => {
    rows.push({ index, key, doc });
    return rows.length >= size;
  };
  /** The buffered rows, handed over to be written; the buffer starts again empty. */
  const take = () => {
    const batch = rows;
    rows = [];
    return batch;
  };

  const sqlite = store.sqlite;
  if (sqlite) {
    const insertDoc = sqlite.prepare('INSERT INTO record_docs (key, doc) VALUES (?, ?)');
    const insertIndex = sqlite.prepare(`INSERT INTO record_index (${INDEX_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const holds = fence && sqlite.prepare('SELECT 1 FROM pull_operations WHERE id = ? AND runner = ?').pluck();
    const writeBatch = sqlite.transaction((batch: typeof rows) => {
      if (holds && fence && holds.get(fence.pullOperationId, fence.runner) === undefined) throw new Error(TAKEN_OVER);
      for (const { index: r, key, doc } of batch) {
        insertDoc.run(key, doc);
        insertIndex.run(r.version, r.record_id, r.position, r.content_hash, r.modified_date, r.is_deleted, ...r.fields);
      }
    });
    return {
      add,
      async flush() {
        if (rows.length === 0) return;
        const batch = take();
        // Inside Kysely's hold on the connection: it waits for any open transaction of the query builder to end,
        // so this batch is its own transaction and never joins (or is rolled back with) someone else's.
        await store.db.connection().execute(async () => {
          if (sqlite.inTransaction) throw new Error('record batch would join an open transaction');
          writeBatch.immediate(batch);
        });
      },
    };
  }

  return {
    add,
    async flush() {
      if (rows.length === 0) return;
      const batch = take();
      await store.db.transaction().execute(async (trx) => {
        if (fence) {
          const held = await sql`SELECT 1 FROM pull_operations WHERE id = ${fence.pullOperationId} AND runner = ${fence.runner} FOR SHARE`.execute(trx);
          if (held.rows.length === 0) throw new Error(TAKEN_OVER);
        }
        await trx.insertInto('record_docs').values(batch.map((r) => ({ key: r.key, doc: r.doc }))).execute();
        await trx
          .insertInto('record_index')
          .values(batch.map(({ index: r }) => ({
            version: r.version, record_id: r.record_id, position: r.position, content_hash: r.content_hash, modified_date: r.modified_date,
            is_deleted: r.is_deleted, f_status: r.fields[0] as string | null, f_date: r.fields[1] as string | null,
            f_amount: r.fields[2] as number | null, f_currency: r.fields[3] as string | null, f_ref: r.fields[4] as string | null,
          })))
          .execute();
      });
    },
  };
}
