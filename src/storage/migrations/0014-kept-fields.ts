import { sql, type Kysely } from 'kysely';

/**
 * `f_kept` on the index and staging rows: what the reports read of every record of their inputs (the aged reports'
 * invoices, payments, …; src/records/record-fields.ts, KEPT_FIELDS), as a small JSON tuple written with the version,
 * so that a report over a million records scans narrow rows instead of reading every document. Versions written
 * before it have none (null): the reports read those records' documents instead.
 *
 * All or nothing on both stores (see 0004: SQLite migrations are not wrapped by Kysely).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.isTransaction) await apply(db);
  else await db.transaction().execute(apply);
}

async function apply(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE record_index ADD COLUMN f_kept text`.execute(db);
  await sql`ALTER TABLE record_staging ADD COLUMN f_kept text`.execute(db);
}
