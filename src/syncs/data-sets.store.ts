import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/*
 * Data sets: which version of a connection's data type readers see, switched when a sync completes, and forgotten
 * with the syncs that wrote them. Each statement takes the client id after its executor and keeps to that client's
 * rows.
 */

/** Each sync of the company's data sets (with the data set's last success), oldest first. */
export function dataSetSyncs(executor: Kysely<Database>, clientId: string, companyId: string) {
  return executor
    .selectFrom('data_sets as d')
    .innerJoin('pull_operations as p', (join) =>
      join.onRef('p.connection_id', '=', 'd.connection_id').onRef('p.data_type', '=', 'd.data_type'),
    )
    .select(['d.data_type', 'd.last_successful_sync', 'd.latest_successful_sync_id', 'p.id', 'p.status', 'p.seq'])
    .where('d.client_id', '=', clientId)
    .where('d.company_id', '=', companyId)
    .orderBy('p.seq')
    .execute();
}

/** Switches a data set's readers to the version a sync completed, counting the sync and keeping its cursor. */
export async function completeDataSet(
  trx: Kysely<Database>,
  clientId: string,
  op: {
    connectionId: string;
    dataType: string;
    version: number;
    operationId: string;
    completed: string;
    cursor: string | null;
    readKey: string | null;
    /** The epoch the sync read. */
    epoch: number;
  },
): Promise<void> {
  await trx
    .updateTable('data_sets')
    .set((eb) => ({
      current_version: op.version,
      completed_syncs: eb('completed_syncs', '+', 1),
      last_successful_sync: op.completed,
      latest_successful_sync_id: op.operationId,
      cursor: op.cursor,
      read_key: op.readKey,
      read_epoch: op.epoch,
    }))
    .where('client_id', '=', clientId)
    .where('connection_id', '=', op.connectionId)
    .where('data_type', '=', op.dataType)
    .execute();
}

/**
 * A connection's data set of a type: the version readers see (`current_version`, null before the first sync
 * completes), how many syncs completed (`completed_syncs`: the Sandbox's epoch, where its next read stands) and the
 * cursor a delta sync reads from. Undefined before the type was first requested.
 */
export function dataSetOf(executor: Kysely<Database>, clientId: string, connectionId: string, dataType: string) {
  return executor
    .selectFrom('data_sets')
    .select(['current_version', 'completed_syncs', 'cursor', 'read_key', 'read_epoch', 'company_id'])
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('data_type', '=', dataType)
    .executeTakeFirst();
}

/**
 * Forgets the syncs and data sets of a company, or of one of its connections; returns the versions they wrote (for
 * their deletion jobs).
 */
export async function deleteSyncs(
  trx: Kysely<Database>,
  clientId: string,
  target: { companyId: string; connectionId?: string },
): Promise<number[]> {
  let versions = trx
    .selectFrom('pull_operations')
    .select('seq')
    .where('client_id', '=', clientId)
    .where('company_id', '=', target.companyId);
  let dataSets = trx.deleteFrom('data_sets').where('client_id', '=', clientId).where('company_id', '=', target.companyId);
  let operations = trx.deleteFrom('pull_operations').where('client_id', '=', clientId).where('company_id', '=', target.companyId);
  if (target.connectionId !== undefined) {
    versions = versions.where('connection_id', '=', target.connectionId);
    dataSets = dataSets.where('connection_id', '=', target.connectionId);
    operations = operations.where('connection_id', '=', target.connectionId);
  }
  const written = await versions.execute();
  await dataSets.execute();
  await operations.execute();
  return written.map((v) => Number(v.seq));
}
