import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * The emulator's part 2 (docs/emulator.md), used only with `EMULATOR=true`:
 * - `emulator_requests`: the request journal, what each client's code called (never a key, secret or body: only
 *   their SHA-256), the last `EMULATOR_JOURNAL_SIZE` entries per client, in the store so every API process shares it;
 * - `emulator_faults`: a client's fault rules, as JSON (`match`, `action`), with how often each has fired and drawn;
 * - `emulator_held_deliveries`: webhook deliveries a `reorder` rule holds until the next delivery to their consumer.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  // Postgres' `real` is four bytes: a probability such as 0.123456789 would come back rounded.
  const double = dialect === 'postgres' ? 'double precision' : 'real';
  await db.schema
    .createTable('emulator_requests')
    .addColumn('seq', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text')
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('clock_time', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', double, (c) => c.notNull())
    .addColumn('request_sha256', 'text', (c) => c.notNull())
    .addColumn('response_sha256', 'text')
    .execute();
  await db.schema.createIndex('emulator_requests_client').on('emulator_requests').columns(['client_id', 'seq']).execute();

  await db.schema
    .createTable('emulator_faults')
    .addColumn('seq', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('match', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('times', 'integer')
    .addColumn('fired', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('probability', double)
    .addColumn('seed', 'integer')
    .addColumn('draws', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('emulator_faults_client').on('emulator_faults').columns(['client_id', 'seq']).execute();

  await db.schema
    .createTable('emulator_held_deliveries')
    .addColumn('delivery_id', 'text', (c) => c.primaryKey())
    .addColumn('consumer_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('emulator_held_deliveries_consumer').on('emulator_held_deliveries').columns(['consumer_id']).execute();
}
