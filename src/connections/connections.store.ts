import { sql, type Kysely, type Selectable } from 'kysely';
import type { ConnectionsTable, Database } from '../storage/schema.js';
import { assertIdentifier } from '../storage/dialect.js';
import type { PageRequest } from '../http/paging.js';
import { listPage, type ListContext } from '../query/list-engine.js';
import type { PropertyDef, QueryableResource } from '../query/properties.js';
import { CONNECTION_STATUSES, SOURCE_TYPES } from './connection.schema.js';

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

/**
 * Connection properties that read real columns of the `connections` table (under `alias`): used by the
 * connections list and by companies' `dataConnections.<field>` filter, so both mean the same thing.
 */
export function connectionColumns(alias: string): Record<string, PropertyDef> {
  const column = (name: string) => sql.raw(`${assertIdentifier(alias)}.${assertIdentifier(name)}`);
  return {
    id: { type: 'string', exact: true, expr: sql`${column('id')}` },
    status: { type: 'enum', enumValues: CONNECTION_STATUSES, expr: sql`${column('status')}` },
    sourceType: { type: 'enum', enumValues: SOURCE_TYPES, expr: sql`${column('source_type')}` },
    integrationKey: { type: 'string', exact: true, expr: sql`${column('platform_key')}` },
    created: { type: 'date', dateStyle: 'instant', expr: sql`${column('created')}` },
  };
}

/** A page of the company's connections, oldest first unless `orderBy` says otherwise. */
export async function connectionsPage(
  lists: ListContext,
  clientId: string,
  companyId: string,
  resource: QueryableResource,
  page: PageRequest,
  countKey: string,
): Promise<{ rows: { id: string; company_id: string; doc: string }[]; totalResults: number }> {
  return listPage<{ id: string; company_id: string; doc: string }>(
    lists,
    {
      from: sql`connections`,
      scope: sql`connections.client_id = ${clientId} AND connections.company_id = ${companyId}`,
      resource,
      select: sql`connections.id, connections.company_id, connections.doc`,
      tiebreak: [sql`connections.created`, sql`connections.id`],
      key: sql`connections.id`,
      countKey,
    },
    page,
  );
}

/** The company's accounting connection, if it has one (a company holds at most one). */
export function accountingConnectionOf(
  executor: Kysely<Database>,
  clientId: string,
  companyId: string,
): Promise<{ id: string } | undefined> {
  return executor
    .selectFrom('connections')
    .select('id')
    .where('client_id', '=', clientId)
    .where('company_id', '=', companyId)
    .where('source_type', '=', 'Accounting')
    .executeTakeFirst();
}

export async function insertConnection(trx: Kysely<Database>, clientId: string, row: Omit<ConnectionRow, 'client_id'>): Promise<void> {
  await trx
    .insertInto('connections')
    .values({ ...row, client_id: clientId })
    .execute();
}

/** Deletes a company's connections, or one of them. */
export async function deleteConnections(
  trx: Kysely<Database>,
  clientId: string,
  target: { companyId: string; connectionId?: string },
): Promise<void> {
  let query = trx.deleteFrom('connections').where('client_id', '=', clientId).where('company_id', '=', target.companyId);
  if (target.connectionId !== undefined) query = query.where('id', '=', target.connectionId);
  await query.execute();
}

/** Writes a connection's status, settings and re-rendered document. */
export async function setConnectionState(
  trx: Kysely<Database>,
  clientId: string,
  connectionId: string,
  state: { status: string; doc: string; settings: string | null },
): Promise<void> {
  await trx
    .updateTable('connections')
    .set({ status: state.status, doc: state.doc, settings: state.settings })
    .where('client_id', '=', clientId)
    .where('id', '=', connectionId)
    .execute();
}

/** All of the company's connections, whatever their status, oldest first. */
export function connectionsOfCompany(executor: Kysely<Database>, clientId: string, companyId: string): Promise<ConnectionRow[]> {
  return executor
    .selectFrom('connections')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('company_id', '=', companyId)
    .orderBy('created')
    .orderBy('id')
    .execute();
}
