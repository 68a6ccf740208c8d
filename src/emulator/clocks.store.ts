import type { Kysely } from 'kysely';
import type { Database, EmulatorClocksTable } from '../storage/schema.js';
import type { DeletionStep } from '../storage/deletion.js';

/**
 * The emulator's test clocks, who is on them, the work due at their times, and the jobs of theirs still running
 * (migration 0017). A client's rows are reached with its id; the advance job and the job wrappers reach a clock by
 * the id their payload carries (a clock of the client that queued them).
 */

export type ClockRow = EmulatorClocksTable;

/** Who runs on a clock: the company, or (`CLIENT_MEMBER`) the client itself. */
export const CLIENT_MEMBER = '';

export async function insertClock(db: Kysely<Database>, row: ClockRow): Promise<void> {
  await db.insertInto('emulator_clocks').values(row).execute();
}

export async function clockOf(db: Kysely<Database>, clientId: string, clockId: string): Promise<ClockRow | undefined> {
  return db.selectFrom('emulator_clocks').selectAll().where('client_id', '=', clientId).where('id', '=', clockId).executeTakeFirst();
}

/** A clock by id alone: for jobs, whose payload names a clock of the client that queued them. */
export async function clockById(db: Kysely<Database>, clockId: string): Promise<ClockRow | undefined> {
  return db.selectFrom('emulator_clocks').selectAll().where('id', '=', clockId).executeTakeFirst();
}

export async function clocksOf(db: Kysely<Database>, clientId: string): Promise<ClockRow[]> {
  return db.selectFrom('emulator_clocks').selectAll().where('client_id', '=', clientId).orderBy('created').orderBy('id').execute();
}

