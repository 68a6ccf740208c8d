import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
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
  /** Key of the document: the version's own (`recordKey(version, position)`) or one shared with an earlier version. */
  doc_key: bigint | string;
}

/** Buffers the rows of a version being written and stores them a batch at a time, one transaction per batch. */
export interface RecordSink {
  /** Buffers one record with its document (null: it refers to a document already stored); true when the batch is full. */
  add(index: IndexRow, doc: string | null): boolean;
  flush(): Promise<void>;
}

/** Which run of the sync writes: a batch commits only while that run still holds its pull operation. */
export interface WriteFence {
  pullOperationId: string;
  runner: string;
}

/** Thrown by a batch of a run that no longer holds its operation (another run took it over). */
export const TAKEN_OVER = 'the sync was taken over by another run';

const INDEX_COLUMNS = 'version, record_id, position, content_hash, modified_date, is_deleted, f_status, f_date, f_amount, f_currency, f_ref, doc_key';

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
  let rows: { index: IndexRow; doc: string | null }[] = [];
  const add = (index: IndexRow, doc: string | null) => {
    rows.push({ index, doc });
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
    const insertIndex = sqlite.prepare(`INSERT INTO record_index (${INDEX_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const holds = fence && sqlite.prepare('SELECT 1 FROM pull_operations WHERE id = ? AND runner = ?').pluck();
    const writeBatch = sqlite.transaction((batch: typeof rows) => {
      if (holds && fence && holds.get(fence.pullOperationId, fence.runner) === undefined) throw new Error(TAKEN_OVER);
      for (const { index: r, doc } of batch) {
        if (doc !== null) insertDoc.run(r.doc_key, doc);
        insertIndex.run(r.version, r.record_id, r.position, r.content_hash, r.modified_date, r.is_deleted, ...r.fields, r.doc_key);
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
        await asynchronousCommit(trx);
        if (fence) {
          const held = await sql`SELECT 1 FROM pull_operations WHERE id = ${fence.pullOperationId} AND runner = ${fence.runner} FOR SHARE`.execute(trx);
          if (held.rows.length === 0) throw new Error(TAKEN_OVER);
        }
        const docs = batch.filter((r) => r.doc !== null).map((r) => ({ key: r.index.doc_key, doc: r.doc as string }));
        if (docs.length > 0) await trx.insertInto('record_docs').values(docs).execute();
        await trx
          .insertInto('record_index')
          .values(batch.map(({ index: r }) => ({
            version: r.version, record_id: r.record_id, position: r.position, content_hash: r.content_hash, modified_date: r.modified_date,
            is_deleted: r.is_deleted, f_status: r.fields[0] as string | null, f_date: r.fields[1] as string | null,
            f_amount: r.fields[2] as number | null, f_currency: r.fields[3] as string | null, f_ref: r.fields[4] as string | null, doc_key: r.doc_key,
          })))
          .execute();
      });
    },
  };
}

/**
 * Runs a batch of a version's writes as one transaction that commits only while the run holds its operation
 * (see createRecordSink): on SQLite the batch is synchronous prepared statements, on Postgres queries on the
 * transaction.
 */
export function createFencedBatches(store: Store, fence?: WriteFence) {
  const sqlite = store.sqlite;
  const holds = sqlite && fence ? sqlite.prepare('SELECT 1 FROM pull_operations WHERE id = ? AND runner = ?').pluck() : undefined;
  return {
    async run(onSqlite: () => void, onPostgres: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
      if (sqlite) {
        const batch = sqlite.transaction(() => {
          if (holds && fence && holds.get(fence.pullOperationId, fence.runner) === undefined) throw new Error(TAKEN_OVER);
          onSqlite();
        });
        await store.db.connection().execute(async () => {
          if (sqlite.inTransaction) throw new Error('record batch would join an open transaction');
          batch.immediate();
        });
        return;
      }
      await store.db.transaction().execute(async (trx) => {
        await asynchronousCommit(trx);
        if (fence) {
          const held = await sql`SELECT 1 FROM pull_operations WHERE id = ${fence.pullOperationId} AND runner = ${fence.runner} FOR SHARE`.execute(trx);
          if (held.rows.length === 0) throw new Error(TAKEN_OVER);
        }
        await onPostgres(trx);
      });
    },
  };
}

/**
 * Postgres: a batch of a version being written commits without waiting for its WAL to reach disk. Safe: nothing
 * reads the version until the transaction completing the sync commits, synchronously, which flushes all WAL
 * written before it; a crash before that loses only batches of a sync that then runs again from the start.
 * Saves a disk flush per batch (hundreds per sync).
 */
async function asynchronousCommit(trx: Kysely<Database>): Promise<void> {
  await sql`SET LOCAL synchronous_commit = off`.execute(trx);
}
