import type { Kysely } from 'kysely';
import type pg from 'pg';
import { queryPrepared } from '../storage/prepared.js';
import type { Database } from '../storage/schema.js';
import { toClient, type Client } from '../clients/clients.store.js';

export interface ApiKeyRecord {
  id: string;
  name: string | null;
  createdAt: string;
  expiresAt: string | null;
}

export interface KeyOwner {
  keyId: string;
  keyHash: string;
  expiresAt: string | null;
  client: Client;
}

/** Storage of API keys: only their SHA-256 hashes are kept. With Postgres' pool, the lookup every request makes is prepared. */
export function createApiKeysStore(db: Kysely<Database>, pool?: pg.Pool) {
  const ownerQuery = (keyHash: string) =>
    db
      .selectFrom('api_keys as k')
      .innerJoin('clients as c', 'c.id', 'k.client_id')
      .select([
        'k.id as key_id',
        'k.key_hash',
        'k.expires_at',
        'c.id',
        'c.name',
        'c.plan',
        'c.created_at',
        'c.daily_quota',
        'c.burst_limit',
        'c.profile',
        'c.companies_version',
      ])
      .where('k.key_hash', '=', keyHash);
  // The same statement, compiled once: on Postgres it runs prepared (storage/prepared.ts) with the hash as $1.
  const ownerText = ownerQuery('').compile().sql;
  type OwnerRow = NonNullable<Awaited<ReturnType<ReturnType<typeof ownerQuery>['executeTakeFirst']>>>;
  return {
    /** The key with this hash and its client, in one indexed lookup (runs on every request). */
    async findOwner(keyHash: string): Promise<KeyOwner | undefined> {
      const row = pool
        ? (await queryPrepared<OwnerRow>(pool, 'api-key-owner', ownerText, [keyHash]))[0]
        : await ownerQuery(keyHash).executeTakeFirst();
      if (!row) return undefined;
      return { keyId: row.key_id, keyHash: row.key_hash, expiresAt: row.expires_at, client: toClient(row) };
    },

    async list(clientId: string): Promise<ApiKeyRecord[]> {
      const rows = await db
        .selectFrom('api_keys')
        .select(['id', 'name', 'created_at', 'expires_at'])
        .where('client_id', '=', clientId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, expiresAt: r.expires_at }));
    },

    /** Deletes the client's key; false when the client has no such key. */
    async delete(clientId: string, keyId: string): Promise<boolean> {
      const result = await db.deleteFrom('api_keys').where('client_id', '=', clientId).where('id', '=', keyId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type ApiKeysStore = ReturnType<typeof createApiKeysStore>;

/** How many keys the client holds. */
export async function countKeys(executor: Kysely<Database>, clientId: string): Promise<number> {
  const row = await executor
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Stores a key's record with the hash of its secret (never the key itself). */
export async function insertKey(trx: Kysely<Database>, clientId: string, record: ApiKeyRecord, keyHash: string): Promise<void> {
  await trx
    .insertInto('api_keys')
    .values({
      id: record.id,
      client_id: clientId,
      name: record.name,
      key_hash: keyHash,
      created_at: record.createdAt,
      expires_at: record.expiresAt,
    })
    .execute();
}
