import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/** Clients, API keys, companies, connections, integrations, settings and rate counters. */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('daily_quota', 'integer')
    .addColumn('burst_limit', 'integer')
    .addColumn('profile', 'text', (c) => c.notNull())
    .addColumn('companies_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('name', 'text')
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_client').on('api_keys').columns(['client_id', 'created_at']).execute();

  await db.schema
    .createTable('companies')
    // seq gives a stable insertion order for default listing and paging.
    .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('last_sync', 'text')
    .addColumn('doc', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('companies_client_seq').on('companies').columns(['client_id', 'seq']).execute();
  await db.schema.createIndex('companies_client_name').on('companies').columns(['client_id', 'name']).execute();

  await db.schema
    .createTable('connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('platform_key', 'text', (c) => c.notNull())
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('doc', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('connections_company').on('connections').columns(['company_id', 'created']).execute();
  await db.schema.createIndex('connections_client_status').on('connections').columns(['client_id', 'status']).execute();

  await db.schema
    .createTable('integrations')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('doc', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('rate_counters')
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('window', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_counters_pk', ['client_id', 'window'])
    .execute();
  await db.schema.createIndex('rate_counters_expiry').on('rate_counters').column('expires_at').execute();
}
