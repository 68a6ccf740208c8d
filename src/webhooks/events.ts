import { consumersOf, insertDelivery, insertEvent } from './webhooks.store.js';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { ACCOUNTING_DATA_TYPES } from '../codat-model/data-types.js';
import { clockFor } from '../lib/clock.js';

export const WEBHOOK_DELIVERY_JOB = 'webhook-delivery';

/** Every event type a consumer can subscribe to (facts 7). */
export const EVENT_TYPES: readonly string[] = [
  'company.created',
  'company.deleted',
  'connection.created',
  'connection.connected',
  'connection.disconnected',
  'connection.deleted',
  'read.completed',
  'read.completed.initial',
  'client.rateLimit.reached',
  'client.rateLimit.reset',
  // Ledgerport's recategorisation (docs/lending/account-categories.md): Codat's "Account categories updated".
  'accountCategories.updated',
  ...ACCOUNTING_DATA_TYPES.flatMap((dataType) => [`${dataType}.write.successful`, `${dataType}.write.unsuccessful`]),
];

const KNOWN = new Set(EVENT_TYPES);

export function isEventType(value: string): boolean {
  return KNOWN.has(value);
}

/**
 * The company an event is about, read by the caller from the company's document (src/companies/company-reference.ts):
 * Codat's `referenceCompany` for the payload, and the tags that consumers' `tagKey:tagValue` filters read.
 */
export interface CompanyReference {
  reference: Record<string, unknown>;
  tags: Record<string, string>;
}

/** Reads the reference of a client's company, in the caller's transaction. */
export type CompanyReferenceReader = (executor: Kysely<Database>, clientId: string, companyId: string) => Promise<CompanyReference>;

export type EventInput = {
  clientId: string;
  eventType: string;
  payload: unknown;
} & (
  | {
      /** A client-level event (rate limits): no company. */
      companyId: null;
    }
  | {
      /** The company the event is about. */
      companyId: string;
      /** Its tags, which consumers' company filters match. */
      companyTags: Record<string, string>;
    }
);

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A `webhook-id` like Codat's (`msg_` + 24 alphanumerics). */
export function newMessageId(): string {
  let out = 'msg_';
  while (out.length < 28) {
    for (const byte of randomBytes(32)) {
      // 248 = 4 × 62: rejecting the rest keeps every character equally likely.
      if (byte < 248 && out.length < 28) out += ID_ALPHABET[byte % 62];
    }
  }
  return out;
}

/** Whether a consumer's `tagKey:tagValue` filters let an event of a company with these tags through. */
export function tagsMatch(filters: readonly string[] | null, companyTags: Record<string, string> | null): boolean {
  if (!filters || filters.length === 0) return true;
  // Client-level events have no company: only consumers without company filters receive them.
  if (!companyTags) return false;
  const held = new Set(Object.entries(companyTags).map(([key, value]) => `${key}:${value}`));
  return filters.some((filter) => held.has(filter));
}

/**
 * Records the event and one delivery (+ durable job) per matching, enabled consumer, in the caller's
 * transaction: the event exists if and only if the change that caused it does. An event no consumer wants is
 * not stored (nothing would ever read it). The caller wakes the job runner after commit. Returns the event's id and
 * how many deliveries it has, or undefined when no consumer wanted it.
 */
export async function recordEvent(
  trx: Kysely<Database>,
  jobs: JobQueue,
  event: EventInput,
): Promise<{ eventId: string; deliveries: number } | undefined> {
  const consumers = await consumersOf(trx, event.clientId, { enabled: true });
  const wanting = consumers
    .map((c) => ({
      id: c.id,
      eventTypes: JSON.parse(c.event_types) as string[],
      tags: c.company_tags ? (JSON.parse(c.company_tags) as string[]) : null,
    }))
    .filter((c) => c.eventTypes.includes(event.eventType));
  if (wanting.length === 0) return undefined;

  const companyTags = event.companyId === null ? null : event.companyTags;
  const matching = wanting.filter((c) => tagsMatch(c.tags, companyTags));
  if (matching.length === 0) return undefined;

  const id = randomUUID();
  const generated = clockFor({ clientId: event.clientId, companyId: event.companyId ?? undefined })
    .now()
    .toISOString();
  // The first attempt is due at once.
  const due = generated;
  const body = JSON.stringify({ id, eventType: event.eventType, generatedDate: generated, payload: event.payload });
  await insertEvent(trx, event.clientId, { id, event_type: event.eventType, company_id: event.companyId, generated, body });
  for (const consumer of matching) {
    const deliveryId = newMessageId();
    await insertDelivery(trx, event.clientId, {
      id: deliveryId,
      event_id: id,
      consumer_id: consumer.id,
      status: 'pending',
      attempts: 0,
      next_attempt: due,
      last_response_status: null,
      last_error: null,
      created: generated,
      delivered: null,
    });
    await jobs.enqueue(trx, { kind: WEBHOOK_DELIVERY_JOB, payload: { deliveryId } });
  }
  return { eventId: id, deliveries: matching.length };
}
