import { sql } from 'kysely';
import type { Store } from '../storage/database.js';
import type { RecordStagingTable } from '../storage/schema.js';
import type { ReadMode, RecordPage, SourceRecord } from '../connectors/connector.js';
import type { RecordFieldPaths } from './record-fields.js';
import { DOC_KEY_TEXT, docKey, recordKey, versionOfKey } from './record-key.js';
import { versionInfo } from './record-versions.js';
import { encodeRecord, liveDoc, markDeleted, previousRecordOf, type PreviousRecord } from './data-set-writer.js';
import { createFencedBatches, createRecordSink, ROW_COLUMNS, type IndexRow, type WriteFence } from './record-sink.js';
import { MinHeap } from '../lib/min-heap.js';

export interface StagedWriteInput {
  store: Store;
  version: number;
  previousVersion: number | null;
  /** `full`: the pages hold every record (a record of the previous version that is missing was deleted); `delta`: changes only. */
  mode: ReadMode;
  /** The platform's records in any order, across any number of pages. */
  pages: AsyncIterable<RecordPage>;
  now: string;
  fields?: RecordFieldPaths;
  onBatch(written: number): Promise<void>;
  stats?: { modified: number };
  fence?: WriteFence;
  /** Rows per sorted run (memory held while staging); tests make it small. */
  runSize?: number;
}

