import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { ApiError, notFound, validationError } from '../http/api-error.js';
import { realTime, runInRealTime } from '../lib/clock.js';
import { addIsoDuration } from './iso-duration.js';
import { moveTimers, timerJob } from './clocked-jobs.js';
import { companyForLink } from '../companies/companies.store.js';
import { lockClient } from '../clients/clients.store.js';
import { CLOCK_ADVANCE_JOB } from './clock-advance.js';
import {
  CLIENT_MEMBER,
  clockOf,
  clocksOf,
  deleteClock,
  insertClock,
  joinClock,
  leaveClock,
  membersOf,
  startAdvance,
  type ClockRow,
} from './clocks.store.js';

/** A test clock as the controls show it. */
export interface TestClock {
  id: string;
  frozenTime: string;
  status: 'ready' | 'advancing';
}

export function testClock(row: ClockRow): TestClock {
  return { id: row.id, frozenTime: row.frozen_time, status: row.status === 'advancing' ? 'advancing' : 'ready' };
}

/** The earliest and latest instants a clock may show (years 0001 to 9999, as ISO 8601 date-times write them). */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');
/** The longest one advance may move a clock. */
const MAX_ADVANCE = 'P10Y';

/** An ISO 8601 date-time with its offset, or a 400 naming the field. */
function instant(field: string, text: string): Date {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(ms) || ms < EARLIEST || ms > LATEST)
    throw validationError(`ValidationException: ${field} must be an ISO 8601 date-time with an offset, e.g. 2026-01-01T00:00:00Z.`, [
      { itemId: field, message: `${field} must be an ISO 8601 date-time with an offset (Z or ±hh:mm)`, validatorName: 'TestClock' },
    ]);
  return new Date(ms);
}

const clockNotFound = (clockId: string) => notFound(`No test clock was found with ID ${clockId}`);

/** Puts a member on a clock that still exists once the client's row is locked (404 when it was deleted meanwhile). */
export async function joinExisting(trx: Kysely<Database>, clientId: string, member: string, clockId: string): Promise<true> {
  if (!(await clockOf(trx, clientId, clockId))) throw clockNotFound(clockId);
  await joinClock(trx, clientId, member, clockId);
  return true;
}

