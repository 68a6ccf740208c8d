import type { Kysely, Selectable } from 'kysely';
import type { Database, PullOperationsTable } from '../storage/schema.js';
import { pullOperationDoc, type DatasetStatus, type PullOperationState } from './pull-operation.js';

export type PullOperationRow = Selectable<PullOperationsTable>;

/** Storage of pull operations and of which data-set version readers see. */
export function createSyncsStore(db: Kysely<Database>) {
  return {
    async operation(id: string): Promise<PullOperationRow | undefined> {
      return db.selectFrom('pull_operations').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** The unfinished sync of this type on this connection, if any. */
    async active(connectionId: string, dataType: string): Promise<PullOperationRow | undefined> {
      return db
        .selectFrom('pull_operations')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .where('data_type', '=', dataType)
        .where('status', 'in', ['Queued', 'Fetching'])
        .executeTakeFirst();
    },

    async dataSet(connectionId: string, dataType: string) {
      return db.selectFrom('data_sets').selectAll().where('connection_id', '=', connectionId).where('data_type', '=', dataType).executeTakeFirst();
    },

    /** Data sets of a company, with the newest pull operation of each. */
    async companyDataSets(companyId: string) {
      return db
        .selectFrom('data_sets as d')
        .leftJoin('pull_operations as p', (join) =>
          join.onRef('p.connection_id', '=', 'd.connection_id').onRef('p.data_type', '=', 'd.data_type'),
        )
        .select(['d.connection_id', 'd.data_type', 'd.current_version', 'd.last_successful_sync', 'd.latest_successful_sync_id', 'p.id as op_id', 'p.status as op_status', 'p.seq as op_seq'])
        .where('d.company_id', '=', companyId)
        .orderBy('p.seq')
        .execute();
    },

    /** Moves an operation to a new state and re-renders its document. */
    async update(executor: Kysely<Database>, row: PullOperationRow, changes: Partial<PullOperationState>): Promise<PullOperationRow> {
      const state = { ...(JSON.parse(row.doc) as PullOperationState), ...changes };
      const doc = pullOperationDoc(state);
      await executor.updateTable('pull_operations').set({ status: state.status, doc }).where('id', '=', row.id).execute();
      return { ...row, status: state.status as DatasetStatus, doc };
    },
  };
}

export type SyncsStore = ReturnType<typeof createSyncsStore>;
