import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { RateCounters } from './rate-counters.js';
import { realTime } from '../lib/clock.js';

/** Counters in the store: one atomic upsert per request; expired ones are swept once a minute. */
export function storeRateCounters(db: Kysely<Database>, now: () => Date = realTime.now): RateCounters {
  let lastSweep = 0;
  return {
    async hit(clientId, window, expiresAt) {
      const at = now().getTime();
      if (at - lastSweep >= 60_000) {
        lastSweep = at;
        await db.deleteFrom('rate_counters').where('expires_at', '<', new Date(at).toISOString()).execute();
      }
      const row = await db
        .insertInto('rate_counters')
        .values({ client_id: clientId, window, count: 1, expires_at: expiresAt.toISOString() })
        .onConflict((oc) => oc.columns(['client_id', 'window']).doUpdateSet({ count: sql`rate_counters.count + 1` }))
        .returning('count')
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
    close: async () => {},
  };
}
