import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * `upload_sessions.pages` and `.characters`: how many pages a session holds and their JSON text's length, kept as
 * pages are appended. Checking a session's size against its cap then reads its row, instead of summing every page
 * it holds on each upload (which grew with the square of the page count). Sessions open now are counted once here.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const integer = sql.raw(dialect === 'postgres' ? 'bigint' : 'integer');
  await sql`ALTER TABLE upload_sessions ADD COLUMN pages ${integer} NOT NULL DEFAULT 0`.execute(db);
  await sql`ALTER TABLE upload_sessions ADD COLUMN characters ${integer} NOT NULL DEFAULT 0`.execute(db);
  await sql`UPDATE upload_sessions SET
    pages = (SELECT COALESCE(MAX(page), 0) FROM upload_session_pages p WHERE p.session_id = upload_sessions.id),
    characters = (SELECT COALESCE(SUM(LENGTH(body)), 0) FROM upload_session_pages p WHERE p.session_id = upload_sessions.id)`.execute(db);
}
