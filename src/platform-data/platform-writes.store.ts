import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { WrittenRecord } from '../connectors/connector.js';

/**
 * The Sandbox platforms' own storage for records written to them (`platform_writes`). A real platform keeps
 * written records itself; the Sandbox generates its data, so it keeps the writes beside it and applies them to
 * every later fetch. The table has no client column: its rows are reached through the client's connections.
 */
function clientConnections(executor: Kysely<Database>, clientId: string) {
  return executor.selectFrom('connections').select('id').where('client_id', '=', clientId);
}

/** The platform_writes rows of one data type on one of the client's connections (none for another client's). */
function writesOf(executor: Kysely<Database>, clientId: string, connectionId: string, dataType: string) {
  return executor
    .selectFrom('platform_writes')
    .where('connection_id', 'in', clientConnections(executor, clientId))
    .where('connection_id', '=', connectionId)
    .where('data_type', '=', dataType);
}

export async function loadWritten(
  executor: Kysely<Database>,
  clientId: string,
  connectionId: string,
  dataType: string,
): Promise<{ written: WrittenRecord[]; highWater: number }> {
  const rows = await writesOf(executor, clientId, connectionId, dataType)
    .select(['seq', 'record_id', 'deleted', 'doc', 'source_modified_date'])
    .orderBy('record_id')
    .execute();
  let highWater = 0;
  const written = rows.map((row) => {
    highWater = Math.max(highWater, Number(row.seq));
    const data = row.doc === null ? null : (JSON.parse(row.doc) as Record<string, unknown>);
    return {
      id: row.record_id,
      deleted: row.deleted === 1,
      record: data && { id: row.record_id, sourceModifiedDate: row.source_modified_date, data },
    };
  });
  return { written, highWater };
}

/** Whether writes of this type arrived after `highWater` (a sync that started before them does not hold them). */
export async function writtenSince(
  executor: Kysely<Database>,
  clientId: string,
  connectionId: string,
  dataType: string,
  highWater: number,
): Promise<boolean> {
  const row = await writesOf(executor, clientId, connectionId, dataType)
    .select('seq')
    .where('seq', '>', highWater)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Stores the platform's new state of the records one write changed (a batch changes several); a fresh `seq` marks
 * each as newer than any sync under way. A record `null` is deleted.
 */
export async function saveWritten(
  trx: Kysely<Database>,
  clientId: string,
  write: {
    companyId: string;
    connectionId: string;
    dataType: string;
    records: { recordId: string; record: Record<string, unknown> | null }[];
    at: string;
  },
): Promise<void> {
  if (write.records.length === 0) return;
  // A connection deleted (or never the client's) keeps nothing: its platform state went with it.
  const owned = await clientConnections(trx, clientId).where('id', '=', write.connectionId).executeTakeFirst();
  if (!owned) return;
  await trx
    .deleteFrom('platform_writes')
    .where('connection_id', '=', write.connectionId)
    .where('data_type', '=', write.dataType)
    .where(
      'record_id',
      'in',
      write.records.map((r) => r.recordId),
    )
    .execute();
  await trx
    .insertInto('platform_writes')
    .values(
      write.records.map(({ recordId, record }) => ({
        company_id: write.companyId,
        connection_id: write.connectionId,
        data_type: write.dataType,
        record_id: recordId,
        deleted: record === null ? 1 : 0,
        doc: record === null ? null : JSON.stringify(record),
        source_modified_date: write.at,
      })),
    )
    .execute();
}

/** What the Sandbox held because it was written to this connection (the push history stays). */
export async function deletePlatformWrites(trx: Kysely<Database>, clientId: string, connectionId: string): Promise<void> {
  await trx
    .deleteFrom('platform_writes')
    .where('connection_id', 'in', clientConnections(trx, clientId))
    .where('connection_id', '=', connectionId)
    .execute();
}

/** What the platform holds of a record written through the service: present, deleted, or undefined (never written). */
export async function writtenState(
  executor: Kysely<Database>,
  clientId: string,
  connectionId: string,
  dataType: string,
  recordId: string,
): Promise<'present' | 'deleted' | undefined> {
  const row = await writesOf(executor, clientId, connectionId, dataType)
    .select('deleted')
    .where('record_id', '=', recordId)
    .executeTakeFirst();
  return row === undefined ? undefined : row.deleted === 0 ? 'present' : 'deleted';
}

/** Which of these records the platform holds (present, not deleted) because they were written to it. */
export async function presentWritten(
  executor: Kysely<Database>,
  clientId: string,
  connectionId: string,
  dataType: string,
  recordIds: readonly string[],
): Promise<Set<string>> {
  if (recordIds.length === 0) return new Set();
  const rows = await writesOf(executor, clientId, connectionId, dataType)
    .select('record_id')
    .where('record_id', 'in', recordIds)
    .where('deleted', '=', 0)
    .execute();
  return new Set(rows.map((row) => row.record_id));
}
