/**
 * Per-account politeness towards a platform: at most `maxConcurrent` requests in flight to one platform account,
 * and at most `requests` started in any `windowMs` (a sliding window). Requests over either limit wait their turn
 * in order. Kept per process: several worker processes each keep their own share, so an operator running N
 * workers against a platform with a hard account quota sets its budget to 1/N of it.
 */
export interface Politeness {
  maxConcurrent: number;
  requests: number;
  windowMs: number;
}

interface Account {
  running: number;
  started: number[];
  queue: (() => void)[];
  timer?: NodeJS.Timeout;
}

const accounts = new Map<string, Account>();

/** Runs `task` under the account's limits (the account: a platform and whatever identifies one of its accounts). */
export async function politely<T>(account: string, limits: Politeness, task: () => Promise<T>): Promise<T> {
  let state = accounts.get(account);
  if (!state) {
    state = { running: 0, started: [], queue: [] };
    accounts.set(account, state);
  }
  await turn(state, limits);
  try {
    return await task();
  } finally {
    state.running--;
    release(account, state, limits);
  }
}

function turn(state: Account, limits: Politeness): Promise<void> {
  return new Promise((resolve) => {
    state.queue.push(resolve);
    pump(state, limits);
  });
}

function pump(state: Account, limits: Politeness): void {
  for (;;) {
    if (state.queue.length === 0 || state.running >= limits.maxConcurrent) return;
    const now = Date.now();
    while (state.started.length > 0 && state.started[0] <= now - limits.windowMs) state.started.shift();
    if (state.started.length >= limits.requests) {
      // Over budget: look again when the oldest request leaves the window.
      if (!state.timer) {
        state.timer = setTimeout(
          () => {
            state.timer = undefined;
            pump(state, limits);
          },
          state.started[0] + limits.windowMs - now,
        );
        state.timer.unref?.();
      }
      return;
    }
    state.running++;
    state.started.push(now);
    state.queue.shift()!();
  }
}

function release(account: string, state: Account, limits: Politeness): void {
  pump(state, limits);
  // Forget idle accounts whose window has passed (the map stays as small as the accounts in use).
  if (state.running === 0 && state.queue.length === 0 && !state.timer && (state.started.at(-1) ?? 0) <= Date.now() - limits.windowMs)
    accounts.delete(account);
}
