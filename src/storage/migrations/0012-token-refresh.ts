import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * What settles an OAuth connection's token refresh across processes (src/connections/oauth-tokens.ts):
 * - `refresh_lease`: until when one process holds the right to refresh (ISO-8601), null when nobody does; taken
 *   with a conditional update, so of several processes that find the token due, one refreshes and the rest wait;
 * - `refresh_retry_after` and `refresh_failures`: after a refresh the platform did not answer, when the next may be
 *   tried and how many failed in a row (the cooldown doubles), so a dead connection is not hammered;
 * - `oauth_states.pending`: a consent that covers several organisations, sealed, kept while the end user picks one.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const integer = sql.raw(dialect === 'postgres' ? 'bigint' : 'integer');
  await sql`ALTER TABLE connection_credentials ADD COLUMN refresh_lease text`.execute(db);
  await sql`ALTER TABLE connection_credentials ADD COLUMN refresh_retry_after text`.execute(db);
  await sql`ALTER TABLE connection_credentials ADD COLUMN refresh_failures ${integer} NOT NULL DEFAULT 0`.execute(db);
  await sql`ALTER TABLE oauth_states ADD COLUMN pending text`.execute(db);
}
