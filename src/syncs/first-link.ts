import type { JobQueue } from '../jobs/job-queue.js';
import type { QueueFirstSyncs } from '../connections/connections.service.js';
import { queueFirstLinkSyncs } from './sync-queue.js';
import { effectiveSyncSettingsOf } from './sync-settings.store.js';
import { clockFor } from '../lib/clock.js';

/**
 * A newly linked connection's first syncs: each type the platform supports whose sync setting says
 * `fetchOnFirstLink`, in sync order, queued in the link's transaction. Handed to the connections service by app.ts.
 */
export function queueFirstSyncsOf(jobs: JobQueue, now: () => Date = () => clockFor({}).now()): QueueFirstSyncs {
  return async (trx, connection) => {
    const settings = await effectiveSyncSettingsOf(trx, connection.client_id, connection.company_id);
    await queueFirstLinkSyncs(
      trx,
      jobs,
      { id: connection.id, clientId: connection.client_id, companyId: connection.company_id, platformKey: connection.platform_key },
      settings,
      now(),
    );
  };
}
