import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Postgres: documents are compressed with lz4 instead of the default pglz. A served invoice (about 2.8 KB of
 * JSON) is compressed when it is written and decompressed on every read; lz4 does both several times faster
 * for about 3% more space (docs/benchmarks.md: the COPY of a sync's documents 33,500 → 43,000 records/s).
 * Only values written from now on: stored ones keep pglz, and Postgres reads either.
 * A server built without lz4 (or older than 14) keeps its default: the failure is caught, noted and ignored.
 * SQLite stores documents uncompressed: nothing to do.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`DO $$
    BEGIN
      EXECUTE 'ALTER TABLE record_docs ALTER COLUMN doc SET COMPRESSION lz4';
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'record_docs keeps the default compression: %', SQLERRM;
    END $$`.execute(db);
}
