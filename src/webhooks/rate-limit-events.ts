import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobHandler } from '../jobs/job-queue.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { ClientsStore } from '../clients/clients.store.js';
import { dailyQuotaOf } from '../access/rate-limiter.js';
import { recordEvent } from './events.js';

/** Fires `client.rateLimit.reset` when the window whose quota was exceeded ends. */
export const RATE_LIMIT_RESET_JOB = 'webhook-rate-limit-reset';

const DAY_MS = 86_400_000;

/**
 * `client.rateLimit.reached`, and the durable job that announces the reset at the end of the window, in one
 * transaction. The rate limiter calls this once per window: when the atomic counter goes from quota to quota+1.
 * This transaction follows the counter's own statement rather than enclosing it: a process dying between the
 * two loses this one notification, where a transaction around every limited request's counter would cost
 * each of them two more round trips to the store.
 */
export async function recordRateLimitReached(
  db: Kysely<Database>,
  jobs: JobQueue,
  event: { clientId: string; dailyQuota: number; reset: Date },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await recordEvent(trx, jobs, {
      clientId: event.clientId,
      eventType: 'client.rateLimit.reached',
      companyId: null,
      payload: { dailyQuota: event.dailyQuota, quotaRemaining: 0, expiryDate: event.reset.toISOString() },
    });
    await jobs.enqueue(trx, {
      kind: RATE_LIMIT_RESET_JOB,
      payload: { clientId: event.clientId, reset: event.reset.toISOString() },
      dueAt: event.reset,
    });
  });
}

/** The reset job: the whole quota is available again until the next reset. */
export function createRateLimitResetJob(deps: { db: Kysely<Database>; jobs: JobQueue; clients: ClientsStore }): JobHandler {
  return {
    async run(payload: { clientId?: unknown; reset?: unknown }) {
      if (typeof payload?.clientId !== 'string' || typeof payload.reset !== 'string') return;
      const client = await deps.clients.get(payload.clientId);
      if (!client) return;
      // The quota as it stands now: it grows with the client's linked companies and operators may change it.
      const quota = await dailyQuotaOf(deps.clients, client);
      if (quota === undefined) return;
      const expiryDate = new Date(Date.parse(payload.reset) + DAY_MS).toISOString();
      await deps.db.transaction().execute((trx) =>
        recordEvent(trx, deps.jobs, {
          clientId: client.id,
          eventType: 'client.rateLimit.reset',
          companyId: null,
          payload: { dailyQuota: quota, quotaRemaining: quota, expiryDate },
        }),
      );
    },
  };
}
