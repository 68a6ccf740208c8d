import type { Kysely } from 'kysely';

/**
 * `connection_credentials`: what a connection authenticates to its platform with (a password, an API key, OAuth
 * tokens), sealed with AES-256-GCM under LEDGERPORT_SECRET_KEY (`src/secrets/`). A table of its own, so that no
 * query for a connection's served fields can pick it up; deleted with its connection or company.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('connection_credentials')
    .addColumn('connection_id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('updated', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('connection_credentials_company').on('connection_credentials').columns(['client_id', 'company_id']).execute();
}
