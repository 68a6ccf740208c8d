import type { Kysely } from 'kysely';

/**
 * `oauth_states`: one row per OAuth2 link attempt under way, keyed by the random `state` sent to the platform,
 * with the PKCE verifier and the Link page's custom parameters; used once by the callback, expired after 10 min.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_states')
    .addColumn('state', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('custom', 'text', (c) => c.notNull())
    .addColumn('expires', 'text', (c) => c.notNull())
    .execute();
}
