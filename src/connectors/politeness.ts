/**
 * Per-account politeness towards a platform: at most `maxConcurrent` requests in flight to one platform account,
 * and at most `requests` started in any `windowMs` (a sliding window). Requests over either limit wait their turn
 * in order. Kept per process (its writing threads take their turns from it): several worker processes each keep
 * their own share, so an operator running N workers against a platform with a hard account quota sets its budget
 * to 1/N of it, or relies on the platform's own remaining-limit headers where it sends them.
 */
export interface Politeness {
  maxConcurrent: number;
  requests: number;
  windowMs: number;
}

interface Account {
  /** Set when the platform said the account's budget is spent: no request starts before it (ms since the epoch). */
  pausedUntil?: number;
  running: number;
  /**
   * The requests of the window: each counted until `windowMs` after its answer came back (Infinity while in flight).
   * Counting from the answer, not the start, keeps this side of the platform's own count, which starts when the
   * request arrives there, some time after it left here (longer on a loaded machine).
   */
  started: { at: number }[];
  queue: ((slot: { at: number }) => void)[];
  timer?: NodeJS.Timeout;
}

const accounts = new Map<string, Account>();

/**
 * Where a writing thread takes its turns: the thread that started it, so that every thread of a process shares
 * one budget per account (see version-writer-thread.ts). Unset on the main thread, which keeps the budgets.
 */
export interface PolitenessBroker {
  turn(account: string, limits: Politeness): Promise<() => void>;
  pause(account: string, forMs: number): void;
}

let broker: PolitenessBroker | undefined;

export function usePolitenessBroker(next: PolitenessBroker): void {
  broker = next;
}

/** Runs `task` under the account's limits (the account: a platform and whatever identifies one of its accounts). */
export async function politely<T>(account: string, limits: Politeness, task: () => Promise<T>): Promise<T> {
  const done = broker ? await broker.turn(account, limits) : await takeTurn(account, limits);
  try {
    return await task();
  } finally {
    done();
  }
}

/** Waits for the account's next turn under its limits; the function returned ends the turn (call it once). */
export async function takeTurn(account: string, limits: Politeness): Promise<() => void> {
  let state = accounts.get(account);
  if (!state) {
    state = { running: 0, started: [], queue: [] };
    accounts.set(account, state);
  }
  const held = state;
  const slot = await turn(held, limits);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    slot.at = Date.now();
    held.running--;
    release(account, held, limits);
  };
}

function turn(state: Account, limits: Politeness): Promise<{ at: number }> {
  return new Promise((resolve) => {
    state.queue.push(resolve);
    pump(state, limits);
  });
}

function pump(state: Account, limits: Politeness): void {
  for (;;) {
    if (state.queue.length === 0 || state.running >= limits.maxConcurrent) return;
    const now = Date.now();
    if (state.pausedUntil !== undefined && state.pausedUntil > now) {
      if (!state.timer) {
        state.timer = setTimeout(() => {
          state.timer = undefined;
          pump(state, limits);
        }, state.pausedUntil - now);
        state.timer.unref?.();
      }
      return;
    }
    state.started = state.started.filter((slot) => slot.at > now - limits.windowMs);
    if (state.started.length >= limits.requests) {
      // Over budget: look again when the first answered request leaves the window (or when one is answered).
      const oldest = Math.min(...state.started.map((slot) => slot.at));
      if (!state.timer && Number.isFinite(oldest)) {
        state.timer = setTimeout(
          () => {
            state.timer = undefined;
            pump(state, limits);
          },
          oldest + limits.windowMs - now,
        );
        state.timer.unref?.();
      }
      return;
    }
    state.running++;
    const slot = { at: Infinity };
    state.started.push(slot);
    state.queue.shift()!(slot);
  }
}

/**
 * The platform says the account has no requests left (e.g. Xero's `X-MinLimit-Remaining: 0`): none starts for
 * `forMs`, whatever this process counted (other processes, or other apps of the same account, spent the budget).
 */
export function pauseAccount(account: string, forMs: number): void {
  if (broker) return broker.pause(account, forMs);
  let state = accounts.get(account);
  if (!state) {
    state = { running: 0, started: [], queue: [] };
    accounts.set(account, state);
  }
  state.pausedUntil = Math.max(state.pausedUntil ?? 0, Date.now() + forMs);
}

function release(account: string, state: Account, limits: Politeness): void {
  pump(state, limits);
  // Forget idle accounts whose window has passed (the map stays as small as the accounts in use).
  if (
    state.running === 0 &&
    state.queue.length === 0 &&
    !state.timer &&
    (state.pausedUntil ?? 0) <= Date.now() &&
    state.started.every((slot) => slot.at <= Date.now() - limits.windowMs)
  )
    accounts.delete(account);
}
