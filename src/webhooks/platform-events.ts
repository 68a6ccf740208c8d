import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { serveConnection } from '../connections/connection-doc.js';
import { recordEvent, referenceCompany } from './events.js';

/**
 * The events of companies and connections, recorded by their services inside the transaction of the change.
 * Payloads are built here so the services only name the event.
 */

export type CompanyEventType = 'company.created' | 'company.deleted';
export type ConnectionEventType =
  | 'connection.created'
  | 'connection.connected'
  | 'connection.reconnected'
  | 'connection.disconnected'
  | 'connection.failed'
  | 'connection.deleted';

/** `company.created` / `company.deleted` with Codat's CompanyDetails (the Company without `dataConnections`). */
export async function recordCompanyEvent(
  trx: Kysely<Database>,
  jobs: JobQueue,
  eventType: CompanyEventType,
  clientId: string,
  details: Record<string, unknown> & { id: string; tags?: Record<string, string> },
): Promise<void> {
  await recordEvent(trx, jobs, { clientId, eventType, companyId: details.id, payload: details, companyTags: details.tags ?? {} });
}

/** A connection event: `{referenceCompany, connection}`, the connection as the API serves it. */
export async function recordConnectionEvent(
  trx: Kysely<Database>,
  jobs: JobQueue,
  eventType: ConnectionEventType,
  row: { id: string; client_id: string; company_id: string; doc: string },
  publicUrl: string,
): Promise<void> {
  const payload = {
    referenceCompany: await referenceCompany(trx, row.client_id, row.company_id, publicUrl),
    connection: JSON.parse(serveConnection(publicUrl, row)) as unknown,
  };
  await recordEvent(trx, jobs, { clientId: row.client_id, eventType, companyId: row.company_id, payload });
}
