import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * `version_digests`: what a report keeps of one data-set version, made when the sync writes it (`kind` names whose:
 * 'aged', the aged reports' part of that version, docs/lending/aged-reports.md), as bytes in pieces of a
 * megabyte (`chunk` 0, 1, …). Deleted with its version. On Postgres the bytes are stored as they are, not compressed
 * (`STORAGE EXTERNAL`): a digest is mostly numbers and random ids, and compressing a million-invoice company's took
 * seconds to write and to read back (docs/benchmarks.md).
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const bytes = sql.raw(dialect === 'postgres' ? 'bytea' : 'blob');
  await sql`CREATE TABLE version_digests (
    version bigint NOT NULL,
    kind text NOT NULL,
    chunk integer NOT NULL,
    bytes ${bytes} NOT NULL,
    PRIMARY KEY (version, kind, chunk)
  )`.execute(db);
  if (dialect === 'postgres') await sql`ALTER TABLE version_digests ALTER COLUMN bytes SET STORAGE EXTERNAL`.execute(db);
}
