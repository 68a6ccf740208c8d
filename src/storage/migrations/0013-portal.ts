import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * The client portal (src/portal/):
 * - `portal_sessions`: one row per signed-in browser, keyed by the SHA-256 of the cookie's random token (the token
 *   itself is never stored), tied to the API key that signed in, so revoking that key ends the session;
 * - `client_usage_hours`: API requests and rate-limit refusals per client and UTC hour, for the portal's usage
 *   chart; each process adds its tallies every few seconds, so several processes add up.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const integer = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.schema
    .createTable('portal_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('expires', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('portal_sessions_by_key').on('portal_sessions').column('api_key_id').execute();

  await db.schema
    .createTable('client_usage_hours')
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('requests', integer, (c) => c.notNull().defaultTo(0))
    .addColumn('refusals', integer, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('client_usage_hours_pk', ['client_id', 'hour'])
    .execute();
}
