import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { DeletionStep } from '../storage/deletion.js';

/*
 * The Sandboxes' authorization scenarios (scenarios.ts; migration 0022). Each statement takes the client id after
 * its executor and keeps to that client's rows.
 */

/** Sets the connection's scenario (none: forgets it), and forgets what an earlier one did. */
export async function setScenario(
  trx: Kysely<Database>,
  clientId: string,
  row: { connectionId: string; companyId: string; scenario: string | undefined },
): Promise<void> {
  await trx.deleteFrom('emulator_scenario_marks').where('client_id', '=', clientId).where('connection_id', '=', row.connectionId).execute();
  await trx.deleteFrom('emulator_scenarios').where('client_id', '=', clientId).where('connection_id', '=', row.connectionId).execute();
  if (row.scenario === undefined) return;
  await trx
    .insertInto('emulator_scenarios')
    .values({ connection_id: row.connectionId, client_id: clientId, company_id: row.companyId, scenario: row.scenario })
    .execute();
}

/** The connection's scenario, if it has one. */
export async function scenarioOf(db: Kysely<Database>, clientId: string, connectionId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('emulator_scenarios')
    .select('scenario')
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .executeTakeFirst();
  return row?.scenario;
}

/** Makes a mark once: true for the caller that made it, false when it was there already (another run's). */
export async function makeMark(
  db: Kysely<Database>,
  clientId: string,
  mark: { connectionId: string; companyId: string; mark: string; value?: string },
): Promise<boolean> {
  const result = await db
    .insertInto('emulator_scenario_marks')
    .values({
      connection_id: mark.connectionId,
      mark: mark.mark,
      client_id: clientId,
      company_id: mark.companyId,
      value: mark.value ?? null,
    })
    .onConflict((oc) => oc.columns(['connection_id', 'mark']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** A mark's value, if it was made. */
export async function markValue(
  db: Kysely<Database>,
  clientId: string,
  connectionId: string,
  mark: string,
): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('emulator_scenario_marks')
    .select('value')
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('mark', '=', mark)
    .executeTakeFirst();
  return row ? row.value : undefined;
}

/** Forgets a mark. */
export async function dropMark(db: Kysely<Database>, clientId: string, connectionId: string, mark: string): Promise<void> {
  await db
    .deleteFrom('emulator_scenario_marks')
    .where('client_id', '=', clientId)
    .where('connection_id', '=', connectionId)
    .where('mark', '=', mark)
    .execute();
}

/** A deleted company or connection takes its scenarios with it. */
export const deleteScenariosStep: DeletionStep = async (trx, clientId, scope) => {
  for (const table of ['emulator_scenario_marks', 'emulator_scenarios'] as const) {
    let query = trx.deleteFrom(table).where('client_id', '=', clientId).where('company_id', '=', scope.companyId);
    if (scope.connectionId !== undefined) query = query.where('connection_id', '=', scope.connectionId);
    await query.execute();
  }
};
