import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Push (write) operations, the records the Sandbox platforms hold because they were written to them, webhook
 * consumers, the events recorded for them and each event's deliveries.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  const serialKey = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());

  // read.completed reports every finished sync once, when the company has no sync left running.
  await db.schema
    .alterTable('pull_operations')
    .addColumn('read_reported', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('pull_operations').addColumn('records_modified', 'integer').execute();

  await db.schema
    .createTable('push_operations')
    // Orders the company's push history (newest first) without relying on clock resolution.
    .addColumn('seq', serial, serialKey)
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('data_type', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('requested', 'text', (c) => c.notNull())
    .addColumn('completed', 'text')
    .addColumn('timeout_minutes', 'integer')
    .addColumn('allow_sync', 'integer', (c) => c.notNull())
    .addColumn('force_update', 'integer', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text')
    .addColumn('data', 'text')
    .addColumn('doc', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('push_operations_company').on('push_operations').columns(['company_id', 'seq']).execute();
  // A retried request with the same Idempotency-Key finds the first operation; two racing ones cannot both insert.
  await db.schema
    .createIndex('push_operations_idempotency')
    .on('push_operations')
    .columns(['client_id', 'idempotency_key'])
    .unique()
    .where(sql.ref('idempotency_key'), 'is not', null)
    .execute();

  await db.schema
    .createTable('platform_writes')
    // Re-assigned on every write (delete + insert), so a sync can tell which writes arrived after it started.
    .addColumn('seq', serial, serialKey)
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('data_type', 'text', (c) => c.notNull())
    // Byte order, as in `records`: the Sandbox merges these with its generated records by id.
    .addColumn('record_id', dialect === 'postgres' ? sql`text collate "C"` : 'text', (c) => c.notNull())
    .addColumn('deleted', 'integer', (c) => c.notNull())
    .addColumn('doc', 'text')
    .addColumn('source_modified_date', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('platform_writes_record')
    .on('platform_writes')
    .columns(['connection_id', 'data_type', 'record_id'])
    .unique()
    .execute();

  await db.schema
    .createTable('webhook_consumers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('company_tags', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    // Set at the first failed delivery after a success; a consumer failing for 5 days is disabled.
    .addColumn('failing_since', 'text')
    .execute();
  await db.schema.createIndex('webhook_consumers_client').on('webhook_consumers').columns(['client_id', 'created']).execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text')
    .addColumn('generated', 'text', (c) => c.notNull())
    // The envelope exactly as delivered (the signature covers these bytes).
    .addColumn('body', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    // The `webhook-id` header: the same on every attempt, so receivers can deduplicate.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('consumer_id', 'text', (c) => c.notNull().references('webhook_consumers.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt', 'text')
    .addColumn('last_response_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('delivered', 'text')
    .execute();
  await db.schema.createIndex('webhook_deliveries_consumer').on('webhook_deliveries').columns(['consumer_id', 'status']).execute();
}
