import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { seal, unseal } from '../secrets/sealed-box.js';
import type { SecretKeys } from '../secrets/secret-keys.js';

/** A connection's platform credentials: plain JSON in memory, sealed at rest, never served or logged. */
export type Credentials = Record<string, unknown>;

/** A connection's credentials as a token refresh reads them (see `loadForRefresh`). */
export interface RefreshState {
  sealed: string;
  credentials: Credentials;
  lease: string | null;
  retryAfter: string | null;
  failures: number;
}

/** Reads, writes and re-seals connections' credentials; every method takes the client id first. */
export function createCredentialsStore(keys: SecretKeys) {
  return {
    /** Seals and saves (or replaces) a connection's credentials in the caller's transaction. */
    async save(
      trx: Kysely<Database>,
      clientId: string,
      target: { companyId: string; connectionId: string },
      credentials: Credentials,
      now: string,
    ): Promise<void> {
      const sealed = seal(credentials, keys.current, target.connectionId);
      await trx
        .insertInto('connection_credentials')
        .values({ connection_id: target.connectionId, client_id: clientId, company_id: target.companyId, sealed, updated: now })
        .onConflict((oc) =>
          oc
            .column('connection_id')
            .doUpdateSet({ sealed, updated: now, refresh_lease: null, refresh_retry_after: null, refresh_failures: 0 }),
        )
        .execute();
    },

    /** The connection's credentials, or null when it has none. */
    async load(db: Kysely<Database>, clientId: string, connectionId: string): Promise<Credentials | null> {
      const row = await db
        .selectFrom('connection_credentials')
        .select('sealed')
        .where('client_id', '=', clientId)
        .where('connection_id', '=', connectionId)
        .executeTakeFirst();
      return row ? (unseal(row.sealed, keys, connectionId).value as Credentials) : null;
    },

    delete: deleteCredentials,

    /** Seals a value bound to a connection that is not its credentials yet (a consent waiting for a choice). */
    sealFor(connectionId: string, value: unknown): string {
      return seal(value, keys.current, connectionId);
    },

    /** Opens what `sealFor` sealed for the same connection. */
    openFor(connectionId: string, sealed: string): unknown {
      return unseal(sealed, keys, connectionId).value;
    },

    /**
     * The connection's credentials with what settles their refresh (see oauth-tokens.ts): `sealed` is the version
     * read, which a refresh claims and replaces only if nobody replaced it first.
     */
    async loadForRefresh(db: Kysely<Database>, clientId: string, connectionId: string): Promise<RefreshState | null> {
      const row = await db
        .selectFrom('connection_credentials')
        .select(['sealed', 'refresh_lease', 'refresh_retry_after', 'refresh_failures'])
        .where('client_id', '=', clientId)
        .where('connection_id', '=', connectionId)
        .executeTakeFirst();
      if (!row) return null;
      return {
        sealed: row.sealed,
        credentials: unseal(row.sealed, keys, connectionId).value as Credentials,
        lease: row.refresh_lease,
        retryAfter: row.refresh_retry_after,
        failures: Number(row.refresh_failures),
      };
    },

    /**
     * Takes the right to refresh until `until`: only while the credentials are still the version read and no one
     * else holds an unexpired lease. One conditional update, so of several processes exactly one gets it.
     */
    async claimRefresh(
      db: Kysely<Database>,
      clientId: string,
      connectionId: string,
      sealed: string,
      now: string,
      until: string,
    ): Promise<boolean> {
      const result = await db
        .updateTable('connection_credentials')
        .set({ refresh_lease: until })
        .where('client_id', '=', clientId)
        .where('connection_id', '=', connectionId)
        .where('sealed', '=', sealed)
        .where((eb) => eb.or([eb('refresh_lease', 'is', null), eb('refresh_lease', '<', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * Saves refreshed credentials (a rotated refresh token among them) and lets go of the lease and any cooldown, only
     * while `lease` is still the connection's (false: it ran out and another process took over).
     */
    async saveRefreshed(
      db: Kysely<Database>,
      clientId: string,
      connectionId: string,
      credentials: Credentials,
      now: string,
      lease: string,
    ): Promise<boolean> {
      const result = await db
        .updateTable('connection_credentials')
        .set({
          sealed: seal(credentials, keys.current, connectionId),
          updated: now,
          refresh_lease: null,
          refresh_retry_after: null,
          refresh_failures: 0,
        })
        .where('client_id', '=', clientId)
        .where('connection_id', '=', connectionId)
        .where('refresh_lease', '=', lease)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Lets go of the lease after a refresh that did not happen; with `retryAfter`, no refresh is tried before it. */
    async releaseRefresh(
      db: Kysely<Database>,
      clientId: string,
      connectionId: string,
      cooldown?: { retryAfter: string; failures: number },
    ): Promise<void> {
      await db
        .updateTable('connection_credentials')
        .set({
          refresh_lease: null,
          ...(cooldown ? { refresh_retry_after: cooldown.retryAfter, refresh_failures: cooldown.failures } : {}),
        })
        .where('client_id', '=', clientId)
        .where('connection_id', '=', connectionId)
        .execute();
    },

    /**
     * Re-seals every connection's credentials under the current key (`ledgerport secrets rotate`), a row at a
     * time so a large store is never locked for long. Rows already under it are left alone; a row no configured
     * key opens stops the rotation with its connection id (nothing secret) in the error.
     */
    async rotate(db: Kysely<Database>, now: string): Promise<{ resealed: number; current: number }> {
      let resealed = 0;
      let current = 0;
      const rows = await db.selectFrom('connection_credentials').select(['connection_id', 'sealed']).orderBy('connection_id').execute();
      for (const row of rows) {
        if (row.sealed.split('.')[1] === keys.current.id) {
          current++;
          continue;
        }
        let value: unknown;
        try {
          ({ value } = unseal(row.sealed, keys, row.connection_id));
        } catch (err) {
          throw new Error(`connection ${row.connection_id}: ${(err as Error).message}`);
        }
        await db
          .updateTable('connection_credentials')
          .set({ sealed: seal(value, keys.current, row.connection_id), updated: now })
          .where('connection_id', '=', row.connection_id)
          .where('sealed', '=', row.sealed)
          .execute();
        resealed++;
      }
      return { resealed, current };
    },
  };
}

export type CredentialsStore = ReturnType<typeof createCredentialsStore>;

/**
 * Deletes one connection's credentials, or with `companyId` alone every connection's of that company (no key is
 * needed to forget them).
 */
export async function deleteCredentials(
  trx: Kysely<Database>,
  clientId: string,
  target: { companyId: string; connectionId?: string },
): Promise<void> {
  let query = trx.deleteFrom('connection_credentials').where('client_id', '=', clientId).where('company_id', '=', target.companyId);
  if (target.connectionId !== undefined) query = query.where('connection_id', '=', target.connectionId);
  await query.execute();
}
