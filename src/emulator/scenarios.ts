import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { AuthorizationScenarios } from '../connections/connections.service.js';
import type { SyncFault, SyncFaults } from '../syncs/sync-job.js';
import { clockFor } from '../lib/clock.js';
import { dropMark, makeMark, markValue, scenarioOf, setScenario } from './scenarios.store.js';

/**
 * Scenarios on the Sandboxes' authorization (docs/emulator.md, "Scenarios"): `PUT …/authorization` or the Link form
 * with `scenario` makes a Sandbox connection misbehave the way real platforms do, until it is authorised again.
 */
export const SCENARIOS = ['deauthorize-on-next-sync', 'rate-limited-first', 'never-completes', 'slow'] as const;

/** How long `rate-limited-first`'s 429 asks the sync to wait (real time, as a platform's Retry-After). */
export const RATE_LIMIT_RETRY_MS = 2_000;
/** How long each sync of a `slow` connection takes at least, in the company's business time (its clock's). */
export const SLOW_SYNC_MS = 30_000;

export function createScenarios(db: Kysely<Database>) {
  const authorization: AuthorizationScenarios = {
    names: SCENARIOS,
    neverCompletes: 'never-completes',
    async linked(trx, connection, scenario) {
      await setScenario(trx, connection.clientId, {
        connectionId: connection.connectionId,
        companyId: connection.companyId,
        scenario,
      });
    },
  };

  const sync: SyncFaults = {
    async beforeRead(target): Promise<SyncFault | undefined> {
      const scenario = await scenarioOf(db, target.clientId, target.connectionId);
      if (scenario === undefined) return undefined;
      const mark = (name: string, value?: string) =>
        makeMark(db, target.clientId, { connectionId: target.connectionId, companyId: target.companyId, mark: name, value });
      switch (scenario) {
        case 'deauthorize-on-next-sync':
          // Every sync of this authorization finds access revoked: the first to get here deauthorises the connection
          // (with its event, once), the others end AuthError too, and a new link without the scenario reads again.
          return { kind: 'deauthorize', message: "the platform revoked access (the Sandbox's scenario deauthorize-on-next-sync)" };
        case 'rate-limited-first':
          // Each data type's first sync meets one 429 and reads after its Retry-After.
          return (await mark(`rate-limited:${target.dataType}`)) ? { kind: 'rateLimited', retryAfterMs: RATE_LIMIT_RETRY_MS } : undefined;
        case 'slow': {
          const now = clockFor({ clientId: target.clientId, companyId: target.companyId }).now();
          const until = new Date(now.getTime() + SLOW_SYNC_MS);
          const name = `slow:${target.pullOperationId}`;
          if (await mark(name, until.toISOString())) return { kind: 'wait', until };
          const due = await markValue(db, target.clientId, target.connectionId, name);
          if (due && Date.parse(due) > now.getTime()) return { kind: 'wait', until: new Date(due) };
          // Its wait is over: the sync reads now, and its mark goes (an hourly sync would otherwise leave one an hour).
          await dropMark(db, target.clientId, target.connectionId, name);
          return undefined;
        }
        default:
          return undefined;
      }
    },
  };

  return { authorization, sync };
}
