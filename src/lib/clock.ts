import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Business time (issue 28): the instant the service stamps on what it stores and serves (created, modified,
 * completed, requested), and checks expiries, schedules and cursors against. It is read only through a Clock, so
 * one place decides what "now" is, and a company can be given a clock of its own (the emulator's test clocks).
 *
 * Real-time machinery (job leases, heartbeats, job polling and `run_at`, timeouts, retry waits, outbound rate
 * limits, measured durations, log timestamps) stays on the system's time: those reads are named as exceptions to
 * the ESLint rule that forbids `Date.now()` and `new Date()` elsewhere (eslint.config.js).
 */
export interface Clock {
  now(): Date;
}

/** The system's time: the one place business time is read from it. */
export const systemClock: Clock = {
  now: () => new Date(),
};

/**
 * The system's time for machinery that must never follow a company's clock, named at each use: leases and cooldowns
 * between processes, request-limit windows (Redis expires them on its own real clock), security timeouts (OAuth
 * attempts), and deadlines a platform keeps on its own clock (QuickBooks' change window). An OAuth token's expiry is
 * business time: a token is refreshed when the clock says it has expired, or when the platform refuses it.
 */
export const realTime: Clock = {
  now: () => new Date(),
};

/** A clock that stands still at `at` (an emulator test clock between two advances). */
export function frozenClock(at: Date | string): Clock {
  const ms = typeof at === 'string' ? Date.parse(at) : at.getTime();
  return { now: () => new Date(ms) };
}

/** Whose business time: the client and, within it, the company (either may be unknown where time is read). */
export type ClockScope = { clientId?: string; companyId?: string };

/**
 * The business time a piece of work runs in: decided once where the work enters (a request, once its caller and
 * company are known; a job, from what queued it), then read by everything the work calls. Without one, real time.
 */
export interface BusinessTime {
  clock: Clock;
  /** The emulator test clock governing the work, when one does. */
  clockId?: string;
  /** The company the work is for, when it is a company's: work it leaves due later follows the company's clock. */
  companyId?: string;
}

const current = new AsyncLocalStorage<BusinessTime>();

/** Runs `work` (and everything it starts) in this business time. */
export function runInBusinessTime<T>(time: BusinessTime, work: () => T): T {
  return current.run(time, work);
}

/**
 * Runs `work` outside any business time (real time): machinery that outlives the work that started it, such as the job
 * engine's polling timers, must not carry that work's clock into the jobs it runs next.
 */
export function runInRealTime<T>(work: () => T): T {
  return current.exit(work);
}

/**
 * Runs `work` in the current business time as work for `companyId`: what it leaves due later belongs to the company and
 * follows it to another clock (the emulator's timers). In real time, it simply runs.
 */
export function asCompanyWork<T>(companyId: string, work: () => T): T {
  const time = current.getStore();
  return time ? current.run({ ...time, companyId }, work) : work();
}

/** The business time of the work running now, if one was set where it entered. */
export function currentBusinessTime(): BusinessTime | undefined {
  return current.getStore();
}

/**
 * The clock of a scope: the business time the current work entered with (a request on a company's path runs in
 * that company's clock, a job in the clock of what queued it), else the system's time. The scope says whose time
 * the caller means; the entry point has already chosen the clock that governs it.
 */
export function clockFor(_scope: ClockScope): Clock {
  return current.getStore()?.clock ?? systemClock;
}
