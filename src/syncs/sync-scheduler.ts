import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { findConnector } from '../connectors/registry.js';
import { queueSyncIfIdle } from './sync-queue.js';
import { lockClient } from '../clients/clients.store.js';
import { linkedConnectionsWithSettings } from './sync-settings.store.js';
import { lastRequested, lastRequestedByType } from './syncs.store.js';

/**
 * Queues each data type of each linked connection once its `syncSchedule` hours have passed since its last
 * sync was requested (types already syncing are skipped). Run by a timer in every worker process; two running
 * it at once queue each due sync once.
 */
export async function queueDueSyncs(db: Kysely<Database>, jobs: JobQueue, now: Date): Promise<number> {
  const connections = await linkedConnectionsWithSettings(db);
  let queued = 0;
  for (const connection of connections) {
    const connector = findConnector(connection.platform_key);
    if (!connector) continue;
    const requested = await lastRequestedByType(db, connection.client_id, connection.id);
    for (const setting of connection.settings) {
      if (setting.syncSchedule <= 0 || !connector.dataTypes.has(setting.dataType)) continue;
      const last = requested.get(setting.dataType);
      // A type left out of the first link waits until someone asks for it.
      if (!last && !setting.fetchOnFirstLink) continue;
      if (last && Date.parse(last) + setting.syncSchedule * 3_600_000 > now.getTime()) continue;
      const doc = await db.transaction().execute(async (trx) => {
        await lockClient(trx, connection.client_id, true);
        // Every worker runs the schedule: another one may have queued (and even finished) this sync since the
        // read above. Under the client lock, the newest request tells.
        if ((await lastRequested(trx, connection.client_id, connection.id, setting.dataType)) !== last) return undefined;
        return queueSyncIfIdle(
          trx,
          jobs,
          { clientId: connection.client_id, companyId: connection.company_id, connectionId: connection.id, dataType: setting.dataType },
          now,
        );
      });
      if (doc) queued++;
    }
  }
  return queued;
}
