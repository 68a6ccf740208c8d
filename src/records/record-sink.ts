import { CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';
import type { Database, RecordFieldColumns, RecordIndexTable } from '../storage/schema.js';
import type { Store } from '../storage/database.js';
import { CopyData, copyRows } from './copy-rows.js';

/**
 * The narrow row of one record of a version being written: the index table's row, with the indexed columns as one list
 * (`fields`, in INDEXED_COLUMNS order) and the document's key as the writer holds it (the version's own,
 * `recordKey(version, position)`, or one shared with an earlier version).
 */
export type IndexRow = Omit<RecordIndexTable, keyof RecordFieldColumns | 'doc_key'> & {
  fields: (string | number | null)[];
  doc_key: bigint | string;
};

/** Buffers the rows of a version being written and stores them a batch at a time, one transaction per batch. */
export interface RecordSink {
  /** Buffers one record with its document (null: it refers to a document already stored); true when the batch is full. */
  add(index: IndexRow, doc: string | null): boolean;
  /**
   * Starts storing the buffered batch. On Postgres it is stored while the caller makes the next one (the server
   * inserting while this process encodes): one batch at a time, so this first waits for the one before it, and a
   * failed batch throws here or from flush.
   */
  send(): Promise<void>;
  /** Stores whatever is buffered, and returns once every batch is stored. */
  flush(): Promise<void>;
  /**
   * Waits for the batch being stored, if any, and drops its error: a writer that fails calls it before it
   * rethrows, so that no batch commits after the failure (and after whoever handles it deleted the version).
   */
  settle(): Promise<void>;
}

/** Which run of the sync writes: a batch commits only while that run still holds its pull operation. */
export interface WriteFence {
  pullOperationId: string;
  runner: string;
}

/** Thrown by a batch of a run that no longer holds its operation (another run took it over). */
export const TAKEN_OVER = 'the sync was taken over by another run';

/**
 * The columns of an index row between its version and its document key: what a later version compares. Select them
 * with DOC_KEY_TEXT and read each row with previousRecordOf (data-set-writer.ts).
 */
export const ROW_COLUMNS = [
  'record_id',
  'position',
  'content_hash',
  'modified_date',
  'is_deleted',
  'f_status',
  'f_date',
  'f_amount',
  'f_currency',
  'f_ref',
  'f_kept',
] as const;

const INDEX_COLUMNS = ['version', ...ROW_COLUMNS, 'doc_key'];

/**
 * SQLite: prepared statements run in one transaction per batch. A sync writes hundreds of thousands of rows,
 * and building each statement through the query builder costs more than SQLite's insert itself.
 * Postgres: two COPYs per batch (copy-rows.ts), on a client of the pool; a batch is stored while the caller makes
 * the next one (see send).
 * With a fence, each batch first checks, in its own transaction, that its run still holds the operation (on
 * Postgres with a share lock, which a takeover's update waits for): a run presumed dead and taken over can add
 * nothing to the version the new run rewrites.
 */
export function createRecordSink(store: Store, batchSize?: number, fence?: WriteFence): RecordSink {
  // SQLite batches stay small: each holds the store's write lock, which the API's own writes wait for.
  const size = batchSize ?? (store.sqlite ? 500 : 1000);
  const batches = createFencedBatches(store, fence);
  const sqlite = store.sqlite;
  if (sqlite) {
    const insertDoc = sqlite.prepare('INSERT INTO record_docs (key, doc) VALUES (?, ?)');
    const insertIndex = sqlite.prepare(
      `INSERT INTO record_index (${INDEX_COLUMNS.join(', ')}) VALUES (${INDEX_COLUMNS.map(() => '?').join(', ')})`,
    );
    let rows: { index: IndexRow; doc: string | null }[] = [];
    const write = (batch: typeof rows) =>
      batches.sqlite(() => {
        for (const { index: r, doc } of batch) {
          if (doc !== null) insertDoc.run(r.doc_key, doc);
          insertIndex.run(r.version, r.record_id, r.position, r.content_hash, r.modified_date, r.is_deleted, ...r.fields, r.doc_key);
        }
      });
    return batchedSink(
      (index, doc) => {
        rows.push({ index, doc });
        return rows.length >= size;
      },
      () => {
        if (rows.length === 0) return undefined;
        const batch = rows;
        rows = [];
        return write(batch);
      },
      // better-sqlite3 writes synchronously on this thread: nothing to overlap.
      false,
    );
  }

  const docs = new CopyData();
  const index = new CopyData();
  const write = (docData: Buffer[], indexData: Buffer[]) =>
    batches.onClient(async (client) => {
      if (docData.length > 0) await copyRows(client, 'record_docs', ['key', 'doc'], docData);
      await copyRows(client, 'record_index', INDEX_COLUMNS, indexData);
    });
  return batchedSink(
    (r, doc) => {
      if (doc !== null) docs.add(r.doc_key, doc);
      index.add(r.version, r.record_id, r.position, r.content_hash, r.modified_date, r.is_deleted, ...r.fields, r.doc_key);
      return index.rows >= size;
    },
    () => (index.rows === 0 ? undefined : write(docs.take(), index.take())),
    true,
  );
}

/**
 * A sink from its store's two halves: `add` buffers a record (true when the batch is full); `start` hands the
 * buffered batch to the store, if there is one. With `overlap` the caller goes on while it is stored.
 */
function batchedSink(add: RecordSink['add'], start: () => Promise<void> | undefined, overlap: boolean): RecordSink {
  /** Postgres: the batch being stored while the caller makes the next one, if any. */
  let inFlight: Promise<void> | undefined;
  async function send(): Promise<void> {
    const previous = inFlight;
    inFlight = undefined;
    await previous;
    const written = start();
    if (!written) return;
    if (!overlap) return written;
    // Awaited by the next send, flush or settle; until then a failure is not unhandled.
    written.catch(() => {});
    inFlight = written;
  }
  return {
    add,
    send,
    async flush() {
      await send();
      const last = inFlight;
      inFlight = undefined;
      await last;
    },
    async settle() {
      const last = inFlight;
      inFlight = undefined;
      await last?.catch(() => {});
    },
  };
}

/**
 * Postgres: a batch of a version being written commits without waiting for its WAL to reach disk. Safe: nothing
 * reads the version until the transaction completing the sync commits, synchronously, which flushes all WAL
 * written before it; a crash before that loses only batches of a sync that then runs again from the start.
 * Saves a disk flush per batch (hundreds per sync).
 */
const ASYNCHRONOUS_COMMIT = 'SET LOCAL synchronous_commit = off';
/** Postgres: whether the run still holds its operation, with a share lock that a takeover's update waits for. */
const HOLDS_OPERATION = 'SELECT 1 FROM pull_operations WHERE id = $1 AND runner = $2 FOR SHARE';

/**
 * Runs a batch of a version's writes as one transaction that commits only while the run holds its operation
 * (see createRecordSink): on SQLite synchronous prepared statements (`sqlite`), on Postgres queries on a
 * transaction (`run`) or on a client of the pool (`onClient`, for COPY, which the query builder does not send).
 */
export function createFencedBatches(store: Store, fence?: WriteFence) {
  const sqlite = store.sqlite;
  const holds = sqlite && fence ? sqlite.prepare('SELECT 1 FROM pull_operations WHERE id = ? AND runner = ?').pluck() : undefined;
  const fenceValues = fence && [fence.pullOperationId, fence.runner];
  async function onSqlite(write: () => void): Promise<void> {
    const batch = sqlite!.transaction(() => {
      if (holds && fence && holds.get(fence.pullOperationId, fence.runner) === undefined) throw new Error(TAKEN_OVER);
      write();
    });
    await store.db.connection().execute(async () => {
      if (sqlite!.inTransaction) throw new Error('record batch would join an open transaction');
      batch.immediate();
    });
  }
  return {
    sqlite: onSqlite,

    async run(onSqliteStore: () => void, onPostgres: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
      if (sqlite) return onSqlite(onSqliteStore);
      await store.db.transaction().execute(async (trx) => {
        await trx.executeQuery(CompiledQuery.raw(ASYNCHRONOUS_COMMIT));
        if (fenceValues && (await trx.executeQuery(CompiledQuery.raw(HOLDS_OPERATION, fenceValues))).rows.length === 0) {
          throw new Error(TAKEN_OVER);
        }
        await onPostgres(trx);
      });
    },

    async onClient(onPostgres: (client: pg.PoolClient) => Promise<void>): Promise<void> {
      const client = await store.pgPool!.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        await client.query(ASYNCHRONOUS_COMMIT);
        if (fenceValues && (await client.query(HOLDS_OPERATION, fenceValues)).rows.length === 0) throw new Error(TAKEN_OVER);
        await onPostgres(client);
        await client.query('COMMIT');
      } catch (err) {
        // A client whose rollback fails is in an unknown state: the pool discards it instead of lending it again.
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        throw err;
      } finally {
        client.release(broken);
      }
    },
  };
}

/** A version's batches as createFencedBatches makes them. */
export type FencedBatches = ReturnType<typeof createFencedBatches>;
