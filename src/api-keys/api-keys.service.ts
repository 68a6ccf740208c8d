import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../storage/schema.js';
import { ApiError, notFound } from '../http/api-error.js';
import { lockClient } from '../clients/clients.store.js';
import { countKeys, createApiKeysStore, insertKey, type ApiKeyRecord } from './api-keys.store.js';
import { generateApiKey, hashApiKey } from './key-material.js';
import { clockFor } from '../lib/clock.js';

export const MAX_API_KEYS = 10;

export interface NewApiKey extends ApiKeyRecord {
  /** The key in full: shown once, never stored. */
  apiKey: string;
}

/** Inserts a key inside the caller's transaction, enforcing the per-client limit. */
export async function insertApiKey(
  trx: Transaction<Database>,
  clientId: string,
  input: { name?: string | null; expiresAt?: string | null; now: Date },
): Promise<NewApiKey> {
  await lockClient(trx, clientId);
  if ((await countKeys(trx, clientId)) >= MAX_API_KEYS) {
    throw new ApiError(
      409,
      `ApiKeyLimitException: A client can hold at most ${MAX_API_KEYS} API keys; delete one before creating another.`,
      { code: 'ApiKeyLimit' },
    );
  }
  const apiKey = generateApiKey();
  const record: ApiKeyRecord = {
    id: randomUUID(),
    name: input.name ?? null,
    createdAt: input.now.toISOString(),
    expiresAt: input.expiresAt ?? null,
  };
  await insertKey(trx, clientId, record, hashApiKey(apiKey));
  return { ...record, apiKey };
}

/** API key management for one client. */
export function createApiKeysService(deps: { db: Kysely<Database>; now?: () => Date }) {
  const store = createApiKeysStore(deps.db);
  const now = deps.now ?? (() => clockFor({}).now());
  return {
    list: (clientId: string) => store.list(clientId),

    /** Creates a key; 409 once the client holds {@link MAX_API_KEYS}. */
    create(clientId: string, input: { name?: string | null; expiresAt?: string | null }): Promise<NewApiKey> {
      return deps.db.transaction().execute((trx) => insertApiKey(trx, clientId, { ...input, now: now() }));
    },

    async delete(clientId: string, keyId: string): Promise<void> {
      if (!(await store.delete(clientId, keyId))) throw notFound(`ApiKeyNotFoundException: No API key was found with ID ${keyId}`);
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;

/** The ApiKeyDetails wire shape; `apiKey` only when the key was just created. */
export function apiKeyDetails(key: ApiKeyRecord & { apiKey?: string }) {
  return {
    id: key.id,
    name: key.name,
    ...(key.apiKey ? { apiKey: key.apiKey } : {}),
    createdDate: key.createdAt,
    ...(key.expiresAt ? { expiresAt: key.expiresAt } : {}),
  };
}
