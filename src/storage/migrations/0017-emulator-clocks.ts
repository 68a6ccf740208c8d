import { sql, type Kysely } from 'kysely';

/**
 * The emulator's test clocks (docs/emulator.md), used only when the server runs with `EMULATOR=true`:
 * - `emulator_clocks`: a client's clocks, each frozen at `frozen_time` until advanced; while `status` is
 *   'advancing' a driver job moves it towards `advancing_to` (business time, ISO-8601 UTC like every timestamp);
 * - `emulator_clock_members`: which company (or, with `company_id` '', the client itself) runs on which clock;
 * - `emulator_timers`: work due at a business time of a clock (a push's time-out, a webhook retry…), released to
 *   the job engine when an advance reaches it;
 * - `emulator_tickets`: one per job queued on a clock and not yet finished, so an advance knows when the work of
 *   a moment has all run before it moves the clock on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE emulator_clocks (
    id text PRIMARY KEY,
    client_id text NOT NULL,
    frozen_time text NOT NULL,
    status text NOT NULL,
    advancing_to text,
    created text NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX emulator_clocks_client ON emulator_clocks (client_id, created, id)`.execute(db);
  await sql`CREATE TABLE emulator_clock_members (
    client_id text NOT NULL,
    company_id text NOT NULL,
    clock_id text NOT NULL,
    PRIMARY KEY (client_id, company_id)
  )`.execute(db);
  await sql`CREATE INDEX emulator_clock_members_clock ON emulator_clock_members (clock_id)`.execute(db);
  await sql`CREATE TABLE emulator_timers (
    id text PRIMARY KEY,
    clock_id text NOT NULL,
    due_at text NOT NULL,
    kind text NOT NULL,
    payload text NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX emulator_timers_due ON emulator_timers (clock_id, due_at)`.execute(db);
  await sql`CREATE TABLE emulator_tickets (
    id text PRIMARY KEY,
    clock_id text NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX emulator_tickets_clock ON emulator_tickets (clock_id)`.execute(db);
}
