import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/**
 * A complete version's size, and whether its documents are its own in position order (`dense`: written in full)
 * or partly shared with earlier versions (built from changes). Registered in `record_versions` when the sync
 * completes; a version from before versions were registered was written in full and is counted.
 */
export async function versionInfo(db: Kysely<Database>, version: number): Promise<{ size: number; dense: boolean }> {
  const row = await db.selectFrom('record_versions').select(['records', 'dense']).where('version', '=', version).executeTakeFirst();
  if (row?.records !== null && row?.records !== undefined) return { size: Number(row.records), dense: Number(row.dense) === 1 };
  const { rows } = await sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM record_index WHERE version = ${version}`.execute(db);
  return { size: Number(rows[0]?.n ?? 0), dense: true };
}

/** Registers a version a sync is about to write (again, when a run takes over): not complete, so not counted. */
export async function openVersion(db: Kysely<Database>, version: number, connectionId: string, dataType: string): Promise<void> {
  await db
    .insertInto('record_versions')
    .values({ version, connection_id: connectionId, data_type: dataType, records: null, dense: 0 })
    .onConflict((oc) => oc.column('version').doNothing())
    .execute();
}

/** Marks a version complete with its size: from now on later versions may share its documents. */
export async function completeVersion(trx: Kysely<Database>, version: number, size: number, dense: boolean): Promise<void> {
  await trx
    .updateTable('record_versions')
    .set({ records: size, dense: dense ? 1 : 0 })
    .where('version', '=', version)
    .execute();
}

/** The version readers see of a data type on each of these connections (null before its first sync completes). */
export function currentVersionsOf(db: Kysely<Database>, clientId: string, connectionIds: string[], dataType: string) {
  return db
    .selectFrom('data_sets')
    .select(['connection_id', 'current_version'])
    .where('client_id', '=', clientId)
    .where('connection_id', 'in', connectionIds)
    .where('data_type', '=', dataType)
    .execute();
}

/**
 * Records per data type in the company's current data-set versions (every connection's), from the sizes registered
 * when each version completed: one read, not a count per data type.
 */
export async function recordCountsOfCompany(db: Kysely<Database>, clientId: string, companyId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('data_sets as d')
    .leftJoin('record_versions as v', 'v.version', 'd.current_version')
    .select(['d.data_type', 'd.current_version', 'v.records'])
    .where('d.client_id', '=', clientId)
    .where('d.company_id', '=', companyId)
    .where('d.current_version', 'is not', null)
    .execute();
  const counts = new Map<string, number>();
  for (const row of rows) {
    // A version from before sizes were registered is counted (versionInfo).
    const size = row.records !== null ? Number(row.records) : (await versionInfo(db, Number(row.current_version))).size;
    counts.set(row.data_type, (counts.get(row.data_type) ?? 0) + size);
  }
  return counts;
}
