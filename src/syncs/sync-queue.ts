import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { ApiError } from '../http/api-error.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { pullOperationDoc, type PullOperationState } from './pull-operation.js';
import { lockClient } from '../clients/clients.store.js';
import { findConnector } from '../connectors/registry.js';
import type { SyncSetting } from './sync-settings.js';

export const SYNC_JOB = 'sync-data-type';
/** Deletes the records of a superseded, failed or orphaned data-set version. */
export const DELETE_VERSION_JOB = 'delete-data-set-version';

export interface QueueTarget {
  clientId: string;
  companyId: string;
  connectionId: string;
  dataType: string;
  /** Read the platform in full (`?full=true`), not the changes since the last sync. */
  full?: boolean;
}

/**
 * Creates a Queued pull operation and its job in the caller's transaction. Throws 400
 * `DatasetAlreadyInProgressException` when that type is already syncing on that connection.
 * Returns the operation's document.
 */
export async function queueSync(trx: Kysely<Database>, jobs: JobQueue, target: QueueTarget, now: Date): Promise<string> {
  // The client row first (the lock order of every change to a client's data sets): two requests racing to
  // queue the same type take turns, so the second sees the first's operation instead of a unique violation.
  // It also moves the client's companies version, which keys the cached view of its data sets.
  await lockClient(trx, target.clientId, true);
  const running = await unfinishedSync(trx, target.connectionId, target.dataType);
  if (running) throw alreadyInProgress(target, running.id);

  const { id, doc } = await insertOperation(trx, target, now, 'Queued');
  await jobs.enqueue(trx, { kind: SYNC_JOB, payload: { pullOperationId: id } });
  return doc;
}

/**
 * A pull operation that waits for something before it syncs (Codat's upload session: `Initial` until the session
 * ends). Returns its id and document; `releaseOperation` queues it.
 */
export async function openOperation(trx: Kysely<Database>, target: QueueTarget, now: Date): Promise<{ id: string; doc: string }> {
  await lockClient(trx, target.clientId, true);
  return insertOperation(trx, target, now, 'Initial');
}

/**
 * Queues an operation opened with `openOperation`, keeping its id (the dataset id its client holds) and when it was
 * requested. It is written again as a new row: its seq, which numbers the version it writes, and its epoch must be
 * those of now, after any sync that completed while it waited (a version numbered before the one it builds on
 * would let that one's deletion take documents the new one shares). While a sync of its type is unfinished it
 * waits as `ProcessingQueued` (one sync of a type at a time); `releaseWaiting` queues it when that sync ends.
 */
export async function releaseOperation(trx: Kysely<Database>, jobs: JobQueue, id: string, now: Date): Promise<void> {
  const row = await trx
    .selectFrom('pull_operations')
    .select(['client_id', 'company_id', 'connection_id', 'data_type', 'requested', 'doc'])
    .where('id', '=', id)
    .where('status', '=', 'Initial')
    .executeTakeFirst();
  if (!row) return;
  const running = await unfinishedSync(trx, row.connection_id, row.data_type);
  if (!running) return requeue(trx, jobs, id, row, now);
  const state = {
    ...(JSON.parse(row.doc) as PullOperationState),
    status: 'ProcessingQueued' as const,
    statusDescription: `Queued after sync ${running.id} of ${row.data_type}, which is still in progress.`,
  };
  await trx
    .updateTable('pull_operations')
    .set({ status: state.status, doc: pullOperationDoc(state) })
    .where('id', '=', id)
    .execute();
}

/**
 * Queues the oldest operation waiting for its type to be free (see `releaseOperation`), if the type is free. Call
 * it in the transaction that ends a sync.
 */
export async function releaseWaiting(
  trx: Kysely<Database>,
  jobs: JobQueue,
  connectionId: string,
  dataType: string,
  now: Date,
): Promise<void> {
  if (await unfinishedSync(trx, connectionId, dataType)) return;
  const next = await trx
    .selectFrom('pull_operations')
    .select(['id', 'client_id', 'company_id', 'connection_id', 'data_type', 'requested'])
    .where('connection_id', '=', connectionId)
    .where('data_type', '=', dataType)
    .where('status', '=', 'ProcessingQueued')
    .orderBy('seq')
    .executeTakeFirst();
  if (next) await requeue(trx, jobs, next.id, next, now);
}

