import type { Kysely } from 'kysely';

/**
 * The emulator's scenarios on the Sandboxes' authorization (docs/emulator.md), used only with `EMULATOR=true`:
 * - `emulator_scenarios`: the scenario a Sandbox connection was last authorised with;
 * - `emulator_scenario_marks`: what the scenario has done since (the sync it deauthorised, the data types it
 *   rate-limited, when a slow sync may read), one row per mark, so that two workers never both take the same one;
 * - `emulator_fired_work`: the fault rule that fired on a sync, write or delivery, so that a run taking over work
 *   handed back meets the same fault instead of spending another firing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('emulator_scenarios')
    .addColumn('connection_id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('scenario', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('emulator_scenarios_company').on('emulator_scenarios').columns(['client_id', 'company_id']).execute();

  await db.schema
    .createTable('emulator_scenario_marks')
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('mark', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('value', 'text')
    .addPrimaryKeyConstraint('emulator_scenario_marks_pk', ['connection_id', 'mark'])
    .execute();
  await db.schema
    .createTable('emulator_fired_work')
    .addColumn('work_id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('fault_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text')
    .execute();
  await db.schema.createIndex('emulator_fired_work_fault').on('emulator_fired_work').columns(['client_id', 'fault_id']).execute();
  await db.schema
    .createIndex('emulator_scenario_marks_company')
    .on('emulator_scenario_marks')
    .columns(['client_id', 'company_id'])
    .execute();
}
