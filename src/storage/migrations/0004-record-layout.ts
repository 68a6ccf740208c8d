import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { createSqlDialect } from '../dialect.js';
import { findConnector } from '../../connectors/registry.js';
import { isDataType } from '../../connectors/data-types.js';
import { INDEXED_COLUMNS, recordFieldPaths } from '../../data/record-fields.js';

/**
 * Splits `records` in two, for writes and deep reads at a million records:
 * - `record_docs`: the served JSON, keyed by one integer (`version * 2^32 + position`), so a version is one
 *   contiguous key range: pages are range reads, and one B-tree is written per record instead of three;
 * - `record_index`: one narrow row per record (id, position, hash, dates, deletion, the indexed fields), keyed
 *   by `(version, record_id)`: lookups by id, the previous-version merge of a sync, and filter scans read it
 *   without touching the documents.
 * Existing versions are copied across, their indexed fields extracted by the rules the writer uses.
 *
 * All or nothing on both stores. Kysely runs a Postgres migration in a transaction but not a SQLite one, and
 * this one copies every stored record: stopped part-way (a crash, a restart during a deploy, a failing
 * statement), it would leave `record_docs` created beside `records`, and every later start would fail on
 * "table record_docs already exists". So on SQLite it opens its own transaction.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (db.isTransaction) await split(db, dialect);
  else await db.transaction().execute((trx) => split(trx, dialect));
}

async function split(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const pg = dialect === 'postgres';
  await sql`CREATE TABLE record_docs (key ${sql.raw(pg ? 'bigint' : 'integer')} PRIMARY KEY, doc text NOT NULL)`.execute(db);
  await sql`CREATE TABLE record_index (
    version bigint NOT NULL,
    record_id text ${sql.raw(pg ? 'COLLATE "C"' : '')} NOT NULL,
    position integer NOT NULL,
    content_hash text NOT NULL,
    modified_date text NOT NULL,
    is_deleted integer NOT NULL,
    f_status text,
    f_date text,
    f_amount ${sql.raw(pg ? 'double precision' : 'real')},
    f_currency text,
    f_ref text,
    PRIMARY KEY (version, record_id)
  ) ${sql.raw(pg ? '' : 'WITHOUT ROWID')}`.execute(db);

  await sql`INSERT INTO record_docs (key, doc) SELECT version * 4294967296 + position, doc FROM records`.execute(db);
  await sql`INSERT INTO record_index (version, record_id, position, content_hash, modified_date, is_deleted)
    SELECT version, record_id, position, content_hash, modified_date, is_deleted FROM records`.execute(db);

  const json = createSqlDialect(dialect);
  const versions = await sql<{ seq: number; data_type: string; platform_key: string | null }>`
    SELECT p.seq, p.data_type, c.platform_key FROM pull_operations p LEFT JOIN connections c ON c.id = p.connection_id
    WHERE p.seq IN (SELECT DISTINCT version FROM records)`.execute(db);
  for (const v of versions.rows) {
    const source = v.platform_key && isDataType(v.data_type) ? findConnector(v.platform_key)?.dataTypes.get(v.data_type) : undefined;
    if (!source) continue;
    const paths = recordFieldPaths(source.schema);
    const sets = INDEXED_COLUMNS.filter((c) => paths[c]).map((column) => {
      const path = (paths[column] as string).split('.');
      const value = column === 'amount' ? json.jsonNumber('doc', path) : json.jsonText('doc', path);
      return sql`${sql.ref(`f_${column}`)} = (SELECT ${value} FROM records r WHERE r.version = record_index.version AND r.record_id = record_index.record_id)`;
    });
    if (sets.length === 0) continue;
    await sql`UPDATE record_index SET ${sql.join(sets)} WHERE version = ${Number(v.seq)}`.execute(db);
  }
  await sql`DROP TABLE records`.execute(db);
}
