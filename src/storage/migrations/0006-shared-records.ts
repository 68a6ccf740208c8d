import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Versions that share records, for delta syncs and records that arrive in any order:
 * - `record_index.doc_key`: the key of the record's document. A version written in full still has its own
 *   documents under `version * 2^32 + position`; a version built from changes refers to the unchanged documents
 *   of the version before it instead of copying them. Indexed with the position, so a page of any version is a
 *   range read of the index followed by its documents.
 * - `record_versions`: each version written, with its data set, its size once complete, and whether its
 *   documents are its own and dense (then a page is a plain range read of `record_docs`, as before).
 * - `record_staging`: the narrow rows of a version whose records arrived out of id order or as changes, as
 *   sorted runs (an external merge sort: each run is appended in id order, so nothing is inserted at random
 *   into a large B-tree); the writer merges the runs with the previous version.
 * - `data_sets.cursor`: the opaque cursor the platform handed back with the current version.
 * - `pull_operations.full_sync`: 1 when the sync was queued with `?full=true`.
 *
 * All or nothing on both stores (see 0004: SQLite migrations are not wrapped by Kysely).
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (db.isTransaction) await apply(db, dialect);
  else await db.transaction().execute((trx) => apply(trx, dialect));
}

async function apply(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const pg = dialect === 'postgres';
  const key = sql.raw(pg ? 'bigint' : 'integer');
  await sql`ALTER TABLE record_index ADD COLUMN doc_key ${key} NOT NULL DEFAULT 0`.execute(db);
  await sql`UPDATE record_index SET doc_key = version * 4294967296 + position`.execute(db);
  if (pg) await sql`ALTER TABLE record_index ALTER COLUMN doc_key DROP DEFAULT`.execute(db);
  await sql`CREATE INDEX record_index_position ON record_index (version, position, doc_key)`.execute(db);

  await sql`CREATE TABLE record_versions (
    version bigint PRIMARY KEY,
    connection_id text NOT NULL,
    data_type text NOT NULL,
    records integer,
    dense integer NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX record_versions_data_set ON record_versions (connection_id, data_type)`.execute(db);
  await sql`INSERT INTO record_versions (version, connection_id, data_type, records, dense)
    SELECT r.version, p.connection_id, p.data_type, COUNT(*), 1 FROM record_index r JOIN pull_operations p ON p.seq = r.version
    GROUP BY r.version, p.connection_id, p.data_type`.execute(db);

  // Unlogged on Postgres: staged rows need no crash safety (an interrupted sync starts its version over), and
  // skipping the write-ahead log makes staging cheaper.
  await sql`CREATE ${sql.raw(pg ? 'UNLOGGED ' : '')}TABLE record_staging (
    version bigint NOT NULL,
    run integer NOT NULL,
    idx integer NOT NULL,
    record_id text ${sql.raw(pg ? 'COLLATE "C"' : '')} NOT NULL,
    prev_position integer,
    doc_key ${key} NOT NULL,
    content_hash text NOT NULL,
    modified_date text NOT NULL,
    is_deleted integer NOT NULL,
    f_status text,
    f_date text,
    f_amount ${sql.raw(pg ? 'double precision' : 'real')},
    f_currency text,
    f_ref text,
    PRIMARY KEY (version, run, idx)
  ) ${sql.raw(pg ? '' : 'WITHOUT ROWID')}`.execute(db);

  await sql`ALTER TABLE data_sets ADD COLUMN cursor text`.execute(db);
  await sql`ALTER TABLE pull_operations ADD COLUMN full_sync integer NOT NULL DEFAULT 0`.execute(db);
}
