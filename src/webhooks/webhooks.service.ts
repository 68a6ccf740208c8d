import {
  consumerOf,
  consumersOf,
  countConsumers,
  deleteConsumer,
  deliveriesOf,
  deliveryOf,
  disableConsumer,
  enableConsumer,
  insertConsumer,
  insertDelivery,
} from './webhooks.store.js';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { ApiError, notFound, validationError, type ValidationItem } from '../http/api-error.js';
import { lockClient } from '../clients/clients.store.js';
import { isEventType, newMessageId, WEBHOOK_DELIVERY_JOB } from './events.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { refusedHost } from '../lib/outbound-guard.js';
import { generateSecret } from './signing.js';
import type { WebhookConsumer, WebhookConsumerPrototype } from './webhook-consumer.schema.js';
import { clockFor } from '../lib/clock.js';

export const MAX_WEBHOOK_CONSUMERS = 50;

const VALIDATOR = 'CreateWebhookConsumer';

type ConsumerRow = Pick<Database['webhook_consumers'], 'id' | 'url' | 'disabled' | 'event_types' | 'company_tags'>;

function toConsumer(row: ConsumerRow): WebhookConsumer {
  return {
    id: row.id,
    url: row.url,
    disabled: Number(row.disabled) !== 0,
    eventTypes: JSON.parse(row.event_types) as string[],
    companyTags: row.company_tags === null ? null : (JSON.parse(row.company_tags) as string[]),
  };
}

/** What an operator sets to let consumers live on internal addresses: said with every refusal of one. */
export const ALLOW_PRIVATE_HINT = 'set WEBHOOKS_ALLOW_PRIVATE=true on the server to allow internal addresses';

/** What the body schema cannot say: the URL's scheme and host, known event types, `tagKey:tagValue`. */
function check(input: WebhookConsumerPrototype, allowPrivate: boolean): ValidationItem[] {
  const items: ValidationItem[] = [];
  const problem = (itemId: string, message: string) => items.push({ itemId, message, validatorName: VALIDATOR });
  let url: URL | undefined;
  try {
    url = new URL(input.url);
  } catch {
    problem('url', 'url must be an absolute http or https address');
  }
  if (url && url.protocol !== 'http:' && url.protocol !== 'https:') problem('url', 'url must be an absolute http or https address');
  else if (url && !allowPrivate) {
    const refused = refusedHost(url.hostname);
    if (refused) problem('url', `url must not point at a loopback, private or link-local address (${refused}); ${ALLOW_PRIVATE_HINT}`);
  }
  input.eventTypes.forEach((eventType, i) => {
    if (!isEventType(eventType)) problem(`eventTypes.${i}`, `eventTypes.${i} (${JSON.stringify(eventType)}) is not a known event type`);
  });
  (input.companyTags ?? []).forEach((tag, i) => {
    if (tag.indexOf(':') < 1) problem(`companyTags.${i}`, `companyTags.${i} must have the form tagKey:tagValue`);
  });
  return items;
}

/** A delivery as the portal lists it. */
export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  /** pending | delivered | failed | dropped */
  status: string;
  attempts: number;
  nextAttempt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  created: string;
  delivered: string | null;
}

const consumerNotFound = (consumerId: string) =>
  notFound(`WebhookConsumerNotFoundException: No webhook consumer was found with ID ${consumerId}`);

/**
 * A client's webhook consumers: list, create (with a signing secret shown once), delete, disable and enable; their
 * recent deliveries, and replaying one (with `jobs`).
 */
