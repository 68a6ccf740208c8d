import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { recordEvent, type CompanyReferenceReader } from '../webhooks/events.js';
import { serveConnection } from './connection-doc.js';

export type ConnectionEventType =
  | 'connection.created'
  | 'connection.connected'
  | 'connection.reconnected'
  | 'connection.disconnected'
  | 'connection.failed'
  | 'connection.deleted';

/**
 * A connection event, `{referenceCompany, connection}` with the connection as the API serves it, recorded inside the
 * transaction of the change. The company's reference is read by the reader the caller was handed.
 */
export async function recordConnectionEvent(
  trx: Kysely<Database>,
  jobs: JobQueue,
  eventType: ConnectionEventType,
  row: { id: string; client_id: string; company_id: string; doc: string },
  context: { publicUrl: string; companyReference: CompanyReferenceReader },
): Promise<{ eventId: string; deliveries: number } | undefined> {
  const company = await context.companyReference(trx, row.client_id, row.company_id);
  const payload = {
    referenceCompany: company.reference,
    connection: JSON.parse(serveConnection(context.publicUrl, row)) as unknown,
  };
  return recordEvent(trx, jobs, { clientId: row.client_id, eventType, companyId: row.company_id, payload, companyTags: company.tags });
}