/** A staged narrow row: the record's place in the new version is found once every record has arrived. */
interface StagedRow {
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

const BATCH = 500;
const RUN = 25_000;
const CHUNK = 2000;
/** Rows read ahead per run while merging: 40 runs for a million records, 20,000 rows in memory. */
const RUN_CHUNK = 500;
/** Postgres: staged rows placed per statement. */
const PLACE_BATCH = 2000;
/** Positions copied per statement: each statement holds SQLite's write lock, which the API's own writes wait for. */
const COPY_SLICE = 20_000;
const ABSENT = 2;

/**
 * Writes a new version from records that arrive in any order, or from the changes since the previous version.
 * The version stays invisible until the sync completes and is then as complete, and positioned by ascending id,
 * as one written in order:
 * 1. Staging. Each record's document is written at once under the next key of the version's range (arrival
 *    order), unless its content is unchanged: then it keeps the previous version's document (shared, not copied)
 *    and `modifiedDate`. A deleted id (delta mode) gets its previous document marked deleted. The narrow rows are
 *    sorted in memory a run at a time and appended to `record_staging` as sorted runs: an external merge sort,
 *    so nothing is inserted at random into a large B-tree.
 * 2. Composing. The runs are merged by id (the later delivery of an id wins) beside the previous version's
 *    positions. Between staged ids, the previous version's records are carried over: in delta mode by
 *    `INSERT ... SELECT` shifted by the records inserted before them (a delta of ten changes over a million
 *    records moves a million narrow rows and no document); in full mode each is deleted unless it was already.
 * 3. The staging rows are removed.
 * Memory stays bounded by one run and one chunk per run.
 */
export async function writeStagedVersion(input: StagedWriteInput): Promise<number> {
  const { store, version, previousVersion: prev, now } = input;
  const { db, dialect } = store;
  const fieldPaths = input.fields ?? {};
  const runSize = input.runSize ?? RUN;
  const batches = createFencedBatches(store, input.fence);
  const sqlite = store.sqlite;
  const insertDoc = sqlite?.prepare('INSERT INTO record_docs (key, doc) VALUES (?, ?)');
  const insertStaged =
    sqlite?.prepare(`INSERT INTO record_staging (version, run, idx, record_id, prev_position, doc_key, content_hash, modified_date,
    is_deleted, f_status, f_date, f_amount, f_currency, f_ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const readRun =
    sqlite?.prepare(`SELECT idx, record_id, prev_position, content_hash, modified_date, is_deleted, f_status, f_date, f_amount, f_currency, f_ref,
    CAST(doc_key AS TEXT) AS doc_key FROM record_staging WHERE version = ? AND run = ? AND idx > ? ORDER BY idx LIMIT ?`);
  let arrival = 0;
  let seq = 0;
  let progress = 0;
  let runs = 0;
  let buffer: StagedRow[] = [];
  const tick = async (count: number) => {
    progress += count;
    await input.onBatch(progress);
    // better-sqlite3 answers synchronously: let the thread's other work in between batches.
    await new Promise((resolve) => setImmediate(resolve));
  };

  async function writeDocs(docs: { key: bigint | string; doc: string }[]): Promise<void> {
    if (docs.length === 0) return;
    await batches.run(
      () => {
        for (const d of docs) insertDoc!.run(d.key, d.doc);
      },
      async (trx) => {
        await trx.insertInto('record_docs').values(docs).execute();
      },
    );
  }

  /** Rows of the previous version for these ids. */
  async function previousRows(ids: string[]): Promise<Map<string, PreviousRecord>> {
    if (prev === null || ids.length === 0) return new Map();
    const rows = await db
      .selectFrom('record_index')
      .select(ROW_COLUMNS)
      .select(DOC_KEY_TEXT)
      .where('version', '=', prev)
      .where('record_id', 'in', ids)
      .execute();
    return new Map(rows.map((r) => [r.record_id, previousRecordOf(dialect, r)]));
  }

  async function documents(keys: (bigint | string)[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const rows = await db
      .selectFrom('record_docs')
      .select(['doc'])
      .select(sql<string>`CAST(key AS TEXT)`.as('key'))
      .where('key', 'in', keys)
      .execute();
    return new Map(rows.map((r) => [String(r.key), r.doc]));
  }

  /** Stages one batch of arrivals: records (in full mode, every record) and, in delta mode, deleted ids. */
  async function stage(records: readonly SourceRecord[], deleted: readonly string[]): Promise<void> {
    const ids = [...new Set([...records.map((r) => r.id), ...deleted])];
    const previous = await previousRows(ids);
    const deletedDocs = await documents(
      deleted.flatMap((id) => {
        const old = previous.get(id);
        return old && !old.is_deleted ? [old.doc_key] : [];
      }),
    );
    const docs: { key: bigint | string; doc: string }[] = [];
    for (const record of records) {
      const old = previous.get(record.id);
      const { content, hash, fields } = encodeRecord(record.data, fieldPaths);
      if (old && old.content_hash === hash && !old.is_deleted) {
        buffer.push({
          record_id: record.id,
          seq: seq++,
          prev_position: old.position,
          doc_key: old.doc_key,
          content_hash: hash,
          modified_date: old.modified_date,
          is_deleted: 0,
          fields,
        });
        continue;
      }
      const key = recordKey(dialect, version, arrival++);
      docs.push({ key, doc: liveDoc(content, now) });
      buffer.push({
        record_id: record.id,
        seq: seq++,
        prev_position: old ? old.position : null,
        doc_key: key,
        content_hash: hash,
        modified_date: now,
        is_deleted: 0,
        fields,
      });
    }
    for (const id of deleted) {
      const old = previous.get(id);
      if (!old) {
        // Created and deleted since the cursor: if it was delivered earlier in this read, this hides it.
        buffer.push({
          record_id: id,
          seq: seq++,
          prev_position: null,
          doc_key: '0',
          content_hash: '',
          modified_date: now,
          is_deleted: ABSENT,
          fields: [null, null, null, null, null],
        });
      } else if (old.is_deleted) {
        buffer.push({ ...old, seq: seq++, prev_position: old.position });
      } else {
        const key = recordKey(dialect, version, arrival++);
        docs.push({ key, doc: markDeleted(deletedDocs.get(String(old.doc_key)) as string, now) });
        buffer.push({ ...old, seq: seq++, prev_position: old.position, doc_key: key, modified_date: now, is_deleted: 1 });
      }
    }
    await writeDocs(docs);
    if (buffer.length >= runSize) await flushRun();
    await tick(records.length + deleted.length);
  }

  /** Sorts the buffered rows by id (then arrival) and appends them as the next run. */
  async function flushRun(): Promise<void> {
    if (buffer.length === 0) return;
    const rows = buffer.sort((a, b) => (a.record_id < b.record_id ? -1 : a.record_id > b.record_id ? 1 : a.seq - b.seq));
    buffer = [];
    const run = runs++;
    for (let i = 0; i < rows.length; i += BATCH) {
      const slice = rows.slice(i, i + BATCH);
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
                const [f_status, f_date, f_amount, f_currency, f_ref] = r.fields;
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
                };
              }),
            )
            .execute();
        },
      );
    }
  }

  // 1. Staging.
  for await (const page of input.pages) {
    if (page.deleted?.length && input.mode !== 'delta') throw new Error('a full read cannot delete records (only a delta read can)');
    const deleted = page.deleted ?? [];
    for (let i = 0; i < Math.max(page.records.length, 1); i += BATCH) {
      await stage(page.records.slice(i, i + BATCH), i + BATCH >= page.records.length ? deleted : []);
    }
  }
  await flushRun();

  // 2. Composing.
  const prevSize = prev === null ? 0 : (await versionInfo(db, prev)).size;
  const sink = createRecordSink(store, undefined, input.fence);
  const orphans: (bigint | string)[] = [];
  let copied = 0;
  let shift = 0;
  /** The previous record the last new id was placed before (see rankOf). */
  let successor: { after: string; id: string | null; rank: number } | undefined;
  const add = async (row: IndexRow, doc: string | null) => {
    if (input.stats && row.modified_date === now) input.stats.modified++;
    if (sink.add(row, doc)) await sink.send();
  };
  const readers = Array.from({ length: runs }, (_, run) => runReader(run));
  const heap = new MinHeap<{ row: StagedRow; run: number }>((a, b) =>
    a.row.record_id < b.row.record_id ? -1 : a.row.record_id > b.row.record_id ? 1 : a.run - b.run || a.row.seq - b.row.seq,
  );
  let composed = 0;
  // Postgres: a staged row is placed by its (run, idx) and position alone; the server copies the rest across
  // (`placeStaged`), instead of every column making a round trip through this process.
  let placed: { run: number; idx: number; position: number }[] = [];
  try {
    for (const reader of readers) {
      const first = await reader.next();
      if (first) heap.push(first);
    }
    while (heap.size > 0) {
      let { row: latest, run: latestRun } = await popNext();
      // Later deliveries of the same id win; the documents of the earlier ones are nobody's.
      while (heap.size > 0 && heap.peek()!.row.record_id === latest.record_id) {
        const later = await popNext();
        if (ownDoc(latest) && String(latest.doc_key) !== String(later.row.doc_key)) orphans.push(latest.doc_key);
        ({ row: latest, run: latestRun } = later);
      }
      if (latest.is_deleted === ABSENT) continue;
      const existed = latest.prev_position !== null;
      const rank = existed ? Number(latest.prev_position) : prev === null ? 0 : await rankOf(latest.record_id, prevSize);
      if (rank > copied) await carryOver(copied, rank);
      if (sqlite) {
        await add(
          {
            version,
            record_id: latest.record_id,
            position: rank + shift,
            content_hash: latest.content_hash,
            modified_date: latest.modified_date,
            is_deleted: latest.is_deleted,
            fields: latest.fields,
            doc_key: latest.doc_key,
          },
          null,
        );
      } else {
        if (input.stats && latest.modified_date === now) input.stats.modified++;
        placed.push({ run: latestRun, idx: latest.seq, position: rank + shift });
        if (placed.length >= PLACE_BATCH) await placeStaged();
      }
      if (existed) copied = rank + 1;
      else {
        copied = rank;
        shift++;
      }
      if (++composed % CHUNK === 0) await tick(CHUNK);
    }
    if (prevSize > copied) await carryOver(copied, prevSize);
    await sink.flush();
  } catch (err) {
    // No batch may commit after the failure (see RecordSink.settle).
    await sink.settle();
    throw err;
  }
  await placeStaged();
  for (let i = 0; i < orphans.length; i += BATCH)
    await db
      .deleteFrom('record_docs')
      .where('key', 'in', orphans.slice(i, i + BATCH))
      .execute();

  // 3. Dropping the staging rows.
  for (let run = 0; run < runs; run++) {
    await db.deleteFrom('record_staging').where('version', '=', version).where('run', '=', run).execute();
    await tick(0);
  }
  return prevSize + shift;

  function ownDoc(row: StagedRow): boolean {
    return row.is_deleted !== ABSENT && versionOfKey(row.doc_key) === version;
  }

  async function popNext(): Promise<{ row: StagedRow; run: number }> {
    const top = heap.pop()!;
    const reader = readers[top.run];
    // Most rows are already read ahead: no promise per row.
    const next = reader.nextSync() ?? (await reader.next());
    if (next) heap.push(next);
    return top;
  }

  /**
   * Postgres: inserts the index rows of the staged rows placed so far, copying their columns from staging. One
   * index probe per row: `LIMIT 1` keeps the planner from flattening the lateral subquery into a hash join that
   * reads the whole version's staging rows for every batch.
   */
  async function placeStaged(): Promise<void> {
    if (placed.length === 0) return;
    const batch = placed;
    placed = [];
    await batches.run(
      () => {},
      async (trx) => {
        await sql`INSERT INTO record_index (version, record_id, position, content_hash, modified_date, is_deleted, f_status, f_date, f_amount, f_currency, f_ref, doc_key)
          SELECT s.version, s.record_id, p.position, s.content_hash, s.modified_date, s.is_deleted, s.f_status, s.f_date, s.f_amount, s.f_currency, s.f_ref, s.doc_key
          FROM unnest(${batch.map((b) => b.run)}::int[], ${batch.map((b) => b.idx)}::int[], ${batch.map((b) => b.position)}::int[]) AS p(run, idx, position)
          CROSS JOIN LATERAL (SELECT * FROM record_staging WHERE version = ${version} AND run = p.run AND idx = p.idx LIMIT 1) s`.execute(
          trx,
        );
      },
    );
  }

  /** One run's rows in order, a chunk at a time. */
  function runReader(run: number) {
    let chunk: StagedRow[] = [];
    let index = 0;
    let after = -1;
    let done = false;
    return {
      nextSync(): { row: StagedRow; run: number } | null {
        return index < chunk.length ? { row: chunk[index++], run } : null;
      },
      async next(): Promise<{ row: StagedRow; run: number } | undefined> {
        if (index >= chunk.length) {
          if (done) return undefined;
          // SQLite: a prepared statement (building the query per chunk costs more than reading it).
          const rows = readRun
            ? (readRun.all(version, run, after, RUN_CHUNK) as StagingRead[])
            : // Postgres places rows by (run, idx) and copies the rest server-side (placeStaged): only what merging needs.
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
            fields: [r.f_status, r.f_date, r.f_amount, r.f_currency, r.f_ref],
          }));
          index = 0;
        }
        return { row: chunk[index++], run };
      },
    };
  }

  /** How many records of the previous version sort before `id` (where a new record goes among them). */
  async function rankOf(id: string, size: number): Promise<number> {
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
  }

  /**
   * The previous version's records at positions [from, to), which did not arrive, carried into the new version
   * `shift` places later. Delta mode: unchanged, copied in SQL with their documents shared. Full mode: each is
   * deleted now unless it already was.
   */
  async function carryOver(from: number, to: number): Promise<void> {
    if (input.mode === 'delta') return copyPrevious(from, to);
    for (let a = from; a < to; a += CHUNK) {
      const rows = (
        await db
          .selectFrom('record_index')
          .select(ROW_COLUMNS)
          .select(DOC_KEY_TEXT)
          .where('version', '=', prev as number)
          .where('position', '>=', a)
          .where('position', '<', Math.min(to, a + CHUNK))
          .orderBy('position')
          .execute()
      ).map((r) => previousRecordOf(dialect, r));
      const docs = await documents(rows.filter((r) => !r.is_deleted).map((r) => r.doc_key));
      for (const old of rows) {
        const base = {
          version,
          record_id: old.record_id,
          position: old.position + shift,
          content_hash: old.content_hash,
          fields: old.fields,
        };
        if (old.is_deleted) await add({ ...base, modified_date: old.modified_date, is_deleted: 1, doc_key: old.doc_key }, null);
        else
          await add(
            { ...base, modified_date: now, is_deleted: 1, doc_key: recordKey(dialect, version, arrival++) },
            markDeleted(docs.get(String(old.doc_key)) as string, now),
          );
      }
    }
  }

  /** Copies the previous version's positions [from, to) into the new version, `shift` places later, sharing their documents. */
  async function copyPrevious(from: number, to: number): Promise<void> {
    await sink.flush();
    for (let a = from; a < to; a += COPY_SLICE) {
      const b = Math.min(to, a + COPY_SLICE);
      const statement = sql`INSERT INTO record_index (version, record_id, position, content_hash, modified_date, is_deleted, f_status, f_date, f_amount, f_currency, f_ref, doc_key)
        SELECT ${version}, record_id, position + ${shift}, content_hash, modified_date, is_deleted, f_status, f_date, f_amount, f_currency, f_ref, doc_key
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
      await tick(b - a);
    }
  }
}

/** A staged row as read back (the key as text: see DOC_KEY_TEXT). */
type StagingRead = Omit<RecordStagingTable, 'version' | 'run' | 'doc_key'> & { doc_key: string };
