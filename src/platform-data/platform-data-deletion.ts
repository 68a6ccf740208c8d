import type { DeletionStep } from '../storage/deletion.js';
import { deletePlatformWrites } from './platform-writes.store.js';
import { deleteUploadSessions } from './upload-sessions.store.js';
import { deleteCompanyUploads, detachConnectionUploads } from './uploads.store.js';

/**
 * What the service keeps on platforms' behalf, deleted with a company or a connection. A connection takes what the
 * Sandbox held because it was written to it, its upload sessions and its unconfirmed Link uploads; uploaded files stay
 * with the company, without what only this connection's syncs read of them. A company takes all of it (its written
 * records by the foreign key).
 */
export const deletePlatformData: DeletionStep = async (trx, clientId, scope) => {
  if (scope.connectionId !== undefined) await deletePlatformWrites(trx, clientId, scope.connectionId);
  await deleteUploadSessions(trx, clientId, scope);
  if (scope.connectionId !== undefined) await detachConnectionUploads(trx, clientId, scope.connectionId);
  else await deleteCompanyUploads(trx, clientId, scope.companyId);
};
