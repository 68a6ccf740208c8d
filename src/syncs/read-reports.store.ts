import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { ACTIVE_STATUSES, UNFINISHED_STATUSES } from './pull-operation.js';

/*
 * What reporting syncs in `read.completed` events (read-completed.ts) asks of the pull operations and marks on
 * them. Statements run inside the caller's transaction (`trx`): a sync's ending and its report commit together.
 * Each takes the client id after the transaction and keeps to that client's rows.
 */

/** The client's company's pull operations: every question here starts from them. */
const operationsOfCompany = (trx: Kysely<Database>, clientId: string, companyId: string) =>
  trx.selectFrom('pull_operations').where('client_id', '=', clientId).where('company_id', '=', companyId);

/** Whether any sync of the company is queued or running. */
export async function companyIsSyncing(trx: Kysely<Database>, clientId: string, companyId: string): Promise<boolean> {
  const running = await operationsOfCompany(trx, clientId, companyId)
    .select('id')
    .where('status', 'in', ACTIVE_STATUSES)
    .limit(1)
    .executeTakeFirst();
  return running !== undefined;
}

/** The company's finished operations not yet in a `read.completed` event, oldest first. */
export function unreportedOperations(trx: Kysely<Database>, clientId: string, companyId: string) {
  return operationsOfCompany(trx, clientId, companyId)
    .select(['id', 'connection_id', 'data_type', 'status', 'requested', 'records_modified', 'doc'])
    .where('read_reported', '=', 0)
    .where('status', 'not in', UNFINISHED_STATUSES)
    .orderBy('seq')
    .execute();
}

/** How many of these connections had a sync in an earlier `read.completed` event. */
export async function connectionsReportedBefore(trx: Kysely<Database>, clientId: string, connectionIds: string[]): Promise<number> {
  const rows = await trx
    .selectFrom('pull_operations')
    .select('connection_id')
    .where('client_id', '=', clientId)
    .where('connection_id', 'in', connectionIds)
    .where('read_reported', '=', 1)
    .groupBy('connection_id')
    .execute();
  return rows.length;
}

export async function markReported(trx: Kysely<Database>, clientId: string, ids: string[]): Promise<void> {
  await trx.updateTable('pull_operations').set({ read_reported: 1 }).where('client_id', '=', clientId).where('id', 'in', ids).execute();
}

/**
 * The company's last finished operation of each connection's data type, oldest first: what a `read.completed` fired
 * by the emulator reports (src/emulator/fired-events.ts).
 */
export function lastFinishedOperations(trx: Kysely<Database>, clientId: string, companyId: string) {
  const latest = operationsOfCompany(trx, clientId, companyId)
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('status', 'not in', UNFINISHED_STATUSES)
    .groupBy(['connection_id', 'data_type']);
  return operationsOfCompany(trx, clientId, companyId)
    .select(['id', 'connection_id', 'data_type', 'status', 'requested', 'records_modified', 'doc'])
    .where('seq', 'in', latest)
    .orderBy('seq')
    .execute();
}
