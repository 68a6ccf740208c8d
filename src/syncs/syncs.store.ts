import { sql, type Kysely, type Selectable } from 'kysely';
import { JobHandedBack } from '../jobs/job-queue.js';
import type { Database, PullOperationsTable } from '../storage/schema.js';
import type { SqlDialect } from '../storage/dialect.js';
import type { QueryableResource as Resource } from '../query/properties.js';
import { resolverFromSchema } from '../query/schema-resolver.js';
import { companyDocsPage, type ListContext } from '../query/list-engine.js';
import type { PageRequest } from '../http/paging.js';
import {
  ACTIVE_STATUSES,
  DATASET_STATUSES,
  PullOperation,
  UNFINISHED_STATUSES,
  pullOperationDoc,
  type DatasetStatus,
  type PullOperationState,
} from './pull-operation.js';

export type PullOperationRow = Selectable<PullOperationsTable>;

/** Storage of pull operations and of which data-set version readers see. */
export function createSyncsStore(db: Kysely<Database>) {
  return {
    /**
     * An operation by id alone: for the sync job, whose payload names the operation it runs (the job exception
     * of docs/architecture.md). Everything else reads with the client: `operationOf`.
     */
    async operation(id: string, executor: Kysely<Database> = db): Promise<PullOperationRow | undefined> {
      return executor.selectFrom('pull_operations').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** One of the client's operations by id. */
    async operationOf(executor: Kysely<Database>, clientId: string, id: string): Promise<PullOperationRow | undefined> {
      return executor.selectFrom('pull_operations').selectAll().where('client_id', '=', clientId).where('id', '=', id).executeTakeFirst();
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
      let update = executor
        .updateTable('pull_operations')
        .set({ status: state.status, doc })
        .where('client_id', '=', row.client_id)
        .where('id', '=', row.id);
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
      let update = db
        .updateTable('pull_operations')
        .set({ runner })
        .where('client_id', '=', row.client_id)
        .where('id', '=', row.id)
        .where('status', '=', row.status);
      update = row.runner === null ? update.where('runner', 'is', null) : update.where('runner', '=', row.runner);
      return Number((await update.executeTakeFirst()).numUpdatedRows) > 0;
    },
  };
}

export type SyncsStore = ReturnType<typeof createSyncsStore>;

/*
 * Statements run inside the caller's transaction (`trx`), for queueing syncs and reporting them. Each takes the
 * client id after the transaction and keeps to that client's rows.
 */

/** The queued or running sync of a type on a connection (at most one: `pull_operations_one_active`). */
export function unfinishedOperation(trx: Kysely<Database>, clientId: string, connectionId: string, dataType: string) {
  return trx
    .selectFrom('pull_operations')
    .select('id')
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('data_type', '=', dataType)
    .where('status', 'in', ACTIVE_STATUSES)
    .executeTakeFirst();
}

export interface NewOperation {
  companyId: string;
  connectionId: string;
  dataType: string;
  id: string;
  status: 'Queued' | 'Initial';
  requested: string;
  full: boolean;
}

/**
 * Inserts a pull operation (and its data set, the first time): its epoch is the number of syncs of the type
 * completed so far, its seq (the version it writes) the next one. Returns its document.
 */
export async function insertOperation(trx: Kysely<Database>, clientId: string, op: NewOperation): Promise<string> {
  const dataSet = await dataSetOf(trx, clientId, op.connectionId, op.dataType);
  if (!dataSet) {
    await trx
      .insertInto('data_sets')
      .values({
        connection_id: op.connectionId,
        data_type: op.dataType,
        client_id: clientId,
        company_id: op.companyId,
        current_version: null,
        last_successful_sync: null,
        latest_successful_sync_id: null,
      })
      .execute();
  }
  const doc = pullOperationDoc({
    id: op.id,
    companyId: op.companyId,
    connectionId: op.connectionId,
    dataType: op.dataType,
    status: op.status,
    requested: op.requested,
    progress: 0,
  });
  await trx
    .insertInto('pull_operations')
    .values({
      id: op.id,
      client_id: clientId,
      company_id: op.companyId,
      connection_id: op.connectionId,
      data_type: op.dataType,
      status: op.status,
      requested: op.requested,
      epoch: Number(dataSet?.completed_syncs ?? 0),
      doc,
      full_sync: op.full ? 1 : 0,
    })
    .execute();
  return doc;
}

/** The operation if it is in `status`. */
export function operationIn(
  trx: Kysely<Database>,
  clientId: string,
  id: string,
  status: DatasetStatus,
): Promise<PullOperationRow | undefined> {
  return trx
    .selectFrom('pull_operations')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('status', '=', status)
    .executeTakeFirst();
}

/** The oldest operation of a type in `status` on a connection. */
export function oldestOperationIn(
  trx: Kysely<Database>,
  clientId: string,
  connectionId: string,
  dataType: string,
  status: DatasetStatus,
): Promise<PullOperationRow | undefined> {
  return trx
    .selectFrom('pull_operations')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('data_type', '=', dataType)
    .where('status', '=', status)
    .orderBy('seq')
    .executeTakeFirst();
}

export async function deleteOperation(trx: Kysely<Database>, clientId: string, id: string): Promise<void> {
  await trx.deleteFrom('pull_operations').where('client_id', '=', clientId).where('id', '=', id).execute();
}

/** Whether any sync of the company is queued or running. */
export async function companyIsSyncing(trx: Kysely<Database>, clientId: string, companyId: string): Promise<boolean> {
  const running = await trx
    .selectFrom('pull_operations')
    .select('id')
    .where('client_id', '=', clientId)
    .where('company_id', '=', companyId)
    .where('status', 'in', ACTIVE_STATUSES)
    .limit(1)
    .executeTakeFirst();
  return running !== undefined;
}

/** The company's finished operations not yet in a `read.completed` event, oldest first. */
export function unreportedOperations(trx: Kysely<Database>, clientId: string, companyId: string) {
  return trx
    .selectFrom('pull_operations')
    .select(['id', 'connection_id', 'data_type', 'status', 'requested', 'records_modified', 'doc'])
    .where('client_id', '=', clientId)
    .where('company_id', '=', companyId)
    .where('read_reported', '=', 0)
    .where('status', 'not in', UNFINISHED_STATUSES)
    .orderBy('seq')
    .execute();
}

/** How many of these connections had a sync in an earlier `read.completed` event. */
export async function connectionsReportedBefore(trx: Kysely<Database>, clientId: string, connectionIds: string[]): Promise<number> {
  const rows = await trx
    .selectFrom('pull_operations')
    .select('connection_id')
    .where('client_id', '=', clientId)
    .where('connection_id', 'in', connectionIds)
    .where('read_reported', '=', 1)
    .groupBy('connection_id')
    .execute();
  return rows.length;
}

export async function markReported(trx: Kysely<Database>, clientId: string, ids: string[]): Promise<void> {
  await trx.updateTable('pull_operations').set({ read_reported: 1 }).where('client_id', '=', clientId).where('id', 'in', ids).execute();
}

/** When each data type of a connection was last requested (queued or opened). */
export async function lastRequestedByType(
  executor: Kysely<Database>,
  clientId: string,
  connectionId: string,
): Promise<Map<string, string>> {
  const rows = await executor
    .selectFrom('pull_operations')
    .select(['data_type', (eb) => eb.fn.max('requested').as('requested')])
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .groupBy('data_type')
    .execute();
  return new Map(rows.map((row) => [row.data_type, String(row.requested)]));
}

/** When a data type of a connection was last requested; undefined if never. */
export async function lastRequested(
  executor: Kysely<Database>,
  clientId: string,
  connectionId: string,
  dataType: string,
): Promise<string | undefined> {
  const row = await executor
    .selectFrom('pull_operations')
    .select((eb) => eb.fn.max('requested').as('requested'))
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('data_type', '=', dataType)
    .executeTakeFirst();
  return row?.requested === null || row?.requested === undefined ? undefined : String(row.requested);
}

/** Pull operations as a list resource: the columns `query` and `orderBy` reach without reading the document. */
export function pullOperationResource(dialect: SqlDialect): Resource {
  const resource: Resource = {
    typeName: 'Dataset',
    resolve: resolverFromSchema(PullOperation, 'doc', dialect, {
      id: { type: 'string', exact: true, expr: sql`pull_operations.id` },
      connectionId: { type: 'string', exact: true, expr: sql`pull_operations.connection_id` },
      dataType: { type: 'string', exact: true, expr: sql`pull_operations.data_type` },
      status: { type: 'enum', enumValues: DATASET_STATUSES, expr: sql`pull_operations.status` },
      requested: { type: 'date', dateStyle: 'instant', expr: sql`pull_operations.requested` },
    }),
  };
  // Not stored as such: derived from status, so Codat answers "could not resolve" for them too.
  const resolve = resource.resolve;
  resource.resolve = (path) => (path.length === 1 && (path[0] === 'isCompleted' || path[0] === 'isErrored') ? undefined : resolve(path));
  return resource;
}

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

/** A pull operation's document, if it is the company's. */
export async function operationDoc(
  executor: Kysely<Database>,
  clientId: string,
  companyId: string,
  id: string,
): Promise<string | undefined> {
  const row = await executor
    .selectFrom('pull_operations')
    .select('doc')
    .where('client_id', '=', clientId)
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.doc;
}

/** Hands an operation back to the queue: no run holds it. */
export async function releaseRunner(trx: Kysely<Database>, clientId: string, id: string): Promise<void> {
  await trx.updateTable('pull_operations').set({ runner: null }).where('client_id', '=', clientId).where('id', '=', id).execute();
}

/** Records how many records a completed sync changed (what `read.completed` reports as `recordsModified`). */
export async function setRecordsModified(trx: Kysely<Database>, clientId: string, id: string, modified: number): Promise<void> {
  await trx
    .updateTable('pull_operations')
    .set({ records_modified: modified })
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .execute();
}

/** Switches a data set's readers to the version a sync completed, counting the sync and keeping its cursor. */
export async function completeDataSet(
  trx: Kysely<Database>,
  clientId: string,
  op: { connectionId: string; dataType: string; version: number; operationId: string; completed: string; cursor: string | null },
): Promise<void> {
  await trx
    .updateTable('data_sets')
    .set((eb) => ({
      current_version: op.version,
      completed_syncs: eb('completed_syncs', '+', 1),
      last_successful_sync: op.completed,
      latest_successful_sync_id: op.operationId,
      cursor: op.cursor,
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
    .select(['current_version', 'completed_syncs', 'cursor'])
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

/** A page of the company's pull operations, newest first unless `orderBy` says otherwise. */
export function pullOperationsPage(lists: ListContext, clientId: string, companyId: string, resource: Resource, page: PageRequest) {
  return companyDocsPage(lists, 'pull_operations', clientId, companyId, resource, page);
}
