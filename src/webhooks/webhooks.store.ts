import type { Kysely, Selectable } from 'kysely';
import type { Database, WebhookConsumersTable, WebhookDeliveriesTable, WebhookEventsTable } from '../storage/schema.js';

/*
 * Webhook consumers, the events recorded for them and their deliveries. Functions a request or a change reaches take
 * the executor, then the client id, and keep to that client's rows; the delivery job's take the delivery or consumer
 * id it was queued with (ids of the client's own rows).
 */

/** The client's consumers, oldest first (`enabled`: only those not disabled). */
export function consumersOf(executor: Kysely<Database>, clientId: string, options: { enabled?: boolean } = {}) {
  let query = executor
    .selectFrom('webhook_consumers')
    .select(['id', 'url', 'disabled', 'event_types', 'company_tags'])
    .where('client_id', '=', clientId);
  if (options.enabled) query = query.where('disabled', '=', 0);
  return query.orderBy('created').orderBy('id').execute();
}

export async function countConsumers(executor: Kysely<Database>, clientId: string): Promise<number> {
  const row = await executor
    .selectFrom('webhook_consumers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertConsumer(
  trx: Kysely<Database>,
  clientId: string,
  row: Omit<Selectable<WebhookConsumersTable>, 'client_id'>,
): Promise<void> {
  await trx
    .insertInto('webhook_consumers')
    .values({ ...row, client_id: clientId })
    .execute();
}

/** Deletes a consumer (its undelivered messages go with it); false when the client has no such consumer. */
export async function deleteConsumer(executor: Kysely<Database>, clientId: string, consumerId: string): Promise<boolean> {
  const result = await executor
    .deleteFrom('webhook_consumers')
    .where('client_id', '=', clientId)
    .where('id', '=', consumerId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertEvent(
  trx: Kysely<Database>,
  clientId: string,
  event: Omit<Selectable<WebhookEventsTable>, 'client_id'>,
): Promise<void> {
  await trx
    .insertInto('webhook_events')
    .values({ ...event, client_id: clientId })
    .execute();
}

export async function insertDelivery(
  trx: Kysely<Database>,
  clientId: string,
  delivery: Omit<Selectable<WebhookDeliveriesTable>, 'client_id'>,
): Promise<void> {
  await trx
    .insertInto('webhook_deliveries')
    .values({ ...delivery, client_id: clientId })
    .execute();
}

/** A pending delivery with what sending it needs: its consumer's address and secret, and the event's body. */
export function pendingDelivery(executor: Kysely<Database>, deliveryId: string) {
  return executor
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_consumers as c', 'c.id', 'd.consumer_id')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.attempts',
      'd.consumer_id',
      'd.client_id',
      'c.url',
      'c.secret',
      'c.disabled',
      'e.body',
      'e.event_type',
      'e.company_id',
    ])
    .where('d.id', '=', deliveryId)
    .where('d.status', '=', 'pending')
    .executeTakeFirst();
}

type DeliveryChanges = Partial<
  Pick<Selectable<WebhookDeliveriesTable>, 'status' | 'attempts' | 'next_attempt' | 'last_response_status' | 'last_error' | 'delivered'>
>;

/**
 * Records an attempt's outcome on a pending delivery, if it still has `attempts` attempts behind it (compare and
 * swap: a second worker may have recorded it already); false when it had moved on.
 */
export async function updatePendingDelivery(
  trx: Kysely<Database>,
  deliveryId: string,
  attempts: number,
  changes: DeliveryChanges,
): Promise<boolean> {
  const updated = await trx
    .updateTable('webhook_deliveries')
    .set(changes)
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .where('attempts', '=', attempts)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Drops a pending delivery (its consumer is disabled). */
export async function dropDelivery(executor: Kysely<Database>, deliveryId: string): Promise<void> {
  await executor
    .updateTable('webhook_deliveries')
    .set({ status: 'dropped', next_attempt: null })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .execute();
}

/** Since when the consumer's deliveries have failed (null: the last one succeeded); undefined when it is gone. */
export async function consumerFailingSince(executor: Kysely<Database>, consumerId: string): Promise<string | null | undefined> {
  const row = await executor.selectFrom('webhook_consumers').select('failing_since').where('id', '=', consumerId).executeTakeFirst();
  return row === undefined ? undefined : row.failing_since;
}

export async function setConsumerFailingSince(trx: Kysely<Database>, consumerId: string, since: string | null): Promise<void> {
  await trx.updateTable('webhook_consumers').set({ failing_since: since }).where('id', '=', consumerId).execute();
}

/** Stops sending to a consumer: disabled, and its pending deliveries dropped. */
export async function disableConsumer(trx: Kysely<Database>, consumerId: string): Promise<void> {
  await trx.updateTable('webhook_consumers').set({ disabled: 1 }).where('id', '=', consumerId).execute();
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'dropped', next_attempt: null })
    .where('consumer_id', '=', consumerId)
    .where('status', '=', 'pending')
    .execute();
}

/** One of the client's consumers; undefined when the client has no such consumer. */
export function consumerOf(executor: Kysely<Database>, clientId: string, consumerId: string) {
  return executor
    .selectFrom('webhook_consumers')
    .select(['id', 'url', 'disabled', 'event_types', 'company_tags'])
    .where('client_id', '=', clientId)
    .where('id', '=', consumerId)
    .executeTakeFirst();
}

/** Turns a consumer back on (turning off is {@link disableConsumer}, which also drops its pending deliveries). */
export async function enableConsumer(executor: Kysely<Database>, clientId: string, consumerId: string): Promise<void> {
  await executor
    .updateTable('webhook_consumers')
    .set({ disabled: 0, failing_since: null })
    .where('client_id', '=', clientId)
    .where('id', '=', consumerId)
    .execute();
}

/** The consumer's latest deliveries, newest first, with their event's type and time. */
export function deliveriesOf(executor: Kysely<Database>, clientId: string, consumerId: string, limit: number) {
  return executor
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.event_id',
      'd.status',
      'd.attempts',
      'd.next_attempt',
      'd.last_response_status',
      'd.last_error',
      'd.created',
      'd.delivered',
      'e.event_type',
    ])
    .where('d.client_id', '=', clientId)
    .where('d.consumer_id', '=', consumerId)
    .orderBy('d.created', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
}

/** One of the client's deliveries to the consumer; undefined when there is none. */
export function deliveryOf(executor: Kysely<Database>, clientId: string, consumerId: string, deliveryId: string) {
  return executor
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id', 'status'])
    .where('client_id', '=', clientId)
    .where('consumer_id', '=', consumerId)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
}

/**
 * How many of the client's deliveries are being sent: pending and due by `now` (a retry due later is not in flight,
 * and the emulator's reset cancels it).
 */
export async function deliveriesInFlight(executor: Kysely<Database>, clientId: string, now: string): Promise<number> {
  const row = await executor
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('client_id', '=', clientId)
    .where('status', '=', 'pending')
    .where('next_attempt', '<=', now)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Deletes every consumer of the client, with its events and deliveries (the emulator's reset); how many consumers. */
export async function deleteClientWebhooks(trx: Kysely<Database>, clientId: string): Promise<number> {
  await trx.deleteFrom('webhook_deliveries').where('client_id', '=', clientId).execute();
  await trx.deleteFrom('webhook_events').where('client_id', '=', clientId).execute();
  const result = await trx.deleteFrom('webhook_consumers').where('client_id', '=', clientId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
