import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { toClient, type Client } from '../clients/clients.store.js';

export interface PortalSession {
  client: Client;
  apiKeyId: string;
  /** When the key that signed in stops working (null: never); the session ends with it. */
  keyExpiresAt: string | null;
  csrfToken: string;
  expires: string;
}

/** Portal sessions (migration 0013), found by the SHA-256 of the cookie's token. */
export function createPortalSessionsStore(db: Kysely<Database>) {
  return {
    async insert(row: Database['portal_sessions']): Promise<void> {
      await db.insertInto('portal_sessions').values(row).execute();
    },

    /**
     * The live session with this token hash and its client. The join on the API key is the revocation check: a
     * session whose key was deleted (revoked) is not found.
     */
    async find(tokenHash: string, now: string): Promise<PortalSession | undefined> {
      const row = await db
        .selectFrom('portal_sessions as s')
        .innerJoin('api_keys as k', (join) => join.onRef('k.id', '=', 's.api_key_id').onRef('k.client_id', '=', 's.client_id'))
        .innerJoin('clients as c', 'c.id', 's.client_id')
        .select([
          's.csrf_token',
          's.expires',
          's.api_key_id',
          'k.expires_at as key_expires_at',
          'c.id',
          'c.name',
          'c.plan',
          'c.created_at',
          'c.daily_quota',
          'c.burst_limit',
          'c.companies_version',
        ])
        .where('s.token_hash', '=', tokenHash)
        .where('s.expires', '>', now)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        client: toClient(row),
        apiKeyId: row.api_key_id,
        keyExpiresAt: row.key_expires_at,
        csrfToken: row.csrf_token,
        expires: row.expires,
      };
    },

    async delete(tokenHash: string): Promise<void> {
      await db.deleteFrom('portal_sessions').where('token_hash', '=', tokenHash).execute();
    },

    /** Removes the client's ended sessions: expired, or signed in with a key that is gone. */
    async deleteEnded(clientId: string, now: string): Promise<void> {
      await db.deleteFrom('portal_sessions').where('client_id', '=', clientId).where('expires', '<=', now).execute();
      await db
        .deleteFrom('portal_sessions')
        .where('client_id', '=', clientId)
        .where('api_key_id', 'not in', db.selectFrom('api_keys').select('id').where('client_id', '=', clientId))
        .execute();
    },
  };
}

export type PortalSessionsStore = ReturnType<typeof createPortalSessionsStore>;
