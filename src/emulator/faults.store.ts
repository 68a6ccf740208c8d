import type { Kysely, Selectable } from 'kysely';
import type { Database, EmulatorFaultsTable } from '../storage/schema.js';

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

export async function deleteFault(db: Kysely<Database>, clientId: string, id: string): Promise<boolean> {
  await db.deleteFrom('emulator_fired_work').where('client_id', '=', clientId).where('fault_id', '=', id).execute();
  const result = await db.deleteFrom('emulator_faults').where('client_id', '=', clientId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteFaults(db: Kysely<Database>, clientId: string): Promise<number> {
  await db.deleteFrom('emulator_fired_work').where('client_id', '=', clientId).execute();
  const result = await db.deleteFrom('emulator_faults').where('client_id', '=', clientId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The rule that fired on a piece of work (a sync, a write, a delivery), if one did. */
export async function firedOn(db: Kysely<Database>, clientId: string, workId: string): Promise<FaultRow | undefined> {
  return db
    .selectFrom('emulator_fired_work as w')
    .innerJoin('emulator_faults as f', 'f.id', 'w.fault_id')
    .selectAll('f')
    .where('w.client_id', '=', clientId)
    .where('w.work_id', '=', workId)
    .executeTakeFirst();
}

/** Records the rule that fired on a piece of work. */
export async function recordFiredOn(db: Kysely<Database>, clientId: string, workId: string, faultId: string): Promise<void> {
  await db
    .insertInto('emulator_fired_work')
    .values({ work_id: workId, client_id: clientId, fault_id: faultId })
    .onConflict((oc) => oc.column('work_id').doNothing())
    .execute();
}

/**
 * Counts one firing of a rule, unless it is spent (another request took its last one): the firing's index (0 for the
 * rule's first), or undefined when it does not fire.
 */
export async function takeFiring(db: Kysely<Database>, id: string): Promise<number | undefined> {
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
