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
  pullOperationDoc,
  type DatasetStatus,
  type PullOperationState,
} from './pull-operation.js';
import { dataSetOf } from './data-sets.store.js';

export type PullOperationRow = Selectable<PullOperationsTable>;

/** Storage of pull operations (which data-set version readers see is data-sets.store.ts). */
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
 * Statements run inside the caller's transaction (`trx`), for queueing syncs (reporting them: read-reports.store.ts).
 * Each takes the client id after the transaction and keeps to that client's rows.
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
  /** On an emulator test clock: the clock's time, from which the epoch counts days rather than syncs (`epochOf`). */
  clockAt?: string;
}

const DAY_MS = 86_400_000;

/**
 * Where a data set's next read stands (the Sandbox's epoch, docs/sandbox.md): in real time, the number of its completed
 * syncs, and at least one past the epoch its last completed sync read (so a data set that moved by days on an emulator
 * test clock goes on from there once its company leaves the clock). On a clock (`clockAt`), the whole days of the
 * clock since the data set's first sync was requested, so the Sandbox's new, changed and deleted records come per
 * simulated day however often it syncs (never below an epoch already read).
 */
export async function epochOf(
  executor: Kysely<Database>,
  clientId: string,
  of: { connectionId: string; dataType: string },
  dataSet: { completed_syncs: number | string; read_epoch: number | string | null; company_id: string } | undefined,
  clockAt?: string,
): Promise<number> {
  if (!dataSet) return 0;
  const read = dataSet.read_epoch === null ? undefined : Number(dataSet.read_epoch);
  if (clockAt === undefined) return Math.max(Number(dataSet.completed_syncs ?? 0), read === undefined ? 0 : read + 1);
  const row = await executor
    .selectFrom('pull_operations')
    .select((eb) => [eb.fn.min('requested').as('first'), eb.fn.max('epoch').as('epoch')])
    .where('client_id', '=', clientId)
    // The company's operations only (its index): never a scan of every company's history.
    .where('company_id', '=', dataSet.company_id)
    .where('connection_id', '=', of.connectionId)
    .where('data_type', '=', of.dataType)
    .executeTakeFirst();
  if (row?.first == null) return 0;
  const days = Math.floor((Date.parse(clockAt) - Date.parse(String(row.first))) / DAY_MS);
  return Math.max(Number(row.epoch ?? 0), days);
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
      epoch: await epochOf(trx, clientId, op, dataSet, op.clockAt),
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

/** A page of the company's pull operations, newest first unless `orderBy` says otherwise. */
export function pullOperationsPage(lists: ListContext, clientId: string, companyId: string, resource: Resource, page: PageRequest) {
  return companyDocsPage(lists, 'pull_operations', clientId, companyId, resource, page);
}

/** How many of the client's syncs are reading now (held by a run): the emulator's reset waits for none. */
export async function runningSyncCount(executor: Kysely<Database>, clientId: string): Promise<number> {
  const row = await executor
    .selectFrom('pull_operations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('client_id', '=', clientId)
    .where('status', '=', 'Fetching')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
