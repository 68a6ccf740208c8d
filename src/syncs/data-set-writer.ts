import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SourceRecord } from '../connectors/connector.js';

interface PreviousRecord {
  record_id: string;
  content_hash: string;
  modified_date: string;
  is_deleted: number;
  doc: string;
}

export interface WriteVersionInput {
  db: Kysely<Database>;
  /** The new version's number (the pull operation's seq). */
  version: number;
  /** The version readers see now, whose records are carried over; null on a first sync. */
  previousVersion: number | null;
  /** The platform's records, ascending by id. */
  source: Iterable<SourceRecord>;
  /** This sync's time: the `modifiedDate` of every record that is new, changed or newly deleted. */
  now: string;
  /** Called between batches with the number of records written so far (lease renewal, progress). */
  onBatch(written: number): Promise<void>;
  batchSize?: number;
  /** Counts the records that are new, changed or newly deleted in this version (`recordsModified` of read.completed). */
  stats?: { modified: number };
}

const PREVIOUS_CHUNK = 2000;
const DELETED_SUFFIX = ',"metadata":{"isDeleted":true}}';
const LIVE_SUFFIX = ',"metadata":{"isDeleted":false}}';

/**
 * Writes a complete new version of a data set from the platform's records, invisible to readers until the
 * caller points the data set at it. Walks the source and the previous version together in id order:
 * - unchanged content keeps its previous `modifiedDate`; new or changed content gets `now`;
 * - records of the previous version that the source no longer has stay, with `metadata.isDeleted: true`
 *   (`modifiedDate` moves to `now` when they become deleted).
 * Memory stays flat: the previous version is read in chunks, records are written in batches.
 */
export async function writeVersion(input: WriteVersionInput): Promise<number> {
  const { db, version, now } = input;
  const batchSize = input.batchSize ?? 500;
  const previous = previousRecords(db, input.previousVersion);
  let prev = await previous.next();
  let batch: Database['records'][] = [];
  let position = 0;

  const push = async (record_id: string, content_hash: string, modified_date: string, is_deleted: number, doc: string) => {
    batch.push({ version, position: position++, record_id, content_hash, modified_date, is_deleted, doc });
    if (input.stats && modified_date === now) input.stats.modified++;
    if (batch.length >= batchSize) {
      await db.insertInto('records').values(batch).execute();
      batch = [];
      await input.onBatch(position);
      // better-sqlite3 answers synchronously, so without this the whole sync would run in one turn of the
      // event loop and the process would answer no request until it finished.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const carryDeleted = async (old: PreviousRecord) => {
    if (old.is_deleted) return push(old.record_id, old.content_hash, old.modified_date, 1, old.doc);
    return push(old.record_id, old.content_hash, now, 1, markDeleted(old.doc, now));
  };

  let lastId: string | undefined;
  for (const record of input.source) {
    if (lastId !== undefined && !(record.id > lastId)) throw new Error(`source records out of order at id ${record.id}`);
    lastId = record.id;
    while (prev && prev.record_id < record.id) {
      await carryDeleted(prev);
      prev = await previous.next();
    }
    const content = JSON.stringify(record.data);
    const hash = createHash('sha1').update(content).digest('base64');
    let modified = now;
    if (prev && prev.record_id === record.id) {
      if (prev.content_hash === hash && !prev.is_deleted) modified = prev.modified_date;
      prev = await previous.next();
    }
    await push(record.id, hash, modified, 0, `${content.slice(0, -1)},"modifiedDate":${JSON.stringify(modified)}${LIVE_SUFFIX}`);
  }
  while (prev) {
    await carryDeleted(prev);
    prev = await previous.next();
  }
  if (batch.length > 0) await db.insertInto('records').values(batch).execute();
  await input.onBatch(position);
  return position;
}

/** A served document of a live record turned into its deleted form, modified at `now`. */
function markDeleted(doc: string, now: string): string {
  const cut = doc.lastIndexOf(',"modifiedDate":');
  return `${doc.slice(0, cut)},"modifiedDate":${JSON.stringify(now)}${DELETED_SUFFIX}`;
}

/** The previous version's records in id order, fetched a chunk at a time. */
function previousRecords(db: Kysely<Database>, version: number | null) {
  let chunk: PreviousRecord[] = [];
  let index = 0;
  let after: string | undefined;
  let exhausted = version === null;
  return {
    async next(): Promise<PreviousRecord | undefined> {
      if (index >= chunk.length) {
        if (exhausted) return undefined;
        let query = db
          .selectFrom('records')
          .select(['record_id', 'content_hash', 'modified_date', 'is_deleted', 'doc'])
          .where('version', '=', version as number);
        if (after !== undefined) query = query.where('record_id', '>', after);
        chunk = await query.orderBy('record_id').limit(PREVIOUS_CHUNK).execute();
        index = 0;
        if (chunk.length < PREVIOUS_CHUNK) exhausted = true;
        if (chunk.length === 0) return undefined;
        after = chunk[chunk.length - 1].record_id;
      }
      return chunk[index++];
    },
  };
}
