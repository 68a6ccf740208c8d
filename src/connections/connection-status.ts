import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { ConnectionRow } from './connections.store.js';
import { ApiError } from '../http/api-error.js';
import { lockClient } from '../clients/clients.store.js';
import { findPlatform } from '../connectors/registry.js';
import { connectionDoc, type DataConnectionError } from './connection-doc.js';
import { setConnectionState } from './connections.store.js';

/**
 * Writes a connection's new status (and settings, and `dataConnectionErrors` for a Deauthorized one) and
 * re-renders its document, moving the client's companies version. Every status change goes through here: the
 * API's (link, unlink) and the sync job's (a platform refusing the credentials).
 */
export async function writeConnectionStatus(
  trx: Kysely<Database>,
  row: ConnectionRow,
  status: string,
  options: { settings?: string | null; errors?: DataConnectionError[] } = {},
): Promise<ConnectionRow> {
  const platform = findPlatform(row.platform_key);
  if (!platform) {
    throw new ApiError(
      400,
      `IntegrationUnavailableException: Platform ${row.platform_key} is no longer available on this server; delete connection ${row.id}.`,
      { code: 'IntegrationUnavailable' },
    );
  }
  const doc = connectionDoc({
    id: row.id,
    companyId: row.company_id,
    platform,
    status,
    created: row.created,
    lastSync: row.last_sync,
    errors: options.errors,
  });
  const next = { ...row, status, doc, settings: options.settings === undefined ? row.settings : options.settings };
  // The client row first, as in every transaction that changes a client's companies (one lock order).
  await lockClient(trx, row.client_id, true);
  await setConnectionState(trx, row.client_id, row.id, { status, doc, settings: next.settings });
  return next;
}
