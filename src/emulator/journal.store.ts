import type { Insertable, Kysely } from 'kysely';
import type { Database, EmulatorRequestsTable } from '../storage/schema.js';

/** The emulator's request journal (migration 0021): a client's rows are reached with its id alone. */

export type JournalRow = Insertable<EmulatorRequestsTable>;

/** Keeps one request, and only the client's last `keep` (older ones go as new ones come). */
export async function recordRequest(db: Kysely<Database>, row: JournalRow, keep: number): Promise<void> {
  await db.insertInto('emulator_requests').values(row).execute();
  const edge = await db
    .selectFrom('emulator_requests')
    .select('seq')
    .where('client_id', '=', row.client_id)
    .orderBy('seq', 'desc')
    .limit(1)
    .offset(keep)
    .executeTakeFirst();
  if (edge) await db.deleteFrom('emulator_requests').where('client_id', '=', row.client_id).where('seq', '<=', edge.seq).execute();
}

export interface JournalFilter {
  companyId?: string;
  /** Canonical operationIds, any of which matches. */
  operationIds?: readonly string[];
  status?: number;
}

function filtered(db: Kysely<Database>, clientId: string, filter: JournalFilter) {
  let query = db.selectFrom('emulator_requests').where('client_id', '=', clientId);
  if (filter.companyId !== undefined) query = query.where('company_id', '=', filter.companyId);
  if (filter.operationIds !== undefined) query = query.where('operation_id', 'in', filter.operationIds);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return query;
}

/** A page of the client's journal, newest first, and how many entries match. */
export async function journalPage(db: Kysely<Database>, clientId: string, filter: JournalFilter, page: number, pageSize: number) {
  const [rows, total] = await Promise.all([
    filtered(db, clientId, filter)
      .selectAll()
      .orderBy('seq', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    countRequests(db, clientId, filter),
  ]);
  return { rows, total };
}

export async function countRequests(db: Kysely<Database>, clientId: string, filter: JournalFilter): Promise<number> {
  const row = await filtered(db, clientId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** How many matching entries the journal holds per status, lowest status first. */
export async function countByStatus(db: Kysely<Database>, clientId: string, filter: JournalFilter): Promise<[number, number][]> {
  const rows = await filtered(db, clientId, filter)
    .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .orderBy('status')
    .execute();
  return rows.map((r) => [Number(r.status), Number(r.n)]);
}
