import type { Insertable, Kysely } from 'kysely';
import type { Database, EmulatorRequestsTable } from '../storage/schema.js';

/** The emulator's request journal (migration 0021): a client's rows are reached with its id alone. */

export type JournalRow = Insertable<EmulatorRequestsTable>;

/**
 * Keeps one request; with `trim`, also drops the client's entries older than its last `keep`. Trimming walks `keep`
 * index entries, so it runs every so often rather than on every request; reads apply the bound exactly (`floorOf`).
 */
export async function recordRequest(db: Kysely<Database>, row: JournalRow, keep: number, trim: boolean): Promise<void> {
  await db.insertInto('emulator_requests').values(row).execute();
  if (!trim) return;
  const floor = await floorOf(db, row.client_id, keep);
  if (floor !== undefined)
    await db.deleteFrom('emulator_requests').where('client_id', '=', row.client_id).where('seq', '<', floor).execute();
}

/** The oldest `seq` among the client's last `keep` entries; undefined while it has no more than `keep`. */
export async function floorOf(db: Kysely<Database>, clientId: string, keep: number): Promise<number | undefined> {
  const edge = await db
    .selectFrom('emulator_requests')
    .select('seq')
    .where('client_id', '=', clientId)
    .orderBy('seq', 'desc')
    .limit(1)
    .offset(keep)
    .executeTakeFirst();
  if (!edge) return undefined;
  return Number(edge.seq) + 1;
}

export interface JournalFilter {
  /** Entries from this `seq` on (the journal's bound: `floorOf`). */
  fromSeq?: number;
  companyId?: string;
  /** Canonical operationIds, any of which matches. */
  operationIds?: readonly string[];
  status?: number;
}

function filtered(db: Kysely<Database>, clientId: string, filter: JournalFilter) {
  let query = db.selectFrom('emulator_requests').where('client_id', '=', clientId);
  if (filter.fromSeq !== undefined) query = query.where('seq', '>=', filter.fromSeq);
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

/** Forgets the client's journal (the emulator's reset). */
export async function clearJournal(executor: Kysely<Database>, clientId: string): Promise<void> {
  await executor.deleteFrom('emulator_requests').where('client_id', '=', clientId).execute();
}
