import type { Store } from '../storage/database.js';
import type { ReadMode, RecordPage, SourceRecord } from '../connectors/connector.js';
import { NO_FIELD_VALUES, type RecordFieldPaths } from './record-fields.js';
import { recordKey, versionOfKey } from './record-key.js';
import { versionInfo } from './record-versions.js';
import { encodeRecord, liveDoc, markDeleted } from './data-set-writer.js';
import { createFencedBatches, createRecordSink, type IndexRow, type WriteFence } from './record-sink.js';
import { ABSENT, createStagingRuns, type RunRow, type StagedRow } from './staging-runs.js';
import { createPreviousVersion } from './previous-version.js';
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

const BATCH = 500;
const RUN = 25_000;
const CHUNK = 2000;

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
 * Memory stays bounded by one run and one chunk per run. The staging table's rows are read and written in
 * staging-runs.ts, the previous version's in previous-version.ts.
 */
export async function writeStagedVersion(input: StagedWriteInput): Promise<number> {
  const { store, version, previousVersion: prev, now } = input;
  const { db, dialect } = store;
  const fieldPaths = input.fields ?? {};
  const runSize = input.runSize ?? RUN;
  const batches = createFencedBatches(store, input.fence);
  const sqlite = store.sqlite;
  const insertDoc = sqlite?.prepare('INSERT INTO record_docs (key, doc) VALUES (?, ?)');
  const staging = createStagingRuns(store, version, batches);
  const previousVersion = createPreviousVersion(store, prev, version, batches);
  let arrival = 0;
  let seq = 0;
  let progress = 0;
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

  /** Stages one batch of arrivals: records (in full mode, every record) and, in delta mode, deleted ids. */
  async function stage(records: readonly SourceRecord[], deleted: readonly string[]): Promise<void> {
    const ids = [...new Set([...records.map((r) => r.id), ...deleted])];
    const previous = await previousVersion.rowsOf(ids);
    const deletedDocs = await previousVersion.documents(
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
          fields: [...NO_FIELD_VALUES],
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

  /** Appends the buffered rows as the next sorted run. */
  async function flushRun(): Promise<void> {
    if (buffer.length === 0) return;
    const rows = buffer;
    buffer = [];
    await staging.append(rows);
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
  const add = async (row: IndexRow, doc: string | null) => {
    if (input.stats && row.modified_date === now) input.stats.modified++;
    if (sink.add(row, doc)) await sink.send();
  };
  const readers = Array.from({ length: staging.count }, (_, run) => staging.reader(run));
  const heap = new MinHeap<RunRow>((a, b) =>
    a.row.record_id < b.row.record_id ? -1 : a.row.record_id > b.row.record_id ? 1 : a.run - b.run || a.row.seq - b.row.seq,
  );
  let composed = 0;
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
      const rank = existed ? Number(latest.prev_position) : prev === null ? 0 : await previousVersion.rankOf(latest.record_id, prevSize);
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
        // Postgres: placed by (run, idx) alone; the server copies the staged row's columns across (staging-runs.ts).
        if (staging.place(latestRun, latest.seq, rank + shift)) await staging.insertPlaced();
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
  await staging.insertPlaced();
  for (let i = 0; i < orphans.length; i += BATCH)
    await db
      .deleteFrom('record_docs')
      .where('key', 'in', orphans.slice(i, i + BATCH))
      .execute();

  // 3. Dropping the staging rows.
  await staging.drop(() => tick(0));
  return prevSize + shift;

  function ownDoc(row: StagedRow): boolean {
    return row.is_deleted !== ABSENT && versionOfKey(row.doc_key) === version;
  }

  async function popNext(): Promise<RunRow> {
    const top = heap.pop()!;
    const reader = readers[top.run];
    // Most rows are already read ahead: no promise per row.
    const next = reader.nextSync() ?? (await reader.next());
    if (next) heap.push(next);
    return top;
  }

  /**
   * The previous version's records at positions [from, to), which did not arrive, carried into the new version
   * `shift` places later. Delta mode: unchanged, copied in SQL with their documents shared. Full mode: each is
   * deleted now unless it already was.
   */
  async function carryOver(from: number, to: number): Promise<void> {
    if (input.mode === 'delta') {
      await sink.flush();
      return previousVersion.copy(from, to, shift, tick);
    }
    for (let a = from; a < to; a += CHUNK) {
      const rows = await previousVersion.between(a, Math.min(to, a + CHUNK));
      const docs = await previousVersion.documents(rows.filter((r) => !r.is_deleted).map((r) => r.doc_key));
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
}
