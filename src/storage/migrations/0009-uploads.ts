import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * What companies upload, kept in the store so every process serves it:
 * - `uploads`: one row per uploaded file (`kind` 'file': its bytes, and for a statement file the statements read
 *   from it, as JSON), per processed upload session (`kind` 'session': the records uploaded, as JSON), and per file
 *   the Link page has read but the end user has not confirmed yet (`kind` 'pending', in a `batch`). `seq`
 *   orders them; a sync reads every upload of its connection up to a `seq`, and syncs again when a later one lands.
 *   Files stay with their company (deleted with it), not with the connection.
 * - `upload_chunks`: the records a platform made of an uploaded file (a statement file's transactions), in chunks
 *   of about a megabyte, read back one at a time.
 * - `upload_configurations`: Codat's bank statement upload configuration, one per connection and account.
 * - `upload_sessions`, `upload_session_pages`: sessions under way and the pages uploaded to them.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const pg = dialect === 'postgres';
  await db.schema
    .createTable('uploads')
    .addColumn('seq', pg ? 'bigserial' : 'integer', (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('uploaded', 'text', (c) => c.notNull())
    .addColumn('content', pg ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('format', 'text')
    .addColumn('parsed', 'text')
    .addColumn('batch', 'text')
    .execute();
  await db.schema.createIndex('uploads_company').on('uploads').columns(['company_id', 'seq']).execute();
  await db.schema.createIndex('uploads_connection').on('uploads').columns(['connection_id', 'seq']).execute();

  await db.schema
    .createTable('upload_chunks')
    .addColumn('upload_id', 'text', (c) => c.notNull())
    .addColumn('chunk', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('upload_chunks_pk', ['upload_id', 'chunk'])
    .execute();

  await db.schema
    .createTable('upload_configurations')
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('doc', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('upload_configurations_pk', ['connection_id', 'account_id'])
    .execute();

  await db.schema
    .createTable('upload_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('data_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('started', 'text', (c) => c.notNull())
    .addColumn('last_activity', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('upload_sessions_connection')
    .on('upload_sessions')
    .columns(['connection_id', 'data_type', 'status'])
    .execute();

  await db.schema
    .createTable('upload_session_pages')
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('page', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('upload_session_pages_pk', ['session_id', 'page'])
    .execute();
}
