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

    async dataSet(connectionId: string, dataType: string) {
      return db.selectFrom('data_sets').selectAll().where('connection_id', '=', connectionId).where('data_type', '=', dataType).executeTakeFirst();
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
