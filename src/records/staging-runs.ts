import { sql } from 'kysely';
import type { Store } from '../storage/database.js';
import type { RecordStagingTable } from '../storage/schema.js';
import { DOC_KEY_TEXT, docKey } from './record-key.js';
import type { FencedBatches } from './record-sink.js';

/** A staged narrow row: the record's place in the new version is found once every record has arrived. */
export interface StagedRow {
  record_id: string;
  /** Arrival order: of two deliveries of one id, the later wins. */
  seq: number;
  prev_position: number | null;
  doc_key: bigint | string;
  content_hash: string;
  modified_date: string;
  /** 0 live, 1 deleted, 2 absent (created and deleted since the cursor). */
  is_deleted: number;
  fields: (string | number | null)[];
}

/** A staged row as read back while merging, with the run it came from. */
export interface RunRow {
  row: StagedRow;
  run: number;
}

/** One run's rows in order, a chunk at a time. */
export interface RunReader {
  /** The next row if it is already read ahead (most calls: no promise per row). */
  nextSync(): RunRow | null;
  next(): Promise<RunRow | undefined>;
}

/** `is_deleted` of a staged id created and deleted since the cursor: it has no record and no document to place. */
export const ABSENT = 2;

/** Staged rows inserted per statement when a run is appended. */
const APPEND_BATCH = 500;
/** Rows read ahead per run while merging: 40 runs for a million records, 20,000 rows in memory. */
const RUN_CHUNK = 500;
/** Postgres: staged rows placed per statement. */
const PLACE_BATCH = 2000;

/**
 * The `record_staging` rows of one version being written (see staged-writer.ts): sorted runs appended while the
 * records arrive, read back a chunk at a time while they are merged, placed into the version by the server
 * (Postgres), and dropped once the version is composed.
 */
