import { sha1 } from '../lib/sha1.js';
import type { Store } from '../storage/database.js';
import type { SqlDialect } from '../storage/dialect.js';
import type { RecordPage, SourceRecord } from '../connectors/connector.js';
import { extractFields, type RecordFieldPaths } from './record-fields.js';
import { DOC_KEY_TEXT, docKey, recordKey } from './record-key.js';
import { createRecordSink, ROW_COLUMNS, type IndexRow, type WriteFence } from './record-sink.js';

/** The narrow row of a record of the previous version (its index row): enough to compare, and to carry it over deleted. */
export type PreviousRecord = Omit<IndexRow, 'version'>;

export function previousRecordOf(
  dialect: SqlDialect,
  r: {
    record_id: string;
    position: number;
    content_hash: string;
    modified_date: string;
    is_deleted: number;
    f_status: string | null;
    f_date: string | null;
    f_amount: number | null;
    f_currency: string | null;
    f_ref: string | null;
    f_kept: string | null;
    doc_key: string;
  },
): PreviousRecord {
  return {
    record_id: r.record_id,
    position: Number(r.position),
    content_hash: r.content_hash,
    modified_date: r.modified_date,
    is_deleted: Number(r.is_deleted),
    fields: [r.f_status, r.f_date, r.f_amount, r.f_currency, r.f_ref, r.f_kept],
    doc_key: docKey(dialect, r.doc_key),
  };
}

export interface WriteVersionInput {
  store: Store;
  /** The new version's number (the pull operation's seq). */
  version: number;
  /** The version readers see now, whose records are carried over; null on a first sync. */
  previousVersion: number | null;
  /** The platform's records (a full snapshot), ascending by id across all pages. */
  pages?: AsyncIterable<RecordPage>;
  /** Or the same as one id-ordered iterable. */
  source?: Iterable<SourceRecord>;
  /** This sync's time: the `modifiedDate` of every record that is new, changed or newly deleted. */
  now: string;
  /** Which fields fill the indexed columns (see record-fields.ts); none when absent. */
  fields?: RecordFieldPaths;
  /** Called between batches with the number of records written so far (lease renewal, progress). */
  onBatch(written: number): Promise<void>;
  batchSize?: number;
  /** Counts the records that are new, changed or newly deleted in this version (`recordsModified` of read.completed). */
  stats?: { modified: number };
  /** The run writing: its batches commit only while it holds its pull operation (see record-sink.ts). */
  fence?: WriteFence;
}

const PREVIOUS_CHUNK = 5000;
const DELETED_SUFFIX = ',"metadata":{"isDeleted":true}}';
const LIVE_SUFFIX = ',"metadata":{"isDeleted":false}}';

/** A platform record as stored: its served JSON without the service's fields, the hash of that, and its indexed fields. */
export function encodeRecord(data: Record<string, unknown>, fields: RecordFieldPaths) {
  const content = JSON.stringify(data);
  return { content, hash: sha1(content, 'base64'), fields: extractFields(fields, data) };
}

/** The served document of a live record: its content with `modifiedDate` and `metadata` appended. */
export function liveDoc(content: string, modified: string): string {
  return `${content.slice(0, -1)},"modifiedDate":${JSON.stringify(modified)}${LIVE_SUFFIX}`;
}

/**
 * Writes a complete new version of a data set from the platform's records, invisible to readers until the
 * caller points the data set at it. Walks the source and the previous version together in id order:
 * - unchanged content keeps its previous `modifiedDate`; new or changed content gets `now`;
 * - records of the previous version that the source no longer has stay, with `metadata.isDeleted: true`
 *   (`modifiedDate` moves to `now` when they become deleted).
 * Memory stays flat: the previous version's narrow rows are read in chunks, records are written in batches.
 */
