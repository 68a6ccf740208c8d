import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { addUsage, pruneUsage, usageSince, type UsageHour } from './usage.store.js';
import { clockFor } from '../lib/clock.js';

/** How long hourly usage is kept: the chart shows two days. */
const KEEP_HOURS = 24 * 14;

export function hourOf(at: Date): string {
  return at.toISOString().slice(0, 13);
}

/**
 * API requests and 429 refusals per client and hour. Counted in memory and added to the store every `flushMs`
 * (one upsert per client and hour, not one write per request), and before a read, so a process's own requests
 * show at once; other processes' show within `flushMs`.
 */
export function createUsageTally(
  db: Kysely<Database>,
  options: { flushMs?: number; now?: () => Date; onError?: (err: unknown) => void } = {},
) {
  const now = options.now ?? (() => clockFor({}).now());
  let pending = new Map<string, { clientId: string; hour: string; requests: number; refusals: number }>();
  let flushing: Promise<void> = Promise.resolve();
  let lastPrune = '';

  async function flush(): Promise<void> {
    // One flush at a time; the next takes what came in meanwhile.
    flushing = flushing.then(async () => {
      const batch = [...pending.values()];
      pending = new Map();
      try {
        await addUsage(db, batch);
        const hour = hourOf(now());
        if (hour !== lastPrune) {
          lastPrune = hour;
          await pruneUsage(db, hourOf(new Date(now().getTime() - KEEP_HOURS * 3_600_000)));
        }
      } catch (err) {
        options.onError?.(err);
      }
    });
    return flushing;
  }

  const timer = setInterval(() => void flush(), options.flushMs ?? 5_000);
  timer.unref();

  return {
    /** Counts one answered API request of the client (`refused`: a 429). */
    count(clientId: string, refused: boolean): void {
      const hour = hourOf(now());
      const key = `${clientId} ${hour}`;
      let entry = pending.get(key);
      if (!entry) pending.set(key, (entry = { clientId, hour, requests: 0, refusals: 0 }));
      entry.requests++;
      if (refused) entry.refusals++;
    },

    /** The client's hourly usage over the last `hours` hours, oldest first, every hour present (zeros included). */
    async recent(clientId: string, hours: number): Promise<UsageHour[]> {
      await flush();
      const end = now().getTime();
      const from = hourOf(new Date(end - (hours - 1) * 3_600_000));
      const stored = new Map((await usageSince(db, clientId, from)).map((u) => [u.hour, u]));
      const out: UsageHour[] = [];
      for (let i = hours - 1; i >= 0; i--) {
        const hour = hourOf(new Date(end - i * 3_600_000));
        out.push(stored.get(hour) ?? { hour, requests: 0, refusals: 0 });
      }
      return out;
    },

    async close(): Promise<void> {
      clearInterval(timer);
      await flush();
    },
  };
}

export type UsageTally = ReturnType<typeof createUsageTally>;
