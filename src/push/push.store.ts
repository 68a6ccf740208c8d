import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, PushOperationsTable } from '../storage/schema.js';
import type { SqlDialect } from '../storage/dialect.js';
import type { QueryableResource } from '../query/properties.js';
import { resolverFromSchema } from '../query/schema-resolver.js';
import { companyDocsPage, type ListContext } from '../query/list-engine.js';
import type { PageRequest } from '../http/paging.js';
import { PUSH_STATUSES, PushOperation } from './push-operation.js';

export type PushRow = Selectable<PushOperationsTable>;

/*
 * Push operations (writes) as stored. Every function takes the executor (the store or the caller's transaction),
 * then the client id, and keeps to that client's rows.
 */

/** Push operations as a list resource: the columns `query` and `orderBy` reach without reading the document. */
export function pushOperationResource(dialect: SqlDialect): QueryableResource {
  return {
    typeName: 'PushOperation',
    resolve: resolverFromSchema(PushOperation, 'doc', dialect, {
      pushOperationKey: { type: 'string', exact: true, expr: sql`push_operations.id` },
      dataConnectionKey: { type: 'string', exact: true, expr: sql`push_operations.connection_id` },
      dataType: { type: 'string', exact: true, expr: sql`push_operations.data_type` },
      status: { type: 'enum', enumValues: PUSH_STATUSES, expr: sql`push_operations.status` },
      requestedOnUtc: { type: 'date', dateStyle: 'instant', expr: sql`push_operations.requested` },
    }),
  };
}

/** The operation an Idempotency-Key was first used for. */
export function pushByIdempotencyKey(executor: Kysely<Database>, clientId: string, key: string) {
  return executor
    .selectFrom('push_operations')
    .select(['doc', 'data', 'request_hash'])
    .where('client_id', '=', clientId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

export async function insertPush(trx: Kysely<Database>, clientId: string, row: Omit<PushRow, 'client_id' | 'seq'>): Promise<void> {
  await trx
    .insertInto('push_operations')
    .values({ ...row, client_id: clientId })
    .execute();
}

/** A push operation's document, if it is the company's. */
export async function pushDoc(executor: Kysely<Database>, clientId: string, companyId: string, id: string): Promise<string | undefined> {
  const row = await executor
    .selectFrom('push_operations')
    .select('doc')
    .where('client_id', '=', clientId)
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.doc;
}

/** A push operation by id (the push job's: the id came from the client's own row). */
export function pushById(executor: Kysely<Database>, id: string): Promise<PushRow | undefined> {
  return executor.selectFrom('push_operations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Settles a Pending operation; false when it was no longer Pending (settled by another run). */
export async function settlePush(
  trx: Kysely<Database>,
  clientId: string,
  id: string,
  state: { status: string; completed: string; recordId: string | null; doc: string },
): Promise<boolean> {
  const updated = await trx
    .updateTable('push_operations')
    .set({ status: state.status, completed: state.completed, record_id: state.recordId, doc: state.doc })
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('status', '=', 'Pending')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** A page of the company's push operations, newest first unless `orderBy` says otherwise. */
export function pushOperationsPage(
  lists: ListContext,
  clientId: string,
  companyId: string,
  resource: QueryableResource,
  page: PageRequest,
) {
  return companyDocsPage(lists, 'push_operations', clientId, companyId, resource, page);
}

/**
 * The company's last settled write of a data type (to one connection, when given): what a write event fired by the
 * emulator reports (src/emulator/fired-events.ts).
 */
export function lastSettledPush(
  executor: Kysely<Database>,
  clientId: string,
  target: { companyId: string; dataType: string; connectionId?: string; succeeded: boolean },
): Promise<PushRow | undefined> {
  let query = executor
    .selectFrom('push_operations')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('company_id', '=', target.companyId)
    .where('data_type', '=', target.dataType)
    .where('status', target.succeeded ? '=' : 'in', target.succeeded ? 'Success' : ['Failed', 'TimedOut']);
  if (target.connectionId !== undefined) query = query.where('connection_id', '=', target.connectionId);
  return query.orderBy('seq', 'desc').limit(1).executeTakeFirst();
}

/** How many of the client's writes are still Pending: the emulator's reset waits for none. */
export async function pendingPushCount(executor: Kysely<Database>, clientId: string): Promise<number> {
  const row = await executor
    .selectFrom('push_operations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('client_id', '=', clientId)
    .where('status', '=', 'Pending')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