export async function writeVersion(input: WriteVersionInput): Promise<number> {
  const { store, version, now } = input;
  const fields = input.fields ?? {};
  const sink = createRecordSink(store, input.batchSize, input.fence);
  const previous = previousRecords(store, input.previousVersion);
  let prev = await previous.next();
  let position = 0;

  const push = async (index: Omit<IndexRow, 'version' | 'position' | 'doc_key'>, doc: string) => {
    if (input.stats && index.modified_date === now) input.stats.modified++;
    // Every document is the version's own, in position order: pages of it are plain range reads.
    if (sink.add({ ...index, version, position, doc_key: recordKey(store.dialect, version, position) }, doc)) {
      // On Postgres the batch is stored while the next one is made (at most one behind).
      await sink.send();
      await input.onBatch(position + 1);
      // better-sqlite3 answers synchronously, so without this the whole sync would run in one turn of the
      // event loop and the process would answer no request until it finished.
      await new Promise((resolve) => setImmediate(resolve));
    }
    position++;
  };
  const carryDeleted = async (old: PreviousRecord) => {
    const doc = await previous.doc(old.doc_key);
    const modified = old.is_deleted ? old.modified_date : now;
    const served = old.is_deleted ? doc : markDeleted(doc, now);
    await push(
      { record_id: old.record_id, content_hash: old.content_hash, modified_date: modified, is_deleted: 1, fields: old.fields },
      served,
    );
  };

  try {
    let lastId: string | undefined;
    for await (const page of input.pages ?? onePage(input.source ?? [])) {
      if (page.deleted?.length) throw new Error('a full read cannot delete records (only a delta read can)');
      for (const record of page.records) {
        if (lastId !== undefined && !(record.id > lastId)) throw new Error(`source records out of order at id ${record.id}`);
        lastId = record.id;
        while (prev && prev.record_id < record.id) {
          await carryDeleted(prev);
          prev = previous.nextSync() ?? (await previous.next());
        }
        const { content, hash, fields: values } = encodeRecord(record.data, fields);
        let modified = now;
        if (prev && prev.record_id === record.id) {
          if (prev.content_hash === hash && !prev.is_deleted) modified = prev.modified_date;
          prev = previous.nextSync() ?? (await previous.next());
        }
        await push(
          { record_id: record.id, content_hash: hash, modified_date: modified, is_deleted: 0, fields: values },
          liveDoc(content, modified),
        );
      }
    }
    while (prev) {
      await carryDeleted(prev);
      prev = previous.nextSync() ?? (await previous.next());
    }
    await sink.flush();
  } catch (err) {
    await sink.settle();
    throw err;
  }
  await input.onBatch(position);
  return position;
}

/** A served document of a live record turned into its deleted form, modified at `now`. */
export function markDeleted(doc: string, now: string): string {
  const cut = doc.lastIndexOf(',"modifiedDate":');
  return `${doc.slice(0, cut)},"modifiedDate":${JSON.stringify(now)}${DELETED_SUFFIX}`;
}

/** The previous version's narrow rows in id order, fetched a chunk at a time; documents only on demand. */
function previousRecords(store: Store, version: number | null) {
  const { db, dialect } = store;
  let chunk: PreviousRecord[] = [];
  let index = 0;
  let after: string | undefined;
  let exhausted = version === null;
  return {
    /** The next row if it is already fetched (most calls: no promise per record). */
    nextSync(): PreviousRecord | undefined | null {
      return index < chunk.length ? chunk[index++] : null;
    },
    async next(): Promise<PreviousRecord | undefined> {
      if (index >= chunk.length) {
        if (exhausted) return undefined;
        let query = db
          .selectFrom('record_index')
          .select(ROW_COLUMNS)
          .select(DOC_KEY_TEXT)
          .where('version', '=', version as number);
        if (after !== undefined) query = query.where('record_id', '>', after);
        const rows = await query.orderBy('record_id').limit(PREVIOUS_CHUNK).execute();
        chunk = rows.map((r) => previousRecordOf(dialect, r));
        index = 0;
        if (chunk.length < PREVIOUS_CHUNK) exhausted = true;
        if (chunk.length === 0) return undefined;
        after = chunk[chunk.length - 1].record_id;
      }
      return chunk[index++];
    },
    async doc(key: bigint | string): Promise<string> {
      const row = await db.selectFrom('record_docs').select('doc').where('key', '=', key).executeTakeFirstOrThrow();
      return row.doc;
    },
  };
}

async function* onePage(records: Iterable<SourceRecord>): AsyncGenerator<RecordPage> {
  yield { records: [...records] };
}