export function createStagingRuns(store: Store, version: number, batches: FencedBatches) {
  const { db, dialect } = store;
  const sqlite = store.sqlite;
  const insertStaged =
    sqlite?.prepare(`INSERT INTO record_staging (version, run, idx, record_id, prev_position, doc_key, content_hash, modified_date,
    is_deleted, f_status, f_date, f_amount, f_currency, f_ref, f_kept) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const readRun =
    sqlite?.prepare(`SELECT idx, record_id, prev_position, content_hash, modified_date, is_deleted, f_status, f_date, f_amount, f_currency, f_ref, f_kept,
    CAST(doc_key AS TEXT) AS doc_key FROM record_staging WHERE version = ? AND run = ? AND idx > ? ORDER BY idx LIMIT ?`);
  let runs = 0;
  // Postgres: a staged row is placed by its (run, idx) and position alone; the server copies the rest across
  // (`insertPlaced`), instead of every column making a round trip through this process.
  let placed: { run: number; idx: number; position: number }[] = [];

  /** Sorts the rows by id (then arrival) and appends them as the next run. */
  async function append(rows: StagedRow[]): Promise<void> {
    rows.sort((a, b) => (a.record_id < b.record_id ? -1 : a.record_id > b.record_id ? 1 : a.seq - b.seq));
    const run = runs++;
    for (let i = 0; i < rows.length; i += APPEND_BATCH) {
      const slice = rows.slice(i, i + APPEND_BATCH);
      await batches.run(
        () => {
          slice.forEach((r, k) =>
            insertStaged!.run(
              version,
              run,
              i + k,
              r.record_id,
              r.prev_position,
              r.doc_key,
              r.content_hash,
              r.modified_date,
              r.is_deleted,
              ...r.fields,
            ),
          );
        },
        async (trx) => {
          await trx
            .insertInto('record_staging')
            .values(
              slice.map((r, k) => {
                const [f_status, f_date, f_amount, f_currency, f_ref, f_kept] = r.fields;
                return {
                  version,
                  run,
                  idx: i + k,
                  record_id: r.record_id,
                  prev_position: r.prev_position,
                  doc_key: r.doc_key,
                  content_hash: r.content_hash,
                  modified_date: r.modified_date,
                  is_deleted: r.is_deleted,
                  f_status: f_status as string | null,
                  f_date: f_date as string | null,
                  f_amount: f_amount as number | null,
                  f_currency: f_currency as string | null,
                  f_ref: f_ref as string | null,
                  f_kept: (f_kept ?? null) as string | null,
                };
              }),
            )
            .execute();
        },
      );
    }
  }

  function reader(run: number): RunReader {
    let chunk: StagedRow[] = [];
    let index = 0;
    let after = -1;
    let done = false;
    return {
      nextSync(): RunRow | null {
        return index < chunk.length ? { row: chunk[index++], run } : null;
      },
      async next(): Promise<RunRow | undefined> {
        if (index >= chunk.length) {
          if (done) return undefined;
          // SQLite: a prepared statement (building the query per chunk costs more than reading it).
          const rows = readRun
            ? (readRun.all(version, run, after, RUN_CHUNK) as StagingRead[])
            : // Postgres places rows by (run, idx) and copies the rest server-side (insertPlaced): only what merging needs.
              await db
                .selectFrom('record_staging')
                .select(['idx', 'record_id', 'prev_position', 'modified_date', 'is_deleted'])
                .select([
                  sql<string>`''`.as('content_hash'),
                  sql<null>`NULL`.as('f_status'),
                  sql<null>`NULL`.as('f_date'),
                  sql<null>`NULL`.as('f_amount'),
                  sql<null>`NULL`.as('f_currency'),
                  sql<null>`NULL`.as('f_ref'),
                  sql<null>`NULL`.as('f_kept'),
                ])
                .select(DOC_KEY_TEXT)
                .where('version', '=', version)
                .where('run', '=', run)
                .where('idx', '>', after)
                .orderBy('idx')
                .limit(RUN_CHUNK)
                .execute();
          if (rows.length < RUN_CHUNK) done = true;
          if (rows.length === 0) return undefined;
          after = Number(rows[rows.length - 1].idx);
          chunk = rows.map((r) => ({
            record_id: r.record_id,
            seq: Number(r.idx),
            prev_position: r.prev_position === null ? null : Number(r.prev_position),
            doc_key: Number(r.is_deleted) === ABSENT ? '0' : docKey(dialect, r.doc_key),
            content_hash: r.content_hash,
            modified_date: r.modified_date,
            is_deleted: Number(r.is_deleted),
            fields: [r.f_status, r.f_date, r.f_amount, r.f_currency, r.f_ref, r.f_kept],
          }));
          index = 0;
        }
        return { row: chunk[index++], run };
      },
    };
  }

  /**
   * Postgres: inserts the index rows of the staged rows placed so far, copying their columns from staging. One
   * index probe per row: `LIMIT 1` keeps the planner from flattening the lateral subquery into a hash join that
   * reads the whole version's staging rows for every batch.
   */
  async function insertPlaced(): Promise<void> {
    if (placed.length === 0) return;
    const batch = placed;
    placed = [];
    await batches.run(
      () => {},
      async (trx) => {
        await sql`INSERT INTO record_index (version, record_id, position, content_hash, modified_date, is_deleted, f_status, f_date, f_amount, f_currency, f_ref, f_kept, doc_key)
          SELECT s.version, s.record_id, p.position, s.content_hash, s.modified_date, s.is_deleted, s.f_status, s.f_date, s.f_amount, s.f_currency, s.f_ref, s.f_kept, s.doc_key
          FROM unnest(${batch.map((b) => b.run)}::int[], ${batch.map((b) => b.idx)}::int[], ${batch.map((b) => b.position)}::int[]) AS p(run, idx, position)
          CROSS JOIN LATERAL (SELECT * FROM record_staging WHERE version = ${version} AND run = p.run AND idx = p.idx LIMIT 1) s`.execute(
          trx,
        );
      },
    );
  }

  return {
    /** How many runs are appended. */
    get count(): number {
      return runs;
    },
    append,
    reader,
    /** Postgres: places the staged row (run, idx) at a position of the version; true when a batch is ready to insert. */
    place(run: number, idx: number, position: number): boolean {
      placed.push({ run, idx, position });
      return placed.length >= PLACE_BATCH;
    },
    insertPlaced,
    /** Removes the version's staging rows, one statement per run, awaiting `between` after each. */
    async drop(between: () => Promise<void>): Promise<void> {
      for (let run = 0; run < runs; run++) {
        await db.deleteFrom('record_staging').where('version', '=', version).where('run', '=', run).execute();
        await between();
      }
    },
  };
}

/** A staged row as read back (the key as text: see DOC_KEY_TEXT). */
type StagingRead = Omit<RecordStagingTable, 'version' | 'run' | 'doc_key'> & { doc_key: string };
