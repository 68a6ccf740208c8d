import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobContext, JobHandler, JobQueue } from '../jobs/job-queue.js';
import { frozenClock, runInBusinessTime } from '../lib/clock.js';
import { queueSchedule } from '../syncs/sync-scheduler.js';
import { lockClient } from '../clients/clients.store.js';
import { clockById, companiesOnClock, finishAdvance, nextTimerDue, setClockTime, takeDueTimers, ticketsOf } from './clocks.store.js';
import { ownerCompany, timerJob, type TicketSignal } from './clocked-jobs.js';

/** The job that advances a clock: queued by `POST /emulator/clocks/{clockId}/advance`, on real time. */
export const CLOCK_ADVANCE_JOB = 'emulator-clock-advance';

/**
 * How long one run of the advance waits for a moment's work before it hands its job slot back and runs again (a worker
 * with one slot needs it for that work; with more, most moments finish within the wait).
 */
const WAIT_IN_RUN_MS = 200;
/** How often a wait looks at the store for work finished in other processes (this process's wakes it at once). */
const POLL_MS = 10;

/**
 * Moves a clock to the time asked, one due moment at a time: at each moment (the clock's current time first), the
 * clock stands still while everything due by then is queued in its business time (its companies' scheduled syncs,
 * its timers: write time-outs, webhook retries, quota resets) and has run, with whatever that work queued in turn;
 * then the clock moves to the next moment anything falls due, until none is due before the end. Nothing waits on
 * real timers: each moment's work runs as fast as the workers take it, in any worker process.
 *
 * The run is resumable: it keeps nothing but the clock's row, so a run that hands its slot back (work still running
 * after a second, when the worker may need the slot for it) or is interrupted carries on from the clock's time.
 */
export function createClockAdvanceJob(deps: { db: Kysely<Database>; jobs: JobQueue & { wake(): void }; signal: TicketSignal }): JobHandler {
  const { db, jobs } = deps;

  /** Waits until no job of the clock is queued or running; false when that takes longer than `ms`. */
  async function settled(clockId: string, ms: number, context: JobContext): Promise<boolean> {
    // eslint-disable-next-line no-restricted-syntax -- real time: how long this run has waited
    const deadline = Date.now() + ms;
    for (;;) {
      // Listening before looking: a job of this process that ends while the store is read still wakes the wait.
      const woken = deps.signal.next(POLL_MS);
      if ((await ticketsOf(db, clockId)) === 0) return true;
      // eslint-disable-next-line no-restricted-syntax -- real time: as above
      if (Date.now() >= deadline) return false;
      await woken;
      await beat(context);
    }
  }

  /** Heartbeats, at most twice per `heartbeatEveryMs` of this run (each run keeps its own spacing). */
  const beats = new WeakMap<JobContext, number>();
  async function beat(context: JobContext): Promise<void> {
    // eslint-disable-next-line no-restricted-syntax -- real time: heartbeat spacing
    const at = Date.now();
    if (at - (beats.get(context) ?? 0) < context.heartbeatEveryMs / 2) return;
    beats.set(context, at);
    await context.heartbeat();
  }

  /**
   * Queues what is due by `at` on the clock, in its business time: how many jobs it queued, and when the next scheduled
   * sync of its companies falls due after `at`.
   */
  async function release(clientId: string, clockId: string, companies: ReadonlySet<string>, at: string) {
    const clock = frozenClock(at);
    return runInBusinessTime({ clock, clockId }, async () => {
      const timers = await db.transaction().execute(async (trx) => {
        // The client's row first, as a company moving clocks takes it before it moves its timers: one lock order.
        await lockClient(trx, clientId, false);
        const due = await takeDueTimers(trx, clockId, at);
        // Each in its owner's name, so what it queues in turn (a retry's next timer) follows that owner too.
        for (const timer of due)
          await runInBusinessTime({ clock, clockId, companyId: ownerCompany(timer) }, () => jobs.enqueue(trx, timerJob(timer)));
        return due.length;
      });
      const syncs = await queueSchedule(db, jobs, new Date(at), { only: companies });
      return { queued: timers + syncs.queued, nextSync: syncs.nextDue };
    });
  }

  /** Queues this advance again (its slot handed back, or its job given up): it carries on from the clock's row. */
  async function again(clockId: string): Promise<void> {
    await db.transaction().execute((trx) => jobs.enqueue(trx, { kind: CLOCK_ADVANCE_JOB, payload: { clockId } }));
    jobs.wake();
  }

  return {
    async run(payload: { clockId?: unknown }, context) {
      if (typeof payload?.clockId !== 'string') return;
      const clockId = payload.clockId;
      for (;;) {
        await beat(context);
        if (!(await settled(clockId, WAIT_IN_RUN_MS, context))) {
          // The work of this moment still runs: give the slot back (a worker with one slot needs it) and look again.
          return again(clockId);
        }
        const clock = await clockById(db, clockId);
        if (!clock || clock.status !== 'advancing' || !clock.advancing_to) return;
        const now = clock.frozen_time;
        const companies = await companiesOnClock(db, clock.client_id, clockId);
        const released = await release(clock.client_id, clockId, companies, now);
        if (released.queued > 0) {
          jobs.wake();
          continue;
        }
        // Nothing more is due by now (a type that could not be queued is tried again at the next moment): move on.
        const candidates = [await nextTimerDue(db, clockId), released.nextSync?.toISOString()];
        const next = candidates.filter((t): t is string => t !== undefined).sort()[0];
        if (next === undefined || Date.parse(next) > Date.parse(clock.advancing_to)) {
          await finishAdvance(db, clockId, clock.advancing_to);
          return;
        }
        // Both are after now (work due by then was just queued), so the clock only moves on.
        await setClockTime(db, clockId, next);
      }
    },
    // Interrupted too often (its processes stopped): the advance is resumable, so it goes on in a new job rather than
    // leaving the clock `advancing` for good.
    async onGiveUp(payload: { clockId?: unknown }) {
      if (typeof payload?.clockId === 'string') await again(payload.clockId);
    },
  };
}
