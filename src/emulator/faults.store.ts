import type { Kysely, Selectable } from 'kysely';
import type { Database, EmulatorFaultsTable } from '../storage/schema.js';
import type { DeletionStep } from '../storage/deletion.js';

/** A client's fault rules (migration 0021), reached with the client's id. */

export type FaultRow = Selectable<EmulatorFaultsTable>;

export async function insertFault(db: Kysely<Database>, row: Omit<FaultRow, 'seq' | 'fired' | 'draws'>): Promise<FaultRow> {
  await db.insertInto('emulator_faults').values(row).execute();
  return (await faultOf(db, row.client_id, row.id))!;
}

export async function faultOf(db: Kysely<Database>, clientId: string, id: string): Promise<FaultRow | undefined> {
  return db.selectFrom('emulator_faults').selectAll().where('client_id', '=', clientId).where('id', '=', id).executeTakeFirst();
}

/** The client's rules, oldest first (the order they are tried in). */
export async function faultsOf(db: Kysely<Database>, clientId: string): Promise<FaultRow[]> {
  return db.selectFrom('emulator_faults').selectAll().where('client_id', '=', clientId).orderBy('seq').execute();
}

/** The client's rules that may still fire, oldest first. */
export async function liveFaultsOf(db: Kysely<Database>, clientId: string): Promise<FaultRow[]> {
  return db
    .selectFrom('emulator_faults')
    .selectAll()
    .where('client_id', '=', clientId)
    .where((eb) => eb.or([eb('times', 'is', null), eb('fired', '<', eb.ref('times'))]))
    .orderBy('seq')
    .execute();
}

/** Deletes a rule, and what it fired on, together. */
export async function deleteFault(db: Kysely<Database>, clientId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('emulator_fired_work').where('client_id', '=', clientId).where('fault_id', '=', id).execute();
    const result = await trx.deleteFrom('emulator_faults').where('client_id', '=', clientId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}

/** Deletes every rule of the client, and what they fired on (in the caller's transaction: the two go together). */
export async function deleteFaults(trx: Kysely<Database>, clientId: string): Promise<number> {
  await trx.deleteFrom('emulator_fired_work').where('client_id', '=', clientId).execute();
  const result = await trx.deleteFrom('emulator_faults').where('client_id', '=', clientId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** What a piece of work met, recorded: `fault_id` NO_FAULT when rules were drawn against and none fired. */
export const NO_FAULT = '';

/** What was decided for a piece of work (a sync, a write, a delivery), if anything: the rule's action, or none. */
export async function firedOn(
  executor: Kysely<Database>,
  clientId: string,
  workId: string,
): Promise<{ faultId: string; action: string | null } | undefined> {
  const row = await executor
    .selectFrom('emulator_fired_work as w')
    .leftJoin('emulator_faults as f', 'f.id', 'w.fault_id')
    .select(['w.fault_id', 'f.action'])
    .where('w.client_id', '=', clientId)
    .where('w.work_id', '=', workId)
    .executeTakeFirst();
  return row && { faultId: row.fault_id, action: row.action };
}

/** Records what a piece of work met (a rule's id, or NO_FAULT), in the transaction that drew for it. */
export async function recordFiredOn(
  executor: Kysely<Database>,
  clientId: string,
  work: { workId: string; faultId: string; companyId: string | null },
): Promise<void> {
  await executor
    .insertInto('emulator_fired_work')
    .values({ work_id: work.workId, client_id: clientId, fault_id: work.faultId, company_id: work.companyId })
    .onConflict((oc) => oc.column('work_id').doNothing())
    .execute();
}

/** A deleted company takes what its work met with it (a connection's goes with its company or its rules). */
export const deleteFiredWorkStep: DeletionStep = async (trx, clientId, scope) => {
  if (scope.connectionId !== undefined) return;
  await trx.deleteFrom('emulator_fired_work').where('client_id', '=', clientId).where('company_id', '=', scope.companyId).execute();
};

/**
 * Counts one firing of a rule, unless it is spent (another request took its last one): the firing's index (0 for the
 * rule's first), or undefined when it does not fire.
 */
export async function takeFiring(db: Kysely<Database>, id: string): Promise<number | undefined> {
  // (db: the store, or the transaction drawing for a piece of work)
  const row = await db
    .updateTable('emulator_faults')
    .set((eb) => ({ fired: eb('fired', '+', 1) }))
    .where('id', '=', id)
    .where((eb) => eb.or([eb('times', 'is', null), eb('fired', '<', eb.ref('times'))]))
    .returning('fired')
    .executeTakeFirst();
  return row ? Number(row.fired) - 1 : undefined;
}

/** How many rules the client has. */
export async function faultCount(db: Kysely<Database>, clientId: string): Promise<number> {
  const row = await db
    .selectFrom('emulator_faults')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The position of the next draw against a rule's probability (0 for its first), counted once. */
export async function takeDraw(db: Kysely<Database>, id: string): Promise<number> {
  const row = await db
    .updateTable('emulator_faults')
    .set((eb) => ({ draws: eb('draws', '+', 1) }))
    .where('id', '=', id)
    .returning('draws')
    .executeTakeFirst();
  return Number(row?.draws ?? 1) - 1;
}

/** Holds a webhook delivery behind the next one to its consumer (a `reorder` rule). */
export async function holdDelivery(db: Kysely<Database>, deliveryId: string, consumerId: string): Promise<void> {
  await db
    .insertInto('emulator_held_deliveries')
    .values({ delivery_id: deliveryId, consumer_id: consumerId })
    .onConflict((oc) => oc.column('delivery_id').doNothing())
    .execute();
}

/** Takes the deliveries held behind a consumer's next one, each once. */
export async function releaseDeliveries(db: Kysely<Database>, consumerId: string): Promise<string[]> {
  const rows = await db.deleteFrom('emulator_held_deliveries').where('consumer_id', '=', consumerId).returning('delivery_id').execute();
  return rows.map((r) => r.delivery_id);
}

/** Takes one held delivery; false when it was released already. */
export async function takeHeldDelivery(db: Kysely<Database>, deliveryId: string): Promise<boolean> {
  const result = await db.deleteFrom('emulator_held_deliveries').where('delivery_id', '=', deliveryId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
