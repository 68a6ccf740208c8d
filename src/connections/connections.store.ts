import type { Kysely, Selectable } from 'kysely';
import type { ConnectionsTable, Database } from '../storage/schema.js';

export type ConnectionRow = Selectable<ConnectionsTable>;

/*
 * Connections as stored. Every function takes the executor (the store or the caller's transaction), then the
 * client id, and keeps to that client's rows.
 */

/** The company's Linked connections, oldest first. */
export function linkedConnections(executor: Kysely<Database>, clientId: string, companyId: string): Promise<ConnectionRow[]> {
  return executor
    .selectFrom('connections')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('company_id', '=', companyId)
    .where('status', '=', 'Linked')
    .orderBy('created')
    .execute();
}

/** One of the company's connections. */
export function connectionOfCompany(
  executor: Kysely<Database>,
  clientId: string,
  companyId: string,
  connectionId: string,
): Promise<ConnectionRow | undefined> {
  return executor
    .selectFrom('connections')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('company_id', '=', companyId)
    .where('id', '=', connectionId)
    .executeTakeFirst();
}

/** The platform of each of the company's connections, whatever their status. */
export async function platformKeysOfCompany(executor: Kysely<Database>, clientId: string, companyId: string): Promise<string[]> {
  const rows = await executor
    .selectFrom('connections')
    .select('platform_key')
    .where('client_id', '=', clientId)
    .where('company_id', '=', companyId)
    .execute();
  return rows.map((row) => row.platform_key);
}

/** A connection by id (a job's: the id came from the client's own row). */
export function connectionById(executor: Kysely<Database>, clientId: string, connectionId: string): Promise<ConnectionRow | undefined> {
  return executor.selectFrom('connections').selectAll().where('client_id', '=', clientId).where('id', '=', connectionId).executeTakeFirst();
}

/** Stamps a sync's completion on the connection, with its re-rendered document. */
export async function stampConnectionSync(
  trx: Kysely<Database>,
  clientId: string,
  connectionId: string,
  completed: string,
  doc: string,
): Promise<void> {
  await trx
    .updateTable('connections')
    .set({ last_sync: completed, doc })
    .where('client_id', '=', clientId)
    .where('id', '=', connectionId)
    .execute();
}
