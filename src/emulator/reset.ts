import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { DeletionStep } from '../storage/deletion.js';
import { ApiError } from '../http/api-error.js';
import { lockClient } from '../clients/clients.store.js';
import { companyIdsOf, deleteCompanyIn } from '../companies/companies.store.js';
import { runningSyncCount } from '../syncs/syncs.store.js';
import { clearClientSyncSettings } from '../syncs/sync-settings.store.js';
import { pendingPushCount } from '../push/push.store.js';
import { deleteClientWebhooks, deliveriesInFlight } from '../webhooks/webhooks.store.js';
import { realTime } from '../lib/clock.js';
import { deleteClientClocks } from './clocks.store.js';
import { deleteFaults } from './faults.store.js';
import { clearJournal } from './journal.store.js';

/** What a reset took away. */
export interface ResetOutcome {
  companies: number;
  webhookConsumers: number;
  clocks: number;
  faultRules: number;
}

/**
 * `POST /emulator/reset` (docs/emulator.md, "Reset"): the client as it was created. Its companies go with all they own
 * (connections, credentials, sync settings, synced data, Sandbox writes, uploads and sessions, pull and push
 * operations, category confirmations, scenarios: the cascade a company's deletion runs), and so do its webhook
 * consumers with their events and deliveries (pending retries included), its own sync settings, its test clocks with
 * their timers, its fault rules and its request journal. Its API keys, plan and profile stay. One transaction, under
 * the client's lock, which also moves the companies' change counter on. Refused (409) while work of the client is in
 * flight: a sync reading, a write pending, a delivery being sent.
 */
export function createReset(deps: { db: Kysely<Database>; deleteOwned: DeletionStep }) {
  const { db } = deps;

  async function inFlight(executor: Kysely<Database>, clientId: string): Promise<string | undefined> {
    const syncs = await runningSyncCount(executor, clientId);
    const writes = await pendingPushCount(executor, clientId);
    // Webhook attempts run in real time, whatever clock the event was made on.
    const deliveries = await deliveriesInFlight(executor, clientId, realTime.now().toISOString());
    const busy = [
      syncs > 0 ? `${syncs} sync${syncs === 1 ? '' : 's'} reading` : '',
      writes > 0 ? `${writes} write${writes === 1 ? '' : 's'} pending` : '',
      deliveries > 0 ? `${deliveries} webhook deliver${deliveries === 1 ? 'y' : 'ies'} being sent` : '',
    ].filter(Boolean);
    return busy.length > 0 ? busy.join(', ') : undefined;
  }

  return {
    async reset(clientId: string): Promise<ResetOutcome> {
      return db.transaction().execute(async (trx) => {
        // The lock that every company change takes, bumping the companies' change counter.
        await lockClient(trx, clientId, true);
        const busy = await inFlight(trx, clientId);
        if (busy) throw new ApiError(409, `Conflict: the client's work is in flight (${busy}); reset once it has finished.`);
        const webhookConsumers = await deleteClientWebhooks(trx, clientId);
        const companies = await companyIdsOf(trx, clientId);
        for (const companyId of companies) await deleteCompanyIn(trx, clientId, companyId, deps.deleteOwned);
        await clearClientSyncSettings(trx, clientId);
        const clocks = await deleteClientClocks(trx, clientId);
        const faultRules = await deleteFaults(trx, clientId);
        await clearJournal(trx, clientId);
        return { companies: companies.length, webhookConsumers, clocks, faultRules };
      });
    },
  };
}

export type Reset = ReturnType<typeof createReset>;
