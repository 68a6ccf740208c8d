import {
  consumerFailingSince,
  disableConsumer,
  dropDelivery,
  pendingDelivery,
  setConsumerFailingSince,
  updatePendingDelivery,
} from './webhooks.store.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../storage/schema.js';
import type { JobHandler, JobQueue } from '../jobs/job-queue.js';
import { VERSION } from '../version.js';
import { clockFor } from '../lib/clock.js';
import { WEBHOOK_DELIVERY_JOB } from './events.js';
import { postOnce, type PostResult } from '../lib/outbound-guard.js';
import { ALLOW_PRIVATE_HINT } from './webhooks.service.js';
import { signatureHeaders } from './signing.js';
import type { Metrics, WebhookOutcome } from '../operations/metrics.js';

/** Delay before each retry after a failed attempt (facts 7): immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

export interface DeliveryOptions {
  allowPrivate?: boolean;
  retryScheduleMs?: readonly number[];
  timeoutMs?: number;
  disableAfterMs?: number;
}

export interface DeliveryDeps {
  db: Kysely<Database>;
  jobs: JobQueue;
  options?: DeliveryOptions;
  log?: Pick<Logger, 'info' | 'warn'>;
  /** Counts each attempt by outcome and attempt number. */
  metrics: Pick<Metrics, 'webhookAttempt'>;
  now?: () => Date;
  /** Deliveries made to misbehave to order (the emulator's fault rules); none in a service without them. */
  faults?: DeliveryFaults;
}

/** What a delivery's first attempt meets: sent twice, sent late, or held until the next delivery to its consumer. */
export type DeliveryFault = { mode: 'duplicate' } | { mode: 'delay'; delayMs: number } | { mode: 'reorder'; delayMs: number };

export interface DeliveryFaults {
  /** The fault a delivery's first attempt meets, if a rule fires for it (each firing is counted once). */
  beforeFirstAttempt(target: {
    deliveryId: string;
    clientId: string;
    companyId: string | null;
    eventType: string;
    body: string;
  }): Promise<DeliveryFault | undefined>;
  /** Holds a delivery until another delivery to its consumer has been attempted (in the caller's transaction). */
  hold(executor: Kysely<Database>, deliveryId: string, consumerId: string): Promise<void>;
  /** Takes the deliveries held for a consumer, each once (in the caller's transaction). */
  release(executor: Kysely<Database>, consumerId: string): Promise<string[]>;
  /** Takes one held delivery: false when it was released already. */
  takeHeld(executor: Kysely<Database>, deliveryId: string): Promise<boolean>;
}

interface Due {
  id: string;
  attempts: number;
  consumerId: string;
  clientId: string;
  url: string;
  secret: string;
  disabled: boolean;
  body: string;
  eventType: string;
  companyId: string | null;
}

/** A delivery's job: `held` runs when a held delivery's wait ends, `released` once the delivery it waited behind went. */
const jobPayload = (deliveryId: string, fault?: 'held' | 'released') => ({ deliveryId, ...(fault ? { fault } : {}) });
/** The longest a `delay` fault keeps a delivery's job waiting (a job holds its slot meanwhile). */
const MAX_FAULT_DELAY_MS = 60_000;

/** A 2xx delivered; any other answer was the receiver's refusal; no answer (timeout, network, refused address) at all. */
function attemptOutcome(result: PostResult): WebhookOutcome {
  if (result.status === undefined) return 'unreachable';
  return result.status >= 200 && result.status < 300 ? 'delivered' : 'rejected';
}

/**
 * Delivers one event to one consumer per job: POSTs the stored body with Standard Webhooks signature headers,
 * then records the outcome and, after a failure, queues the next attempt in the same transaction.
 * The `webhook-id` (the delivery id) is the same on every attempt, so receivers can deduplicate. A worker that
 * died after POSTing but before recording is followed by a second POST of the same attempt: at least once.
 */
