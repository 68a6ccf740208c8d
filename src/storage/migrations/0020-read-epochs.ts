import { sql, type Kysely } from 'kysely';

/**
 * `data_sets.read_epoch`: the epoch (docs/sandbox.md, "Epochs") the data set's last completed sync read. A sync in
 * real time reads one past it at least, so a data set that moved by days on an emulator test clock goes on from
 * there when its company leaves the clock (src/syncs/syncs.store.ts, `epochOf`). Null before the first sync that
 * completed after this migration.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE data_sets ADD COLUMN read_epoch integer`.execute(db);
}
