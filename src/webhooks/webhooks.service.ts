import { consumersOf, countConsumers, deleteConsumer, insertConsumer } from './webhooks.store.js';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { ApiError, notFound, validationError, type ValidationItem } from '../http/api-error.js';
import { lockClient } from '../clients/clients.store.js';
import { isEventType } from './events.js';
import { refusedHost } from '../lib/outbound-guard.js';
import { generateSecret } from './signing.js';
import type { WebhookConsumer, WebhookConsumerPrototype } from './webhook-consumer.schema.js';

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
    if (refused) problem('url', `url must not point at a loopback, private or link-local address (${refused})`);
  }
  input.eventTypes.forEach((eventType, i) => {
    if (!isEventType(eventType)) problem(`eventTypes.${i}`, `eventTypes.${i} (${JSON.stringify(eventType)}) is not a known event type`);
  });
  (input.companyTags ?? []).forEach((tag, i) => {
    if (tag.indexOf(':') < 1) problem(`companyTags.${i}`, `companyTags.${i} must have the form tagKey:tagValue`);
  });
  return items;
}

/** A client's webhook consumers: list, create (with a signing secret shown once), delete. */
export function createWebhooksService(deps: { db: Kysely<Database>; allowPrivate?: boolean; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

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
      if (!(await deleteConsumer(db, clientId, consumerId)))
        throw notFound(`WebhookConsumerNotFoundException: No webhook consumer was found with ID ${consumerId}`);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