export function createWebhookDeliveryJob(deps: DeliveryDeps): JobHandler {
  const { db, jobs } = deps;
  // eslint-disable-next-line no-restricted-syntax -- real time: the signature's timestamp, which receivers check against their own clocks, and how long a consumer has failed
  const realNow = () => new Date();
  // Business time: when an attempt is recorded and the next one is due (an emulator test clock's, for a company on one).
  const now = deps.now ?? (() => clockFor({}).now());
  const schedule = deps.options?.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
  const timeoutMs = deps.options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const disableAfterMs = deps.options?.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS;
  const allowPrivate = deps.options?.allowPrivate ?? false;

  async function load(deliveryId: string): Promise<Due | undefined> {
    const row = await pendingDelivery(db, deliveryId);
    return (
      row && {
        id: row.id,
        attempts: Number(row.attempts),
        consumerId: row.consumer_id,
        clientId: row.client_id,
        url: row.url,
        secret: row.secret,
        disabled: Number(row.disabled) !== 0,
        body: row.body,
        eventType: row.event_type,
        companyId: row.company_id,
      }
    );
  }

  /** Records the attempt's outcome; `attempts` guards against a second worker having recorded it already. */
  async function record(due: Due, result: PostResult, finished: Date): Promise<void> {
    const attempt = due.attempts + 1;
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    const outcome = {
      attempts: attempt,
      last_response_status: result.status ?? null,
      last_error: ok ? null : (result.error ?? `the receiver answered ${result.status}`),
    };
    const at = finished.toISOString();
    // A consumer serves every company of its client, on whatever clocks: how long it has failed is counted in real time.
    const failedAt = realNow();
    await db.transaction().execute(async (trx) => {
      const current = (changes: Parameters<typeof updatePendingDelivery>[3]) => updatePendingDelivery(trx, due.id, due.attempts, changes);
      if (ok) {
        await current({ ...outcome, status: 'delivered', next_attempt: null, delivered: at });
        await setConsumerFailingSince(trx, due.consumerId, null);
        return;
      }
      const failingSince = await consumerFailingSince(trx, due.consumerId);
      if (failingSince === undefined) return; // deleted meanwhile: its deliveries went with it
      if (failingSince === null) {
        await setConsumerFailingSince(trx, due.consumerId, failedAt.toISOString());
      } else if (failedAt.getTime() - Date.parse(failingSince) >= disableAfterMs) {
        // Every delivery has failed for too long: stop sending to this endpoint altogether.
        await current({ ...outcome, next_attempt: null });
        await disableConsumer(trx, due.consumerId);
        deps.log?.warn({ consumerId: due.consumerId, failingSince }, 'webhook consumer disabled after failing deliveries');
        return;
      }
      const delay = schedule[attempt - 1];
      if (delay === undefined) {
        await current({ ...outcome, status: 'failed', next_attempt: null });
        return;
      }
      const next = new Date(finished.getTime() + delay);
      if (await current({ ...outcome, next_attempt: next.toISOString() }))
        await jobs.enqueue(trx, { kind: WEBHOOK_DELIVERY_JOB, payload: jobPayload(due.id), dueAt: next });
    });
  }

  /** The fault of this run: none on a retry, on a held delivery's run, or without fault rules. */
  async function faultOf(due: Due, payload: { fault?: unknown }): Promise<DeliveryFault | undefined> {
    if (!deps.faults || due.attempts > 0 || payload.fault !== undefined) return undefined;
    return deps.faults.beforeFirstAttempt({
      deliveryId: due.id,
      clientId: due.clientId,
      companyId: due.companyId,
      eventType: due.eventType,
      body: due.body,
    });
  }

  async function post(due: Due): Promise<PostResult> {
    const headers = {
      'content-type': 'application/json',
      'user-agent': `Ledgerport-Webhooks/${VERSION}`,
      ...signatureHeaders(due.secret, due.id, due.body, realNow()),
    };
    return postOnce(due.url, headers, due.body, { timeoutMs, allowPrivate });
  }

  return {
    async run(payload: { deliveryId?: unknown; fault?: unknown }) {
      if (typeof payload?.deliveryId !== 'string') return;
      const due = await load(payload.deliveryId);
      if (!due) {
        // Delivered, given up, dropped, or its consumer was deleted; a hold it had goes with it.
        if (payload.fault === 'held') await deps.faults?.takeHeld(db, payload.deliveryId);
        return;
      }
      if (due.disabled) {
        await dropDelivery(db, due.id);
        return;
      }
      // A held delivery whose wait ended: sent now, unless the delivery it waited behind released it already.
      if (payload.fault === 'held' && deps.faults && !(await deps.faults.takeHeld(db, due.id))) return;
      const fault = await faultOf(due, payload);
      if (fault?.mode === 'reorder') {
        const faults = deps.faults;
        // Held, and its wait's end queued (the longest it waits for the next one, in real time), together.
        await db.transaction().execute(async (trx) => {
          await faults?.hold(trx, due.id, due.consumerId);
          await jobs.enqueue(trx, {
            kind: WEBHOOK_DELIVERY_JOB,
            payload: jobPayload(due.id, 'held'),
            runAfter: new Date(realNow().getTime() + fault.delayMs),
          });
        });
        return;
      }
      if (fault?.mode === 'delay') await sleep(Math.min(fault.delayMs, MAX_FAULT_DELAY_MS));
      // A duplicate: the same message (the same webhook-id) sent twice, as a sender retrying a lost answer would.
      if (fault?.mode === 'duplicate') await post(due);
      const posted = await post(due);
      const result = posted.refusedAddress ? { ...posted, error: `${posted.error}; ${ALLOW_PRIVATE_HINT}` } : posted;
      // The URL and secret stay out of the log: the URL may carry credentials.
      deps.log?.info(
        { deliveryId: due.id, consumerId: due.consumerId, attempt: due.attempts + 1, status: result.status, error: result.error },
        'webhook attempt',
      );
      deps.metrics.webhookAttempt(attemptOutcome(result), due.attempts + 1);
      await record(due, result, now());
      // Deliveries a reorder rule held behind this consumer's next one go now (released and queued together).
      const faults = deps.faults;
      if (faults)
        await db.transaction().execute(async (trx) => {
          for (const id of await faults.release(trx, due.consumerId))
            await jobs.enqueue(trx, { kind: WEBHOOK_DELIVERY_JOB, payload: jobPayload(id, 'released') });
        });
    },
  };
}
