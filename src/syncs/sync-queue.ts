import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { ApiError } from '../http/api-error.js';
import { connectionOfCompany } from '../connections/connections.store.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { createSyncsStore, deleteOperation, insertOperation, oldestOperationIn, operationIn, unfinishedOperation } from './syncs.store.js';
import { lockClient } from '../clients/clients.store.js';
import { findConnector } from '../connectors/registry.js';
import type { SyncSetting } from './sync-settings.js';
import { asCompanyWork, clockFor, currentBusinessTime } from '../lib/clock.js';

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
 * The connection (and so its company) as it stands once the client is locked: a caller looked it up before, and a
 * deletion (which locks the client too) may have taken it since. What is gone answers 404, never an operation
 * pointing at nothing (a foreign-key violation, a 500, on Postgres).
 */
async function stillThere(trx: Kysely<Database>, target: QueueTarget): Promise<void> {
  if (!(await connectionOfCompany(trx, target.clientId, target.companyId, target.connectionId)))
    throw new ApiError(404, `Data connection ${target.connectionId} not found`, { code: 'ConnectionGone' });
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
  await stillThere(trx, target);
  const running = await unfinishedOperation(trx, target.clientId, target.connectionId, target.dataType);
  if (running) throw alreadyInProgress(target, running.id);

  const id = randomUUID();
  const doc = await insertOperation(trx, target.clientId, {
    ...opOf(target),
    id,
    status: 'Queued',
    requested: now.toISOString(),
    clockAt: clockAt(now),
  });
  await asCompanyWork(target.companyId, () => jobs.enqueue(trx, { kind: SYNC_JOB, payload: { pullOperationId: id } }));
  return doc;
}

/**
 * A pull operation that waits for something before it syncs (Codat's upload session: `Initial` until the session
 * ends). Returns its id and document; `releaseOperation` queues it.
 */
export async function openOperation(trx: Kysely<Database>, target: QueueTarget, now: Date): Promise<{ id: string; doc: string }> {
  await lockClient(trx, target.clientId, true);
  await stillThere(trx, target);
  const id = randomUUID();
  const doc = await insertOperation(trx, target.clientId, {
    ...opOf(target),
    id,
    status: 'Initial',
    requested: now.toISOString(),
    clockAt: clockAt(now),
  });
  return { id, doc };
}

/**
 * Queues an operation opened with `openOperation`, keeping its id (the dataset id its client holds) and when it was
 * requested. It is written again as a new row: its seq, which numbers the version it writes, and its epoch must be
 * those of now, after any sync that completed while it waited (a version numbered before the one it builds on
 * would let that one's deletion take documents the new one shares). While a sync of its type is unfinished it
 * waits as `ProcessingQueued` (one sync of a type at a time); `releaseWaiting` queues it when that sync ends.
 */
export async function releaseOperation(trx: Kysely<Database>, jobs: JobQueue, clientId: string, id: string): Promise<void> {
  const row = await operationIn(trx, clientId, id, 'Initial');
  if (!row) return;
  const running = await unfinishedOperation(trx, clientId, row.connection_id, row.data_type);
  if (!running) return requeue(trx, jobs, row);
  await createSyncsStore(trx).update(trx, row, {
    status: 'ProcessingQueued',
    statusDescription: `Queued after sync ${running.id} of ${row.data_type}, which is still in progress.`,
  });
}

/**
 * Queues the oldest operation waiting for its type to be free (see `releaseOperation`), if the type is free. Call
 * it in the transaction that ends a sync.
 */
export async function releaseWaiting(
  trx: Kysely<Database>,
  jobs: JobQueue,
  clientId: string,
  connectionId: string,
  dataType: string,
): Promise<void> {
  if (await unfinishedOperation(trx, clientId, connectionId, dataType)) return;
  const next = await oldestOperationIn(trx, clientId, connectionId, dataType, 'ProcessingQueued');
  if (next) await requeue(trx, jobs, next);
}

async function requeue(
  trx: Kysely<Database>,
  jobs: JobQueue,
  row: { id: string; client_id: string; company_id: string; connection_id: string; data_type: string; requested: string },
): Promise<void> {
  await deleteOperation(trx, row.client_id, row.id);
  const target = { clientId: row.client_id, companyId: row.company_id, connectionId: row.connection_id, dataType: row.data_type };
  await insertOperation(trx, row.client_id, {
    ...opOf(target),
    id: row.id,
    status: 'Queued',
    requested: row.requested,
    clockAt: clockAt(clockFor(target).now()),
  });
  await asCompanyWork(target.companyId, () => jobs.enqueue(trx, { kind: SYNC_JOB, payload: { pullOperationId: row.id } }));
}

/** The time to count the Sandbox's epoch in days from, when the work runs on an emulator test clock (`epochOf`). */
function clockAt(now: Date): string | undefined {
  return currentBusinessTime()?.clockId === undefined ? undefined : now.toISOString();
}

function opOf(target: QueueTarget) {
  return { companyId: target.companyId, connectionId: target.connectionId, dataType: target.dataType, full: target.full === true };
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

/**
 * Queues a sync unless that type is already syncing on that connection, or the connection is gone (deleted while a
 * sync ran, or since the caller looked); returns the new operation's document, if any.
 */
export async function queueSyncIfIdle(trx: Kysely<Database>, jobs: JobQueue, target: QueueTarget, now: Date): Promise<string | undefined> {
  try {
    return await queueSync(trx, jobs, target, now);
  } catch (err) {
    if (err instanceof ApiError && (err.code === 'DatasetAlreadyInProgress' || err.code === 'ConnectionGone')) return undefined;
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
