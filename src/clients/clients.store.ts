import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ClientsTable, Database } from '../storage/schema.js';
import type { PlanName } from './plans.js';

export interface Client {
  id: string;
  name: string;
  plan: PlanName;
  createdAt: string;
  dailyQuota: number | null;
  burstLimit: number | null;
  /** Moves with every change to the client's companies (see CountCache). */
  companiesVersion: number;
}

export function toClient(
  row: Pick<Selectable<ClientsTable>, 'id' | 'name' | 'plan' | 'created_at' | 'daily_quota' | 'burst_limit' | 'companies_version'>,
): Client {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan as PlanName,
    createdAt: row.created_at,
    dailyQuota: row.daily_quota,
    burstLimit: row.burst_limit,
    companiesVersion: Number(row.companies_version),
  };
}

/** Storage of clients (tenants) and their profiles. Every method is scoped by client id. */
export function createClientsStore(db: Kysely<Database>) {
  return {
    /** Inserts a client with a default profile. */
    async insert(input: { name: string; plan: PlanName; createdAt: string; profile: string }): Promise<Client> {
      const id = randomUUID();
      await db
        .insertInto('clients')
        .values({
          id,
          name: input.name,
          plan: input.plan,
          created_at: input.createdAt,
          daily_quota: null,
          burst_limit: null,
          profile: input.profile,
        })
        .execute();
      return {
        id,
        name: input.name,
        plan: input.plan,
        createdAt: input.createdAt,
        dailyQuota: null,
        burstLimit: null,
        companiesVersion: 0,
      };
    },

    async list(): Promise<Client[]> {
      const rows = await db.selectFrom('clients').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toClient);
    },

    async get(clientId: string): Promise<Client | undefined> {
      const row = await db.selectFrom('clients').selectAll().where('id', '=', clientId).executeTakeFirst();
      return row && toClient(row);
    },

    async count(): Promise<number> {
      const row = await db
        .selectFrom('clients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async setLimits(
      clientId: string,
      limits: { dailyQuota?: number | null; burstLimit?: number | null; plan?: PlanName },
    ): Promise<boolean> {
      const values: Updateable<ClientsTable> = {};
      if (limits.dailyQuota !== undefined) values.daily_quota = limits.dailyQuota;
      if (limits.burstLimit !== undefined) values.burst_limit = limits.burstLimit;
      if (limits.plan !== undefined) values.plan = limits.plan;
      if (Object.keys(values).length === 0) return (await this.get(clientId)) !== undefined;
      const result = await db.updateTable('clients').set(values).where('id', '=', clientId).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async getProfile(clientId: string): Promise<string | undefined> {
      const row = await db.selectFrom('clients').select('profile').where('id', '=', clientId).executeTakeFirst();
      return row?.profile;
    },

    async setProfile(clientId: string, profile: string): Promise<void> {
      await db.updateTable('clients').set({ profile }).where('id', '=', clientId).execute();
    },

    /** Companies of this client that hold at least one linked connection. */
    async countLinkedCompanies(clientId: string): Promise<number> {
      const row = await db
        .selectFrom('connections')
        .select((eb) => eb.fn.count<number>('company_id').distinct().as('n'))
        .where('client_id', '=', clientId)
        .where('status', '=', 'Linked')
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type ClientsStore = ReturnType<typeof createClientsStore>;

/**
 * Serialises changes to one client's limited collections (API keys, companies) across transactions:
 * the no-op update takes the row's write lock on Postgres, and SQLite transactions are serial anyway.
 * Also moves the companies version, which invalidates cached company counts.
 */
export async function lockClient(trx: Kysely<Database>, clientId: string, bumpCompaniesVersion = false): Promise<void> {
  await trx
    .updateTable('clients')
    .set((eb) => ({ companies_version: bumpCompaniesVersion ? eb('companies_version', '+', 1) : eb.ref('companies_version') }))
    .where('id', '=', clientId)
    .execute();
}
