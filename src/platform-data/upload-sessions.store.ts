import type { Kysely, Selectable } from 'kysely';
import type { Database, UploadConfigurationsTable, UploadSessionsTable } from '../storage/schema.js';

export type UploadSessionRow = Selectable<UploadSessionsTable>;

/*
 * Codat's bank statement upload sessions as stored: the per-account configurations, the sessions and their
 * pages. Every function takes the executor (the store or the caller's transaction), then the client id, and
 * keeps to that client's rows (pages are reached through their session).
 */

/** The session, if it is this connection's. */
export function sessionOf(
  executor: Kysely<Database>,
  clientId: string,
  connectionId: string,
  id: string,
): Promise<UploadSessionRow | undefined> {
  return executor
    .selectFrom('upload_sessions')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('connection_id', '=', connectionId)
    .executeTakeFirst();
}

/** The connection's active sessions with no upload since `cutoff`. */
export async function idleSessionIds(
  executor: Kysely<Database>,
  clientId: string,
  connectionId: string,
  cutoff: string,
): Promise<string[]> {
  const rows = await executor
    .selectFrom('upload_sessions')
    .select('id')
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('status', '=', 'Active')
    .where('last_activity', '<=', cutoff)
    .execute();
  return rows.map((row) => row.id);
}

/** The connection's active session of a data type, if one is (at most one, by the service's rule). */
export async function activeSessionId(
  executor: Kysely<Database>,
  clientId: string,
  connectionId: string,
  dataType: string,
): Promise<string | undefined> {
  const row = await executor
    .selectFrom('upload_sessions')
    .select('id')
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('data_type', '=', dataType)
    .where('status', '=', 'Active')
    .executeTakeFirst();
  return row?.id;
}

/** A new session, empty: no pages counted yet. */
export async function insertSession(
  trx: Kysely<Database>,
  clientId: string,
  session: Omit<UploadSessionRow, 'client_id' | 'pages' | 'characters'>,
): Promise<void> {
  await trx
    .insertInto('upload_sessions')
    .values({ ...session, client_id: clientId, pages: 0, characters: 0 })
    .execute();
}

/** Ends a session (`Processed`, `Cancelled` or `Expired`): its pages go. */
export async function closeSession(
  trx: Kysely<Database>,
  clientId: string,
  id: string,
  status: 'Processed' | 'Cancelled' | 'Expired',
): Promise<void> {
  await trx.updateTable('upload_sessions').set({ status }).where('client_id', '=', clientId).where('id', '=', id).execute();
  await trx.deleteFrom('upload_session_pages').where('session_id', '=', id).execute();
}

/** Appends one page to a session (numbered after the last), counts it, and notes the activity. */
export async function appendPage(
  trx: Kysely<Database>,
  clientId: string,
  session: Pick<UploadSessionRow, 'id' | 'pages'>,
  body: string,
  at: string,
): Promise<void> {
  await trx
    .insertInto('upload_session_pages')
    .values({ session_id: session.id, page: Number(session.pages) + 1, body })
    .execute();
  await trx
    .updateTable('upload_sessions')
    .set((eb) => ({ last_activity: at, pages: eb('pages', '+', 1), characters: eb('characters', '+', body.length) }))
    .where('client_id', '=', clientId)
    .where('id', '=', session.id)
    .execute();
}

/** A session's pages as uploaded, in order. */
export async function sessionPages(executor: Kysely<Database>, clientId: string, sessionId: string): Promise<string[]> {
  const rows = await executor
    .selectFrom('upload_session_pages as p')
    .innerJoin('upload_sessions as s', 's.id', 'p.session_id')
    .select('p.body')
    .where('s.client_id', '=', clientId)
    .where('p.session_id', '=', sessionId)
    .orderBy('p.page')
    .execute();
  return rows.map((row) => row.body);
}

/** The connection's newest upload configuration, as JSON text. */
export async function latestConfiguration(executor: Kysely<Database>, clientId: string, connectionId: string): Promise<string | undefined> {
  const row = await executor
    .selectFrom('upload_configurations')
    .select('doc')
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .orderBy('created', 'desc')
    .orderBy('account_id', 'desc')
    .executeTakeFirst();
  return row?.doc;
}

/** Whether the connection has an upload configuration for this account. */
export async function hasConfiguration(
  executor: Kysely<Database>,
  clientId: string,
  connectionId: string,
  accountId: string,
): Promise<boolean> {
  const row = await executor
    .selectFrom('upload_configurations')
    .select('account_id')
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The accounts the connection has upload configurations for. */
export async function configuredAccounts(executor: Kysely<Database>, clientId: string, connectionId: string): Promise<Set<string>> {
  const rows = await executor
    .selectFrom('upload_configurations')
    .select('account_id')
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .execute();
  return new Set(rows.map((row) => row.account_id));
}

export async function insertConfiguration(
  trx: Kysely<Database>,
  clientId: string,
  configuration: Omit<Selectable<UploadConfigurationsTable>, 'client_id'>,
): Promise<void> {
  await trx
    .insertInto('upload_configurations')
    .values({ ...configuration, client_id: clientId })
    .execute();
}

/** Deletes the upload sessions, their pages and the upload configurations of a company, or of one of its connections. */
export async function deleteUploadSessions(
  trx: Kysely<Database>,
  clientId: string,
  target: { companyId: string; connectionId?: string },
): Promise<void> {
  let sessions = trx
    .selectFrom('upload_sessions')
    .select('id')
    .where('client_id', '=', clientId)
    .where('company_id', '=', target.companyId);
  let deleteSessions = trx.deleteFrom('upload_sessions').where('client_id', '=', clientId).where('company_id', '=', target.companyId);
  let configurations = trx.deleteFrom('upload_configurations').where('client_id', '=', clientId).where('company_id', '=', target.companyId);
  if (target.connectionId !== undefined) {
    sessions = sessions.where('connection_id', '=', target.connectionId);
    deleteSessions = deleteSessions.where('connection_id', '=', target.connectionId);
    configurations = configurations.where('connection_id', '=', target.connectionId);
  }
  await trx.deleteFrom('upload_session_pages').where('session_id', 'in', sessions).execute();
  await deleteSessions.execute();
  await configurations.execute();
}