function unfinishedSync(trx: Kysely<Database>, connectionId: string, dataType: string) {
  return trx
    .selectFrom('pull_operations')
    .select('id')
    .where('connection_id', '=', connectionId)
    .where('data_type', '=', dataType)
    .where('status', 'in', ['Queued', 'Fetching'])
    .executeTakeFirst();
}

async function requeue(
  trx: Kysely<Database>,
  jobs: JobQueue,
  id: string,
  row: { client_id: string; company_id: string; connection_id: string; data_type: string; requested: string },
  now: Date,
): Promise<void> {
  await trx.deleteFrom('pull_operations').where('id', '=', id).execute();
  await insertOperation(
    trx,
    { clientId: row.client_id, companyId: row.company_id, connectionId: row.connection_id, dataType: row.data_type },
    now,
    'Queued',
    { id, requested: row.requested },
  );
  await jobs.enqueue(trx, { kind: SYNC_JOB, payload: { pullOperationId: id } });
}

async function insertOperation(
  trx: Kysely<Database>,
  target: QueueTarget,
  now: Date,
  status: 'Queued' | 'Initial',
  keep: { id: string; requested: string } = { id: randomUUID(), requested: now.toISOString() },
): Promise<{ id: string; doc: string }> {
  const dataSet = await trx
    .selectFrom('data_sets')
    .select(['completed_syncs'])
    .where('connection_id', '=', target.connectionId)
    .where('data_type', '=', target.dataType)
    .executeTakeFirst();
  if (!dataSet) {
    await trx
      .insertInto('data_sets')
      .values({
        connection_id: target.connectionId,
        data_type: target.dataType,
        client_id: target.clientId,
        company_id: target.companyId,
        current_version: null,
        last_successful_sync: null,
        latest_successful_sync_id: null,
      })
      .execute();
  }
  const { id, requested } = keep;
  const doc = pullOperationDoc({
    id,
    companyId: target.companyId,
    connectionId: target.connectionId,
    dataType: target.dataType,
    status,
    requested,
    progress: 0,
  });
  await trx
    .insertInto('pull_operations')
    .values({
      id,
      client_id: target.clientId,
      company_id: target.companyId,
      connection_id: target.connectionId,
      data_type: target.dataType,
      status,
      requested,
      epoch: Number(dataSet?.completed_syncs ?? 0),
      doc,
      full_sync: target.full ? 1 : 0,
    })
    .execute();
  return { id, doc };
}

/**
 * The first-link syncs of a connection (and `data/all`): every type its platform supports whose setting fetches it
 * on first link, in the settings' sync order; types already syncing are left alone.
 */
export async function queueFirstLinkSyncs(
  trx: Kysely<Database>,
  jobs: JobQueue,
  connection: { id: string; clientId: string; companyId: string; platformKey: string },
  settings: readonly SyncSetting[],
  now: Date,
): Promise<void> {
  const connector = findConnector(connection.platformKey);
  if (!connector) return;
  for (const setting of settings) {
    if (!setting.fetchOnFirstLink || !connector.dataTypes.has(setting.dataType)) continue;
    await queueSyncIfIdle(
      trx,
      jobs,
      { clientId: connection.clientId, companyId: connection.companyId, connectionId: connection.id, dataType: setting.dataType },
      now,
    );
  }
}

/** Queues a sync unless that type is already syncing on that connection; returns the new operation's document, if any. */
export async function queueSyncIfIdle(trx: Kysely<Database>, jobs: JobQueue, target: QueueTarget, now: Date): Promise<string | undefined> {
  try {
    return await queueSync(trx, jobs, target, now);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'DatasetAlreadyInProgress') return undefined;
    throw err;
  }
}

export function alreadyInProgress(target: QueueTarget, runningId: string): ApiError {
  return new ApiError(
    400,
    `DatasetAlreadyInProgressException: Cannot queue ${target.dataType} sync for ${target.companyId} as previous sync ${runningId} is still in progress`,
    { code: 'DatasetAlreadyInProgress' },
  );
}
