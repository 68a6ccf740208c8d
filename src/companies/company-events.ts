import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { recordEvent } from '../webhooks/events.js';

export type CompanyEventType = 'company.created' | 'company.deleted';

/**
 * `company.created` / `company.deleted` with Codat's CompanyDetails (the Company without `dataConnections`), recorded
 * by the companies service inside the transaction of the change.
 */
export async function recordCompanyEvent(
  trx: Kysely<Database>,
  jobs: JobQueue,
  eventType: CompanyEventType,
  clientId: string,
  details: Record<string, unknown> & { id: string; tags?: Record<string, string> },
): Promise<{ eventId: string; deliveries: number } | undefined> {
  return recordEvent(trx, jobs, { clientId, eventType, companyId: details.id, payload: details, companyTags: details.tags ?? {} });
}
