import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { JobHandedBack, type JobEngine, type JobHandler, type JobQueue, type JobSpec } from '../jobs/job-queue.js';
import { currentBusinessTime, frozenClock, runInBusinessTime, runInRealTime, systemClock, type BusinessTime } from '../lib/clock.js';
import {
  clockById,
  companyClock,
  dropTicket,
  moveTicket,
  insertTicket,
  insertTimer,
  ownedTimersOf,
  takeTimer,
  type TimerRow,
  type ClockRow,
} from './clocks.store.js';

/** The payload fields naming the clock a job was queued on, the company it is for, and its ticket. */
const CLOCK_FIELD = 'emulatorClockId';
const COMPANY_FIELD = 'emulatorCompanyId';
const TICKET_FIELD = 'emulatorTicket';

/** Wakes whoever waits for the jobs of a clock to finish (the advance), in this process. */
export interface TicketSignal {
  settled(): void;
  /** Resolves at the next `settled` in this process, or after `ms`. */
  next(ms: number): Promise<void>;
}

export function ticketSignal(): TicketSignal {
  const waiting = new Set<() => void>();
  return {
    settled() {
      for (const wake of [...waiting]) wake();
    },
    next(ms) {
      return new Promise((resolve) => {
        // Whichever comes first ends the wait and forgets it: a wait that timed out (its work ran in another process)
        // must not stay in the set until this process next finishes a job.
        const wake = () => {
          clearTimeout(timer);
          waiting.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        waiting.add(wake);
      });
    },
  };
}

let timerSequence = 0;

/** Timer ids sort in the order they were made (the advance releases timers due at one time in that order). */
function timerId(): string {
  // eslint-disable-next-line no-restricted-syntax -- real time: orders ids only
  return `${Date.now().toString().padStart(15, '0')}-${String(++timerSequence).padStart(9, '0')}-${randomUUID()}`;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The job engine as the emulator runs it (`EMULATOR=true`). A job queued in the business time of a test clock (by a
 * request or job of a company on it) carries the clock's id and runs in the clock's time wherever it runs. Work due
 * at a later business time (`dueAt`) waits as a timer of the clock until an advance reaches it; work due now gets a
 * ticket, dropped when it ends, so an advance knows when everything due at one time has run. Real-time delays
 * (`runAfter`) stay with the engine.
 */
export function clockedJobEngine(
  db: Kysely<Database>,
  engine: JobEngine,
  signal: TicketSignal,
  /** Kinds of the emulator's own machinery (the advance): queued and run in real time whatever clock queued them. */
  unclocked: ReadonlySet<string>,
): JobEngine {
  async function settle(payload: Record<string, unknown>): Promise<void> {
    const ticket = payload[TICKET_FIELD];
    if (typeof ticket !== 'string') return;
    await dropTicket(db, ticket);
    signal.settled();
  }

  /**
   * The business time a job queued on `clockId` runs in: a company's work runs on the clock that governs the company
   * now (the one it was queued on, unless the company has moved since; real time once it is on none); other work on
   * the clock it was queued on, or in real time once that clock is gone.
   */
  async function timeOf(clockId: string, companyId: string | undefined): Promise<BusinessTime> {
    const clock = companyId !== undefined ? await companyClock(db, companyId) : await clockById(db, clockId);
    return clock ? { clock: frozenClock(clock.frozen_time), clockId: clock.id, companyId } : { clock: systemClock };
  }

  /**
   * A job whose company moved after it was queued runs on the company's clock of now: its ticket moves there, so that
   * clock's advance waits for it and the old one's does not (off clocks, no advance waits for it at all).
   */
  async function followCompany(payload: Record<string, unknown>, queuedOn: string, time: BusinessTime): Promise<void> {
    const ticket = payload[TICKET_FIELD];
    if (typeof ticket !== 'string' || time.clockId === queuedOn) return;
    if (time.clockId === undefined) await dropTicket(db, ticket);
    else await moveTicket(db, ticket, time.clockId);
    signal.settled();
  }

  function onClock(handler: JobHandler): JobHandler {
    const run = async (payload: unknown, work: () => Promise<void>): Promise<void> => {
      const clockId = isObject(payload) ? payload[CLOCK_FIELD] : undefined;
      // A job queued in real time runs in real time, whatever business time the engine's loop was woken in.
      if (typeof clockId !== 'string' || !isObject(payload)) return runInRealTime(work);
      const companyId = typeof payload[COMPANY_FIELD] === 'string' ? payload[COMPANY_FIELD] : undefined;
      try {
        const time = await timeOf(clockId, companyId);
        await followCompany(payload, clockId, time);
        await runInBusinessTime(time, work);
      } catch (err) {
        // Handed back, the job runs again and keeps its ticket; a failure has ended it.
        if (!(err instanceof JobHandedBack)) await settle(payload);
        throw err;
      }
      await settle(payload);
    };
    return {
      run: (payload, context) => run(payload, () => handler.run(payload, context)),
      // Given up, the job has ended all the same: its ticket goes (an advance waiting on it would wait for ever).
      onGiveUp: (payload: unknown) => run(payload, async () => handler.onGiveUp?.(payload)),
    };
  }

  return {
    ...engine,
    async enqueue(executor, job: JobSpec) {
      const queuedIn = currentBusinessTime();
      if (!queuedIn?.clockId || !isObject(job.payload) || unclocked.has(job.kind)) return engine.enqueue(executor, job);
      let { clock: businessClock, clockId } = queuedIn;
      const { companyId } = queuedIn;
      if (companyId !== undefined) {
        // A company's work goes to the company's clock of now: work started before the company moved queues on the
        // clock it moved to, or in real time once it left clocks.
        const clock = await companyClock(executor, companyId);
        if (!clock) return engine.enqueue(executor, { ...job, payload: unclockedPayload(job.payload) });
        if (clock.id !== clockId) [businessClock, clockId] = [frozenClock(clock.frozen_time), clock.id];
      }
      const payload: Record<string, unknown> = { ...unclockedPayload(job.payload), [CLOCK_FIELD]: clockId };
      if (companyId !== undefined) payload[COMPANY_FIELD] = companyId;
      if (job.dueAt && job.dueAt.getTime() > businessClock.now().getTime()) {
        await insertTimer(executor, {
          id: timerId(),
          clock_id: clockId,
          due_at: job.dueAt.toISOString(),
          kind: job.kind,
          payload: JSON.stringify(payload),
          owner: companyId ?? null,
        });
        return;
      }
      // eslint-disable-next-line no-restricted-syntax -- real time: a real-time delay is the engine's, and no advance waits on it
      if (job.runAfter && job.runAfter.getTime() > Date.now())
        return engine.enqueue(executor, { kind: job.kind, payload, runAfter: job.runAfter });
      const ticket = randomUUID();
      await insertTicket(executor, ticket, clockId);
      await engine.enqueue(executor, { kind: job.kind, payload: { ...payload, [TICKET_FIELD]: ticket } });
    },
    start(handlers) {
      return engine.start(Object.fromEntries(Object.entries(handlers).map(([kind, handler]) => [kind, onClock(handler)])));
    },
    // The engine's loop runs the next jobs from the wake's timer: woken in real time, it carries no caller's clock.
    wake: () => runInRealTime(() => engine.wake()),
    stop: () => engine.stop(),
    queueDepth: () => engine.queueDepth(),
  };
}

/** A job's payload without what the emulator added to it (its clock, company and ticket). */
function unclockedPayload(payload: Record<string, unknown>): Record<string, unknown> {
  const { [CLOCK_FIELD]: _clock, [COMPANY_FIELD]: _company, [TICKET_FIELD]: _ticket, ...rest } = payload;
  return rest;
}

/** The company a timer's work is for; undefined for work that is no company's (it stays on its clock). */
export function ownerCompany(timer: TimerRow): string | undefined {
  return timer.owner ?? undefined;
}

/** A timer as the job it stands for, due at the same instant: queued again, it waits or runs in whatever time queues it. */
export function timerJob(timer: TimerRow): JobSpec {
  return {
    kind: timer.kind,
    payload: unclockedPayload(JSON.parse(timer.payload) as Record<string, unknown>),
    dueAt: new Date(timer.due_at),
  };
}

/**
 * Moves the client's timers whose company is now governed by another clock, or by none, in the caller's transaction
 * (the one that changed who is on which clock). A due time is an instant: on the new clock the timer waits until that
 * clock reaches it, or runs at once when it already has; off clocks, the job engine runs it when real time reaches it.
 */
export async function moveTimers(trx: Kysely<Database>, jobs: JobQueue, clientId: string): Promise<number> {
  let moved = 0;
  // One look per company, however many timers it has.
  const clocks = new Map<string, ClockRow | undefined>();
  for (const timer of await ownedTimersOf(trx, clientId)) {
    const companyId = ownerCompany(timer);
    if (companyId === undefined) continue;
    if (!clocks.has(companyId)) clocks.set(companyId, await companyClock(trx, companyId));
    const clock = clocks.get(companyId);
    if (clock?.id === timer.clock_id) continue;
    const taken = await takeTimer(trx, timer.id);
    if (!taken) continue;
    const job = timerJob(taken);
    const queue = () => jobs.enqueue(trx, job);
    await (clock
      ? runInBusinessTime({ clock: frozenClock(clock.frozen_time), clockId: clock.id, companyId }, queue)
      : runInRealTime(queue));
    moved++;
  }
  return moved;
}
