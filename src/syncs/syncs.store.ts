import type { Kysely, Selectable } from 'kysely';
import { JobHandedBack } from '../jobs/job-queue.js';
import type { Database, PullOperationsTable } from '../storage/schema.js';
import { pullOperationDoc, type DatasetStatus, type PullOperationState } from './pull-operation.js';

export type PullOperationRow = Selectable<PullOperationsTable>;

/** Storage of pull operations and of which data-set version readers see. */
export function createSyncsStore(db: Kysely<Database>) {
  return {
    async operation(id: string, executor: Kysely<Database> = db): Promise<PullOperationRow | undefined> {
      return executor.selectFrom('pull_operations').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async dataSet(connectionId: string, dataType: string) {
      return db
        .selectFrom('data_sets')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .where('data_type', '=', dataType)
        .executeTakeFirst();
    },

    /**
     * Moves an operation to a new state and re-renders its document. With `runner`, only while that run of the
     * sync job still holds the operation: otherwise nothing changes and it throws `JobHandedBack`.
     */
    async update(
      executor: Kysely<Database>,
      row: PullOperationRow,
      changes: Partial<PullOperationState>,
      runner?: string,
    ): Promise<PullOperationRow> {
      const state = { ...(JSON.parse(row.doc) as PullOperationState), ...changes };
      const doc = pullOperationDoc(state);
      let update = executor.updateTable('pull_operations').set({ status: state.status, doc }).where('id', '=', row.id);
      if (runner !== undefined) update = update.where('runner', '=', runner);
      const result = await update.executeTakeFirst();
      if (runner !== undefined && Number(result.numUpdatedRows) === 0) {
        // Deleted with its company or connection meanwhile: nothing is left to move, as without a runner.
        const current = await executor.selectFrom('pull_operations').select('runner').where('id', '=', row.id).executeTakeFirst();
        if (current) throw new JobHandedBack('another run of the sync took the operation over');
      }
      return { ...row, status: state.status as DatasetStatus, doc };
    },

    /**
     * Makes `runner` the run that holds the operation, if it is still as this run found it (compare and swap):
     * false when another run got there first.
     */
    async hold(row: PullOperationRow, runner: string): Promise<boolean> {
      let update = db.updateTable('pull_operations').set({ runner }).where('id', '=', row.id).where('status', '=', row.status);
      update = row.runner === null ? update.where('runner', 'is', null) : update.where('runner', '=', row.runner);
      return Number((await update.executeTakeFirst()).numUpdatedRows) > 0;
    },
  };
}

export type SyncsStore = ReturnType<typeof createSyncsStore>;