/** How many companies (and the client) are on a clock. */
export async function membersOf(db: Kysely<Database>, clientId: string, clockId: string): Promise<number> {
  const row = await db
    .selectFrom('emulator_clock_members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('client_id', '=', clientId)
    .where('clock_id', '=', clockId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Deletes a clock nobody is on (in the caller's transaction), handing back the work still due on it. */
export async function deleteClock(trx: Kysely<Database>, clientId: string, clockId: string): Promise<TimerRow[]> {
  const timers = await trx.selectFrom('emulator_timers').selectAll().where('clock_id', '=', clockId).execute();
  await trx.deleteFrom('emulator_timers').where('clock_id', '=', clockId).execute();
  await trx.deleteFrom('emulator_tickets').where('clock_id', '=', clockId).execute();
  await trx.deleteFrom('emulator_clocks').where('client_id', '=', clientId).where('id', '=', clockId).execute();
  return timers;
}

/** Puts a company (or the client) on a clock, or moves it to another. */
export async function joinClock(executor: Kysely<Database>, clientId: string, member: string, clockId: string): Promise<void> {
  await executor
    .insertInto('emulator_clock_members')
    .values({ client_id: clientId, company_id: member, clock_id: clockId })
    .onConflict((oc) => oc.columns(['client_id', 'company_id']).doUpdateSet({ clock_id: clockId }))
    .execute();
}

/** Takes a company (or the client) off its clock; whether it was on one. */
export async function leaveClock(executor: Kysely<Database>, clientId: string, member: string): Promise<boolean> {
  const result = await executor
    .deleteFrom('emulator_clock_members')
    .where('client_id', '=', clientId)
    .where('company_id', '=', member)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A deleted company leaves its clock with it. */
export const deleteClockMembershipStep: DeletionStep = async (trx, clientId, scope) => {
  if (scope.connectionId === undefined) await leaveClock(trx, clientId, scope.companyId);
};

/**
 * The clock governing a request or job of the client: the company's own when it has one, else the client's; undefined
 * for real time.
 */
export async function governingClock(db: Kysely<Database>, clientId: string, companyId?: string): Promise<ClockRow | undefined> {
  const members = companyId === undefined ? [CLIENT_MEMBER] : [CLIENT_MEMBER, companyId];
  const rows = await db
    .selectFrom('emulator_clock_members as m')
    .innerJoin('emulator_clocks as c', (join) => join.onRef('c.id', '=', 'm.clock_id').onRef('c.client_id', '=', 'm.client_id'))
    .select(['m.company_id as member', 'c.id', 'c.client_id', 'c.frozen_time', 'c.status', 'c.advancing_to', 'c.created'])
    .where('m.client_id', '=', clientId)
    .where('m.company_id', 'in', members)
    .execute();
  const own = rows.find((r) => r.member !== CLIENT_MEMBER) ?? rows.find((r) => r.member === CLIENT_MEMBER);
  if (!own) return undefined;
  const { member: _member, ...clock } = own;
  return clock;
}

/**
 * Companies with the clock governing each (their own, else their client's), as a query: a left join on the company's
 * own membership and on its client's.
 */
function companiesWithClock(db: Kysely<Database>) {
  return db
    .selectFrom('companies as c')
    .leftJoin('emulator_clock_members as own', (join) =>
      join.onRef('own.client_id', '=', 'c.client_id').onRef('own.company_id', '=', 'c.id'),
    )
    .leftJoin('emulator_clock_members as whole', (join) =>
      join.onRef('whole.client_id', '=', 'c.client_id').on('whole.company_id', '=', CLIENT_MEMBER),
    )
    .select('c.id');
}

/** The clock governing a company now (its own, else its client's), found from the company alone; undefined for none. */
export async function companyClock(executor: Kysely<Database>, companyId: string): Promise<ClockRow | undefined> {
  return companiesWithClock(executor)
    .innerJoin('emulator_clocks as k', (join) =>
      join.onRef('k.client_id', '=', 'c.client_id').on((eb) => eb('k.id', '=', eb.fn.coalesce('own.clock_id', 'whole.clock_id'))),
    )
    .select(['k.id as clock_id', 'k.client_id as clock_client', 'k.frozen_time', 'k.status', 'k.advancing_to', 'k.created'])
    .where('c.id', '=', companyId)
    .executeTakeFirst()
    .then(
      (row) =>
        row && {
          id: row.clock_id,
          client_id: row.clock_client,
          frozen_time: row.frozen_time,
          status: row.status,
          advancing_to: row.advancing_to,
          created: row.created,
        },
    );
}

/** The companies a clock governs: its own members, and the companies of a client on it that have no clock of their own. */
export async function companiesOnClock(db: Kysely<Database>, clientId: string, clockId: string): Promise<Set<string>> {
  const rows = await companiesWithClock(db)
    .where('c.client_id', '=', clientId)
    .where((eb) => eb(eb.fn.coalesce('own.clock_id', 'whole.clock_id'), '=', clockId))
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Every company on some clock (its own or its client's): the real-time schedule leaves them to their clocks. */
export async function companiesOnAnyClock(db: Kysely<Database>): Promise<Set<string>> {
  const rows = await companiesWithClock(db)
    .where((eb) => eb.or([eb('own.clock_id', 'is not', null), eb('whole.clock_id', 'is not', null)]))
    .execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * Starts an advance of a ready clock still at `from` (where the request measured `by` from); false when it is advancing,
 * has moved since it was read (an advance ended meanwhile), or is gone.
 */
export async function startAdvance(db: Kysely<Database>, clientId: string, clockId: string, from: string, to: string): Promise<boolean> {
  const result = await db
    .updateTable('emulator_clocks')
    .set({ status: 'advancing', advancing_to: to })
    .where('client_id', '=', clientId)
    .where('id', '=', clockId)
    .where('status', '=', 'ready')
    .where('frozen_time', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Moves an advancing clock to `at` (a step of its advance). */
export async function setClockTime(db: Kysely<Database>, clockId: string, at: string): Promise<void> {
  await db.updateTable('emulator_clocks').set({ frozen_time: at }).where('id', '=', clockId).execute();
}

/** Ends an advance: the clock stands at `at`, ready. */
export async function finishAdvance(db: Kysely<Database>, clockId: string, at: string): Promise<void> {
  await db.updateTable('emulator_clocks').set({ frozen_time: at, status: 'ready', advancing_to: null }).where('id', '=', clockId).execute();
}

export type TimerRow = { id: string; clock_id: string; due_at: string; kind: string; payload: string; owner: string | null };

export async function insertTimer(executor: Kysely<Database>, row: TimerRow): Promise<void> {
  await executor.insertInto('emulator_timers').values(row).execute();
}

/** The timers of the client's clocks that are a company's work. */
export async function ownedTimersOf(executor: Kysely<Database>, clientId: string): Promise<TimerRow[]> {
  return executor
    .selectFrom('emulator_timers as t')
    .innerJoin('emulator_clocks as c', 'c.id', 't.clock_id')
    .selectAll('t')
    .where('c.client_id', '=', clientId)
    .where('t.owner', 'is not', null)
    .execute();
}

/** Takes one timer (deleted and returned), so it is released or moved once. */
export async function takeTimer(executor: Kysely<Database>, id: string): Promise<TimerRow | undefined> {
  return executor.deleteFrom('emulator_timers').where('id', '=', id).returningAll().executeTakeFirst();
}

/** When the clock's next timer is due; undefined for none. */
export async function nextTimerDue(db: Kysely<Database>, clockId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('emulator_timers')
    .select((eb) => eb.fn.min('due_at').as('due'))
    .where('clock_id', '=', clockId)
    .executeTakeFirst();
  return row?.due == null ? undefined : String(row.due);
}

/**
 * Takes the clock's timers due at or before `at`, in due order: deleted and returned in one statement, so two runs of
 * an advance never both take one.
 */
export async function takeDueTimers(trx: Kysely<Database>, clockId: string, at: string): Promise<TimerRow[]> {
  const rows = await trx.deleteFrom('emulator_timers').where('clock_id', '=', clockId).where('due_at', '<=', at).returningAll().execute();
  return rows.sort((a, b) => (a.due_at === b.due_at ? (a.id < b.id ? -1 : 1) : a.due_at < b.due_at ? -1 : 1));
}

export async function insertTicket(executor: Kysely<Database>, id: string, clockId: string): Promise<void> {
  await executor.insertInto('emulator_tickets').values({ id, clock_id: clockId }).execute();
}

/** Hands a ticket to another clock (its job's company moved there). */
export async function moveTicket(db: Kysely<Database>, id: string, clockId: string): Promise<void> {
  await db.updateTable('emulator_tickets').set({ clock_id: clockId }).where('id', '=', id).execute();
}

export async function dropTicket(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('emulator_tickets').where('id', '=', id).execute();
}

/** Jobs queued on the clock and not yet finished. */
export async function ticketsOf(db: Kysely<Database>, clockId: string): Promise<number> {
  const row = await db
    .selectFrom('emulator_tickets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('clock_id', '=', clockId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Deletes every clock of the client with its members, timers and tickets (the emulator's reset); how many clocks. */
export async function deleteClientClocks(trx: Kysely<Database>, clientId: string): Promise<number> {
  const clocks = await trx.selectFrom('emulator_clocks').select('id').where('client_id', '=', clientId).execute();
  await trx.deleteFrom('emulator_clock_members').where('client_id', '=', clientId).execute();
  for (const { id } of clocks) await deleteClock(trx, clientId, id);
  return clocks.length;
}
