import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../storage/schema.js';
import type { JobHandler } from '../jobs/job-queue.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { ClientsStore } from '../clients/clients.store.js';
import type { Metrics } from '../operations/metrics.js';
import { WEBHOOK_DELIVERY_JOB } from './events.js';
import { createWebhookDeliveryJob, type DeliveryFaults, type DeliveryOptions } from './delivery-job.js';
import { createRateLimitResetJob, RATE_LIMIT_RESET_JOB } from './rate-limit-events.js';

/** The job runner's handlers for webhooks: deliveries, and the rate-limit reset announcement. */
export function webhookJobHandlers(deps: {
  db: Kysely<Database>;
  jobs: JobQueue;
  clients: ClientsStore;
  options?: DeliveryOptions;
  log?: Pick<Logger, 'info' | 'warn'>;
  metrics: Pick<Metrics, 'webhookAttempt'>;
  faults?: DeliveryFaults;
}): Record<string, JobHandler> {
  return {
    [WEBHOOK_DELIVERY_JOB]: createWebhookDeliveryJob({
      db: deps.db,
      jobs: deps.jobs,
      options: deps.options,
      log: deps.log,
      metrics: deps.metrics,
      faults: deps.faults,
    }),
    [RATE_LIMIT_RESET_JOB]: createRateLimitResetJob({ db: deps.db, jobs: deps.jobs, clients: deps.clients }),
  };
}
