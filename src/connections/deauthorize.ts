import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { connectionById } from './connections.store.js';
import { lockClient } from '../clients/clients.store.js';
import { writeConnectionStatus } from './connection-status.js';
import { findPlatform } from '../connectors/registry.js';
import { recordConnectionEvent } from './connection-events.js';
import type { CompanyReferenceReader } from '../webhooks/events.js';

/**
 * The platform refused the connection's credentials (a revoked consent, a rolled key), whether a sync or a write
 * found out: the connection becomes `Deauthorized` with the reason among its errors, and `connection.disconnected`
 * tells the client, once (a connection no longer Linked is left as it is).
 */
export async function deauthorizeConnection(
  db: Kysely<Database>,
  jobs: JobQueue,
  target: { clientId: string; connectionId: string; message: string; now: Date },
  /** Where the connection is served, and how its company's reference is read, for the event. */
  context: { publicUrl: string; companyReference: CompanyReferenceReader },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Two syncs finding out at once (two jobs of one connection) are serialised here: the second finds it Deauthorized.
    await lockClient(trx, target.clientId);
    const row = await connectionById(trx, target.clientId, target.connectionId);
    if (!row || !findPlatform(row.platform_key) || row.status !== 'Linked') return;
    const errors = [
      {
        statusCode: '401',
        statusText: 'Unauthorized',
        errorMessage: target.message,
        erroredOnUtc: target.now.toISOString(),
        status: 'Active' as const,
      },
    ];
    const next = await writeConnectionStatus(trx, row, 'Deauthorized', { errors });
    await recordConnectionEvent(trx, jobs, 'connection.disconnected', next, context);
  });
}
