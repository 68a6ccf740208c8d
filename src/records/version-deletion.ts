import { sql } from 'kysely';
import type { Store } from '../storage/database.js';
import { DOC_KEY_TEXT, docKey, versionKeyRange } from './record-key.js';
import { deleteVersionDigests } from './version-digests.js';

const SLICE = 5000;

/**
 * Deletes one version of a data set, in slices so that no statement holds the store's write lock for long
 * (`tick` is called between slices: lease renewal).
 *
 * Versions share documents: a version built from changes refers to the unchanged documents of the one before
 * it, so a document is referred to by a run of consecutive versions of its data set, always under the same
 * record id. Hence:
 * - a version that never completed (a failed, abandoned or interrupted sync) deletes only its own documents
 *   (its key range) and rows: nothing later refers to them, and what it shares belongs to a complete version;
 * - a complete version deletes each document it refers to unless a later complete version of the same data set
 *   refers to it (same record id, same key). Whichever of the versions sharing a document is deleted last deletes
 *   it, in whatever order their deletions run, so nothing is left behind.
 */
export async function deleteVersion(store: Store, version: number, tick: () => Promise<void>): Promise<void> {
  const { db, dialect } = store;
  const meta = await db.selectFrom('record_versions').selectAll().where('version', '=', version).executeTakeFirst();
  const complete = meta !== undefined && meta.records !== null;
  const later = complete
    ? (
        await db
          .selectFrom('record_versions')
          .select('version')
          .where('connection_id', '=', meta.connection_id)
          .where('data_type', '=', meta.data_type)
          .where('version', '>', version)
          .where('records', 'is not', null)
          .execute()
      ).map((r) => Number(r.version))
    : [];

  if (complete) {
    let after: string | undefined;
    for (;;) {
      let query = db.selectFrom('record_index').select('record_id').select(DOC_KEY_TEXT).where('version', '=', version);
      if (after !== undefined) query = query.where('record_id', '>', after);
      const rows = await query.orderBy('record_id').limit(SLICE).execute();
      if (rows.length === 0) break;
      after = rows[rows.length - 1].record_id;
      const kept = new Set<string>();
      if (later.length > 0) {
        const shared = await db
          .selectFrom('record_index')
          .select('record_id')
          .select(DOC_KEY_TEXT)
          .where('version', 'in', later)
          // The slice's id range as well as its ids: without statistics (a table not analysed since a large sync)
          // Postgres plans the list alone as a scan of every row of the later versions (330 ms a slice at
          // 1,000,000 invoices instead of 1 ms); the range makes it an index range scan, the list bounds what it returns.
          .where('record_id', '>=', rows[0].record_id)
          .where('record_id', '<=', after)
          .where(
            'record_id',
            'in',
            rows.map((r) => r.record_id),
          )
          .execute();
        for (const s of shared) kept.add(`${s.record_id}\u0000${s.doc_key}`);
      }
      const unused = rows.filter((r) => !kept.has(`${r.record_id}\u0000${r.doc_key}`)).map((r) => docKey(dialect, r.doc_key));
      if (unused.length > 0) await db.deleteFrom('record_docs').where('key', 'in', unused).execute();
      // Both ends of the slice, for the same reason as above (an index range instead of a scan of the version).
      await db
        .deleteFrom('record_index')
        .where('version', '=', version)
        .where('record_id', '>=', rows[0].record_id)
        .where('record_id', '<=', after)
        .execute();
      await tick();
    }
  }

  // What is left of the version's own documents: all of them for a version that never completed, none otherwise
  // (a complete version's own documents were each either deleted above or are referred to by a later version).
  if (!complete) {
    const [first, end] = versionKeyRange(dialect, version);
    for (;;) {
      const slice = await db
        .selectFrom('record_docs')
        .select('key')
        .where('key', '>=', first)
        .where('key', '<', end)
        .orderBy('key')
        .limit(SLICE)
        .execute();
      if (slice.length === 0) break;
      await sql`DELETE FROM record_docs WHERE key >= ${first} AND key <= ${slice[slice.length - 1].key}`.execute(db);
      await tick();
    }
    for (;;) {
      const slice = await db
        .selectFrom('record_index')
        .select('record_id')
        .where('version', '=', version)
        .orderBy('record_id')
        .limit(SLICE)
        .execute();
      if (slice.length === 0) break;
      await db
        .deleteFrom('record_index')
        .where('version', '=', version)
        .where('record_id', '<=', slice[slice.length - 1].record_id)
        .execute();
      await tick();
    }
    // Staging rows go a sorted run at a time (a run is at most one writer's memory's worth of narrow rows).
    for (;;) {
      const run = await db
        .selectFrom('record_staging')
        .select('run')
        .where('version', '=', version)
        .orderBy('run')
        .limit(1)
        .executeTakeFirst();
      if (!run) break;
      await db.deleteFrom('record_staging').where('version', '=', version).where('run', '=', run.run).execute();
      await tick();
    }
  }
  await deleteVersionDigests(db, version);
  await db.deleteFrom('record_versions').where('version', '=', version).execute();
}
