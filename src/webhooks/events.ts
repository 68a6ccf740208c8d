import { consumersOf, insertDelivery, insertEvent } from './webhooks.store.js';
import { companyDoc } from '../companies/companies.store.js';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { ACCOUNTING_DATA_TYPES } from '../connectors/data-types.js';

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
  ...ACCOUNTING_DATA_TYPES.flatMap((dataType) => [`${dataType}.write.successful`, `${dataType}.write.unsuccessful`]),
];

const KNOWN = new Set(EVENT_TYPES);

export function isEventType(value: string): boolean {
  return KNOWN.has(value);
}

export interface EventInput {
  clientId: string;
  eventType: string;
  /** The company the event is about; null for client-level events (rate limits). */
  companyId: string | null;
  payload: unknown;
  /** The company's tags, when its row may already be gone (company.deleted); read from the company otherwise. */
  companyTags?: Record<string, string>;
}

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

async function tagsOfCompany(executor: Kysely<Database>, clientId: string, companyId: string): Promise<Record<string, string>> {
  const doc = await companyDoc(executor, clientId, companyId);
  if (doc === undefined) return {};
  const tags = (JSON.parse(doc) as { tags?: unknown }).tags;
  return tags && typeof tags === 'object' ? (tags as Record<string, string>) : {};
}

/**
 * Records the event and one delivery (+ durable job) per matching, enabled consumer, in the caller's
 * transaction: the event exists if and only if the change that caused it does. An event no consumer wants is
 * not stored (nothing would ever read it). The caller wakes the job runner after commit.
 */
export async function recordEvent(trx: Kysely<Database>, jobs: JobQueue, event: EventInput): Promise<void> {
  const consumers = await consumersOf(trx, event.clientId, { enabled: true });
  const wanting = consumers
    .map((c) => ({
      id: c.id,
      eventTypes: JSON.parse(c.event_types) as string[],
      tags: c.company_tags ? (JSON.parse(c.company_tags) as string[]) : null,
    }))
    .filter((c) => c.eventTypes.includes(event.eventType));
  if (wanting.length === 0) return;

  let companyTags: Record<string, string> | null = null;
  if (event.companyId !== null && wanting.some((c) => c.tags && c.tags.length > 0)) {
    companyTags = event.companyTags ?? (await tagsOfCompany(trx, event.clientId, event.companyId));
  }
  const matching = wanting.filter((c) => tagsMatch(c.tags, event.companyId === null ? null : (companyTags ?? {})));
  if (matching.length === 0) return;

  const id = randomUUID();
  const generated = new Date().toISOString();
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
      next_attempt: generated,
      last_response_status: null,
      last_error: null,
      created: generated,
      delivered: null,
    });
    await jobs.enqueue(trx, { kind: WEBHOOK_DELIVERY_JOB, payload: { deliveryId } });
  }
}

/**
 * CompanyReference payload object for `referenceCompany` (Codat's Company/definitions/companyReference).
 * `links.portal` points at the company's page in the portal (a person follows it in a browser; the API resource
 * would answer 401 there).
 */
export async function referenceCompany(
  executor: Kysely<Database>,
  clientId: string,
  companyId: string,
  publicUrl: string,
): Promise<Record<string, unknown>> {
  const stored = await companyDoc(executor, clientId, companyId);
  const links = { portal: `${publicUrl}/portal/companies/${companyId}` };
  if (stored === undefined) return { id: companyId, links };
  const doc = JSON.parse(stored) as { id: string; name: string; description?: string; tags?: Record<string, string> };
  return {
    id: doc.id,
    name: doc.name,
    ...(doc.description !== undefined ? { description: doc.description } : {}),
    links,
    tags: doc.tags ?? {},
  };
}
