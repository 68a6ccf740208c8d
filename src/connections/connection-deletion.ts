import type { DeletionStep } from '../storage/deletion.js';
import { deleteConnections } from './connections.store.js';
import { deleteCredentials } from './credentials.store.js';

/** The connections' part of a deletion, last of the cascade: their sealed credentials, then the connections. */
export const deleteConnectionsStep: DeletionStep = async (trx, clientId, scope) => {
  await deleteCredentials(trx, clientId, scope);
  await deleteConnections(trx, clientId, scope);
};
