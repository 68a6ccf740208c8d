import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { findConnector } from '../connectors/registry.js';
import { queueSyncIfIdle } from './sync-queue.js';
import { lockClient } from '../clients/clients.store.js';
import { linkedConnectionsWithSettings } from './sync-settings.store.js';
import { lastRequested, lastRequestedByType } from './syncs.store.js';

/** Whose schedules: only these companies, or all but these (ids). */
export interface ScheduleScope {
  only?: ReadonlySet<string>;
  except?: ReadonlySet<string>;
}

interface Scheduled {
  connection: { id: string; client_id: string; company_id: string };
  dataType: string;
  /** When the type was last requested; undefined for never. */
  last: string | undefined;
  /** When its next scheduled sync is due, in ms. */
  dueMs: number;
}

/** Each scheduled data type of each linked connection in scope, with when its next sync is due. */
async function scheduledTypes(db: Kysely<Database>, scope: ScheduleScope): Promise<Scheduled[]> {
  if (scope.only?.size === 0) return [];
  const connections = (await linkedConnectionsWithSettings(db, scope.only && [...scope.only])).filter(
    (c) => !scope.except?.has(c.company_id),
  );
  const out: Scheduled[] = [];
  for (const connection of connections) {
    const connector = findConnector(connection.platform_key);
    if (!connector) continue;
    const requested = await lastRequestedByType(db, connection.client_id, connection.id);
    for (const setting of connection.settings) {
      if (setting.syncSchedule <= 0 || !connector.dataTypes.has(setting.dataType)) continue;
      const last = requested.get(setting.dataType);
      // A type left out of the first link waits until someone asks for it.
      if (!last && !setting.fetchOnFirstLink) continue;
      out.push({ connection, dataType: setting.dataType, last, dueMs: last ? Date.parse(last) + setting.syncSchedule * 3_600_000 : 0 });
    }
  }
  return out;
}

/**
 * Queues each data type of each linked connection once its `syncSchedule` hours have passed since its last
 * sync was requested (types already syncing are skipped). Run by a timer in every worker process (for the companies
 * on real time); two running it at once queue each due sync once. Returns how many it queued.
 */
export async function queueDueSyncs(db: Kysely<Database>, jobs: JobQueue, now: Date, scope: ScheduleScope = {}): Promise<number> {
  return (await queueSchedule(db, jobs, now, scope)).queued;
}

/**
 * `queueDueSyncs`, also telling when the next sync in scope falls due after `now` (an emulator clock's advance moves the
 * clock there when it queued nothing): one read of the schedule for both.
 */
export async function queueSchedule(
  db: Kysely<Database>,
  jobs: JobQueue,
  now: Date,
  scope: ScheduleScope,
): Promise<{ queued: number; nextDue: Date | undefined }> {
  let queued = 0;
  let nextDue: number | undefined;
  for (const { connection, dataType, last, dueMs } of await scheduledTypes(db, scope)) {
    if (dueMs > now.getTime()) {
      if (nextDue === undefined || dueMs < nextDue) nextDue = dueMs;
      continue;
    }
    const doc = await db.transaction().execute(async (trx) => {
      await lockClient(trx, connection.client_id, true);
      // Every worker runs the schedule: another one may have queued (and even finished) this sync since the
      // read above. Under the client lock, the newest request tells.
      if ((await lastRequested(trx, connection.client_id, connection.id, dataType)) !== last) return undefined;
      return queueSyncIfIdle(
        trx,
        jobs,
        { clientId: connection.client_id, companyId: connection.company_id, connectionId: connection.id, dataType },
        now,
      );
    });
    if (doc) queued++;
  }
  return { queued, nextDue: nextDue === undefined ? undefined : new Date(nextDue) };
}