export function createWebhooksService(deps: {
  db: Kysely<Database>;
  allowPrivate?: boolean;
  now?: () => Date;
  jobs?: JobQueue;
  wakeJobs?: () => void;
}) {
  const { db } = deps;
  const now = deps.now ?? (() => clockFor({}).now());

  return {
    /** The client's consumers, oldest first. */
    async list(clientId: string): Promise<WebhookConsumer[]> {
      const rows = await consumersOf(db, clientId);
      return rows.map(toConsumer);
    },

    /** 400 for a bad body, 409 once the client holds {@link MAX_WEBHOOK_CONSUMERS}. */
    async create(clientId: string, input: WebhookConsumerPrototype): Promise<WebhookConsumer & { secret: string }> {
      const items = check(input, deps.allowPrivate ?? false);
      if (items.length > 0) throw validationError('ValidationException: One or more validation errors occurred.', items);
      const row = {
        id: randomUUID(),
        url: input.url,
        disabled: input.disabled ? 1 : 0,
        event_types: JSON.stringify([...new Set(input.eventTypes)]),
        company_tags: input.companyTags == null ? null : JSON.stringify(input.companyTags),
      };
      const secret = generateSecret();
      await db.transaction().execute(async (trx) => {
        await lockClient(trx, clientId);
        if ((await countConsumers(trx, clientId)) >= MAX_WEBHOOK_CONSUMERS) {
          throw new ApiError(
            409,
            `WebhookConsumerLimitException: A client can hold at most ${MAX_WEBHOOK_CONSUMERS} webhook consumers; delete one before creating another.`,
            { code: 'WebhookConsumerLimit' },
          );
        }
        await insertConsumer(trx, clientId, { ...row, secret, created: now().toISOString(), failing_since: null });
      });
      return { ...toConsumer(row), secret };
    },

    /** Deletes the consumer; its undelivered messages go with it. */
    async delete(clientId: string, consumerId: string): Promise<void> {
      if (!(await deleteConsumer(db, clientId, consumerId))) throw consumerNotFound(consumerId);
    },

    async get(clientId: string, consumerId: string): Promise<WebhookConsumer> {
      const row = await consumerOf(db, clientId, consumerId);
      if (!row) throw consumerNotFound(consumerId);
      return toConsumer(row);
    },

    /** Disabling stops sending at once: the consumer's pending deliveries are dropped (as when it fails too long). */
    async setDisabled(clientId: string, consumerId: string, disabled: boolean): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (!(await consumerOf(trx, clientId, consumerId))) throw consumerNotFound(consumerId);
        if (disabled) await disableConsumer(trx, consumerId);
        else await enableConsumer(trx, clientId, consumerId);
      });
    },

    /** The consumer's latest deliveries, newest first. */
    async deliveries(clientId: string, consumerId: string, limit = 50): Promise<WebhookDelivery[]> {
      if (!(await consumerOf(db, clientId, consumerId))) throw consumerNotFound(consumerId);
      const rows = await deliveriesOf(db, clientId, consumerId, limit);
      return rows.map((r) => ({
        id: r.id,
        eventId: r.event_id,
        eventType: r.event_type,
        status: r.status,
        attempts: Number(r.attempts),
        nextAttempt: r.next_attempt,
        lastResponseStatus: r.last_response_status === null ? null : Number(r.last_response_status),
        lastError: r.last_error,
        created: r.created,
        delivered: r.delivered,
      }));
    },

    /**
     * Sends a delivery's event again, as a new delivery with its own `webhook-id` (a receiver that deduplicates
     * must see it as new: it is replayed because the first was lost or mishandled) and the full retry schedule.
     * 409 while the consumer is disabled. Returns the new delivery's id.
     */
    async replay(clientId: string, consumerId: string, deliveryId: string): Promise<string> {
      const { jobs } = deps;
      if (!jobs) throw new Error('replaying a delivery needs the job queue');
      const id = newMessageId();
      await db.transaction().execute(async (trx) => {
        await lockClient(trx, clientId);
        const consumer = await consumerOf(trx, clientId, consumerId);
        if (!consumer) throw consumerNotFound(consumerId);
        const delivery = await deliveryOf(trx, clientId, consumerId, deliveryId);
        if (!delivery) throw notFound(`WebhookDeliveryNotFoundException: No delivery was found with ID ${deliveryId}`);
        if (Number(consumer.disabled) !== 0)
          throw new ApiError(409, `WebhookConsumerDisabledException: Webhook consumer ${consumerId} is disabled; enable it to replay.`);
        const at = now().toISOString();
        await insertDelivery(trx, clientId, {
          id,
          event_id: delivery.event_id,
          consumer_id: consumerId,
          status: 'pending',
          attempts: 0,
          next_attempt: at,
          last_response_status: null,
          last_error: null,
          created: at,
          delivered: null,
        });
        await jobs.enqueue(trx, { kind: WEBHOOK_DELIVERY_JOB, payload: { deliveryId: id } });
      });
      deps.wakeJobs?.();
      return id;
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
