import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { insertApiKey, type NewApiKey } from '../api-keys/api-keys.service.js';
import { createClientsStore, type Client } from '../clients/clients.store.js';
import type { PlanName } from '../clients/plans.js';
import { defaultProfile } from '../clients/profile.js';
import { clockFor } from '../lib/clock.js';

/** Creating and administering clients (operator actions, used by the CLI and first start). */
export function createClientsService(deps: { db: Kysely<Database>; now?: () => Date }) {
  const store = createClientsStore(deps.db);
  const now = deps.now ?? (() => clockFor({}).now());
  return {
    store,

    /** Creates a client and its first API key, atomically. */
    async create(input: { name: string; plan: PlanName; createdAt?: string }): Promise<{ client: Client; key: NewApiKey }> {
      return deps.db.transaction().execute(async (trx) => {
        const clients = createClientsStore(trx);
        const client = await clients.insert({
          name: input.name,
          plan: input.plan,
          createdAt: input.createdAt ?? now().toISOString(),
          profile: JSON.stringify(defaultProfile(input.name)),
        });
        const key = await insertApiKey(trx, client.id, { name: 'default', now: now() });
        return { client, key };
      });
    },

    /** Issues another key for a client (operator action; the 10-key limit applies). */
    async createKey(clientId: string, expiresAt?: string): Promise<NewApiKey | undefined> {
      if (!(await store.get(clientId))) return undefined;
      return deps.db.transaction().execute((trx) => insertApiKey(trx, clientId, { name: null, expiresAt: expiresAt ?? null, now: now() }));
    },
  };
}

export type ClientsService = ReturnType<typeof createClientsService>;
