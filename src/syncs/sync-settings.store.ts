import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { effectiveSyncSettings, parseStoredSettings, type StoredSyncSettings, type SyncSetting } from './sync-settings.js';

/**
 * Where sync settings are kept: a client's (`clients.sync_settings`) over the service's defaults, and a company's
 * over its client's. Every read and write of them goes through here, scoped to the calling client.
 */

export async function clientSyncSettings(db: Kysely<Database>, clientId: string): Promise<StoredSyncSettings | null> {
  const row = await db.selectFrom('clients').select('sync_settings').where('id', '=', clientId).executeTakeFirst();
  return parseStoredSettings(row?.sync_settings ?? null);
}

export async function companySyncSettings(db: Kysely<Database>, clientId: string, companyId: string): Promise<StoredSyncSettings | null> {
  const row = await db
    .selectFrom('companies')
    .select('sync_settings')
    .where('client_id', '=', clientId)
    .where('id', '=', companyId)
    .executeTakeFirst();
  return parseStoredSettings(row?.sync_settings ?? null);
}

export async function saveClientSyncSettings(db: Kysely<Database>, clientId: string, settings: StoredSyncSettings): Promise<void> {
  await db
    .updateTable('clients')
    .set({ sync_settings: JSON.stringify(settings) })
    .where('id', '=', clientId)
    .execute();
}

export async function saveCompanySyncSettings(
  db: Kysely<Database>,
  clientId: string,
  companyId: string,
  settings: StoredSyncSettings,
): Promise<void> {
  await db
    .updateTable('companies')
    .set({ sync_settings: JSON.stringify(settings) })
    .where('client_id', '=', clientId)
    .where('id', '=', companyId)
    .execute();
}

/** The settings in force for a company: the service's defaults, then its client's, then its own. */
export async function effectiveSyncSettingsOf(db: Kysely<Database>, clientId: string, companyId: string): Promise<SyncSetting[]> {
  const [client, company] = await Promise.all([clientSyncSettings(db, clientId), companySyncSettings(db, clientId, companyId)]);
  return effectiveSyncSettings(client, company);
}

/** Every Linked connection, with the settings in force for its company (what the sync schedule reads, in one query). */
export async function linkedConnectionsWithSettings(db: Kysely<Database>, companyIds?: readonly string[]) {
  let query = db
    .selectFrom('connections as c')
    .innerJoin('companies as co', (join) => join.onRef('co.id', '=', 'c.company_id').onRef('co.client_id', '=', 'c.client_id'))
    .innerJoin('clients as cl', 'cl.id', 'c.client_id')
    .select([
      'c.id',
      'c.client_id',
      'c.company_id',
      'c.platform_key',
      'co.sync_settings as company_settings',
      'cl.sync_settings as client_settings',
    ])
    .where('c.status', '=', 'Linked');
  if (companyIds) query = query.where('c.company_id', 'in', companyIds);
  const rows = await query.execute();
  return rows.map(({ company_settings, client_settings, ...connection }) => ({
    ...connection,
    settings: effectiveSyncSettings(parseStoredSettings(client_settings), parseStoredSettings(company_settings)),
  }));
}

/** Back to the defaults: the client's own sync settings forgotten (the emulator's reset). */
export async function clearClientSyncSettings(db: Kysely<Database>, clientId: string): Promise<void> {
  await db.updateTable('clients').set({ sync_settings: null }).where('id', '=', clientId).execute();
}