/** The emulator's test clocks of one client (docs/emulator.md). */
export function createClocksService(deps: {
  db: Kysely<Database>;
  /** The engine itself: the advance runs on real time, whatever clock the request runs in. */
  jobs: JobQueue & { wake(): void };
  /** The engine as the emulator runs it (clocked-jobs.ts): what moves a member's timers to its new clock. */
  clockedJobs: JobQueue;
}) {
  const { db } = deps;

  /** Changes who is on which clock, and moves the timers of whoever moved with them, in one transaction. */
  async function regroup(clientId: string, change: (trx: Kysely<Database>) => Promise<boolean>): Promise<boolean> {
    const { changed, moved } = await db.transaction().execute(async (trx) => {
      // The client's row first, as a clock's deletion takes it: a member never joins a clock being deleted.
      await lockClient(trx, clientId, false);
      if (!(await change(trx))) return { changed: false, moved: 0 };
      return { changed: true, moved: await moveTimers(trx, deps.clockedJobs, clientId) };
    });
    // The engine's loop is woken in real time: it must not lend this request's clock to the jobs it runs next.
    if (moved > 0) runInRealTime(() => deps.jobs.wake());
    return changed;
  }

  async function owned(clientId: string, clockId: string): Promise<ClockRow> {
    const row = await clockOf(db, clientId, clockId);
    if (!row) throw clockNotFound(clockId);
    return row;
  }

  /** The company if it is the client's: 404 when it does not exist, 403 when another client's (as on its own paths). */
  async function company(clientId: string, companyId: string): Promise<void> {
    const row = await companyForLink(db, companyId);
    if (!row) throw notFound(`No company was found with ID ${companyId}`);
    if (row.client_id !== clientId) throw new ApiError(403, `Forbidden: the API key is not associated with company ${companyId}`);
  }

  return {
    owned,

    async create(clientId: string, frozenTime: string): Promise<TestClock> {
      const row: ClockRow = {
        id: randomUUID(),
        client_id: clientId,
        frozen_time: instant('frozenTime', frozenTime).toISOString(),
        status: 'ready',
        advancing_to: null,
        created: realTime.now().toISOString(),
      };
      await insertClock(db, row);
      return testClock(row);
    },

    async list(clientId: string): Promise<TestClock[]> {
      return (await clocksOf(db, clientId)).map(testClock);
    },

    async delete(clientId: string, clockId: string): Promise<void> {
      await owned(clientId, clockId);
      const handedBack = await db.transaction().execute(async (trx) => {
        // Counted in the transaction that deletes, after the client's row is locked (as every join locks it): a
        // company joining meanwhile either is counted here or finds the clock gone.
        await lockClient(trx, clientId, false);
        const members = await membersOf(trx, clientId, clockId);
        if (members > 0)
          throw new ApiError(
            409,
            `The test clock ${clockId} still has ${members} member(s) (companies or the client): move them off it first.`,
          );
        const timers = await deleteClock(trx, clientId, clockId);
        // Work still due on it (timers made before they had owners; an owned one left with its owner) goes on in real
        // time, when real time reaches it.
        for (const timer of timers) await deps.jobs.enqueue(trx, timerJob(timer));
        return timers.length;
      });
      if (handedBack > 0) deps.jobs.wake();
    },

    /** Starts moving the clock to `to`, or on `by` (an ISO 8601 duration); the advance job does the rest. */
    async advance(clientId: string, clockId: string, body: { to?: string; by?: string }): Promise<TestClock> {
      const row = await owned(clientId, clockId);
      if ((body.to === undefined) === (body.by === undefined))
        throw validationError('ValidationException: Give either to or by.', [
          {
            itemId: 'to',
            message: 'give either to (an ISO 8601 date-time) or by (an ISO 8601 duration)',
            validatorName: 'TestClockAdvance',
          },
        ]);
      const from = new Date(row.frozen_time);
      let to: Date;
      if (body.to !== undefined) to = instant('to', body.to);
      else {
        const moved = addIsoDuration(from, body.by as string);
        if (!moved || moved.getTime() > LATEST)
          throw validationError('ValidationException: by must be an ISO 8601 duration, e.g. P30D or PT5M.', [
            { itemId: 'by', message: 'by must be an ISO 8601 duration such as P30D, PT1H or P1M', validatorName: 'TestClockAdvance' },
          ]);
        to = moved;
      }
      const field = body.to !== undefined ? 'to' : 'by';
      if (to.getTime() < from.getTime())
        throw validationError('ValidationException: A test clock only moves forward.', [
          { itemId: field, message: `the clock stands at ${row.frozen_time}; it cannot go back`, validatorName: 'TestClockAdvance' },
        ]);
      // An advance cannot be stopped once it runs: ten years of hourly syncs (87,600 moments) is already half an hour.
      if (to.getTime() > (addIsoDuration(from, MAX_ADVANCE) ?? new Date(LATEST)).getTime())
        throw validationError(`ValidationException: A test clock moves at most ${MAX_ADVANCE} (ten years) in one advance.`, [
          {
            itemId: field,
            message: `an advance moves the clock at most ${MAX_ADVANCE} from ${row.frozen_time}`,
            validatorName: 'TestClockAdvance',
          },
        ]);
      // The clock starts advancing and its advance job is queued together: never one without the other.
      const started = await db.transaction().execute(async (trx) => {
        if (!(await startAdvance(trx, clientId, clockId, row.frozen_time, to.toISOString()))) return false;
        await deps.jobs.enqueue(trx, { kind: CLOCK_ADVANCE_JOB, payload: { clockId } });
        return true;
      });
      if (!started) throw new ApiError(409, `The test clock ${clockId} is advancing already; wait until its status is ready.`);
      deps.jobs.wake();
      return { id: clockId, frozenTime: row.frozen_time, status: 'advancing' };
    },

    async joinCompany(clientId: string, companyId: string, clockId: string): Promise<TestClock> {
      await company(clientId, companyId);
      const clock = await owned(clientId, clockId);
      await regroup(clientId, (trx) => joinExisting(trx, clientId, companyId, clockId));
      return testClock(clock);
    },

    async leaveCompany(clientId: string, companyId: string): Promise<void> {
      await company(clientId, companyId);
      if (!(await regroup(clientId, (trx) => leaveClock(trx, clientId, companyId))))
        throw notFound(`Company ${companyId} is not on a test clock`);
    },

    async joinClient(clientId: string, clockId: string): Promise<TestClock> {
      const clock = await owned(clientId, clockId);
      await regroup(clientId, (trx) => joinExisting(trx, clientId, CLIENT_MEMBER, clockId));
      return testClock(clock);
    },

    async leaveClient(clientId: string): Promise<void> {
      if (!(await regroup(clientId, (trx) => leaveClock(trx, clientId, CLIENT_MEMBER))))
        throw notFound('The client is not on a test clock');
    },
  };
}

export type ClocksService = ReturnType<typeof createClocksService>;
