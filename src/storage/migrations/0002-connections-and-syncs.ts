import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Connections' authorisation state, pull operations (syncs), versioned data sets, their records, durable
 * jobs and sync settings.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  await db.schema.alterTable('connections').addColumn('last_sync', 'text').execute();
  await db.schema.alterTable('connections').addColumn('settings', 'text').execute();
  await db.schema.alterTable('clients').addColumn('sync_settings', 'text').execute();
  await db.schema.alterTable('companies').addColumn('sync_settings', 'text').execute();

  await db.schema
    .createTable('pull_operations')
    // seq numbers the data-set version this operation writes; records are keyed by it.
    .addColumn('seq', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('data_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('requested', 'text', (c) => c.notNull())
    .addColumn('epoch', 'integer', (c) => c.notNull())
    .addColumn('doc', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pull_operations_company').on('pull_operations').columns(['company_id', 'seq']).execute();
  // At most one unfinished sync per connection and data type, whatever races the API sees.
  await db.schema
    .createIndex('pull_operations_one_active')
    .on('pull_operations')
    .columns(['connection_id', 'data_type'])
    .unique()
    .where(sql.ref('status'), 'in', ['Queued', 'Fetching'])
    .execute();

  await db.schema
    .createTable('data_sets')
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('data_type', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    // The complete version readers see; null until the first sync completes.
    .addColumn('current_version', 'bigint')
    .addColumn('completed_syncs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_successful_sync', 'text')
    .addColumn('latest_successful_sync_id', 'text')
    .addPrimaryKeyConstraint('data_sets_pk', ['connection_id', 'data_type'])
    .execute();
  await db.schema.createIndex('data_sets_company').on('data_sets').columns(['company_id', 'data_type']).execute();

  await db.schema
    .createTable('records')
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    // Byte order on both stores (Postgres would otherwise sort by locale): a sync merges the previous
    // version with the platform's records in exactly this order.
    .addColumn('record_id', dialect === 'postgres' ? sql`text collate "C"` : 'text', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('modified_date', 'text', (c) => c.notNull())
    .addColumn('is_deleted', 'integer', (c) => c.notNull())
    .addColumn('doc', 'text', (c) => c.notNull())
    // A plain rowid table: records are kilobytes of JSON, which WITHOUT ROWID tables store poorly. Rows are
    // inserted in position order, so a version's pages still sit together.
    .addPrimaryKeyConstraint('records_pk', ['version', 'position'])
    .execute();
  await db.schema.createIndex('records_by_id').on('records').columns(['version', 'record_id']).unique().execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('run_after', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires', 'text')
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['status', 'run_after']).execute();
}
