import type { JobQueue } from '../jobs/job-queue.js';
import type { DeletionStep } from '../storage/deletion.js';
import { deleteSyncs } from './data-sets.store.js';
import { DELETE_VERSION_JOB } from './sync-queue.js';

/**
 * The syncs' part of deleting a company or a connection: pull operations and data sets go in the transaction; the
 * synced records of their versions are deleted by background jobs queued in it.
 */
export function deleteSyncsStep(jobs: JobQueue): DeletionStep {
  return async (trx, clientId, scope) => {
    for (const version of await deleteSyncs(trx, clientId, scope)) {
      await jobs.enqueue(trx, { kind: DELETE_VERSION_JOB, payload: { version } });
    }
  };
}
