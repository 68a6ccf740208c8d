import { sql, type Kysely } from 'kysely';

/**
 * `emulator_timers.owner`: the company whose work a timer is; it follows the company to another clock or off clocks
 * (src/emulator/clocked-jobs.ts). Null for work that is no company's, and for timers made before, which stay on
 * their clock.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE emulator_timers ADD COLUMN owner text`.execute(db);
}
