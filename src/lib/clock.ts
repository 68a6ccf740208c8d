/**
 * Business time (issue 28): the instant the service stamps on what it stores and serves (created, modified,
 * completed, requested), and checks expiries, schedules and cursors against. It is read only through a Clock, so
 * one place decides what "now" is, and a company can later be given a clock of its own.
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
 * attempts), and deadlines a platform keeps on its own clock (token expiry, QuickBooks' change window).
 */
export const realTime: Clock = {
  now: () => new Date(),
};

/** Whose business time: the client and, within it, the company (either may be unknown where time is read). */
export type ClockScope = { clientId?: string; companyId?: string };

/**
 * The clock of a scope. Today every scope runs on the system's time; the emulator's test clocks (a later issue) will
 * give a company its own clock here, so read time through the narrowest scope at hand.
 */
export function clockFor(scope: ClockScope): Clock {
  return systemClock;
}
