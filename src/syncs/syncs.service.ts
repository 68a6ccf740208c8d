import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SqlDialect } from '../storage/dialect.js';
import { ApiError, notFound, unsupported } from '../http/api-error.js';
import type { PageRequest } from '../http/paging.js';
import type { ListContext } from '../query/list-engine.js';
import type { Client } from '../clients/clients.store.js';
import type { CompaniesService } from '../companies/companies.service.js';
import { findConnector, findPlatform } from '../connectors/registry.js';
import { isDataType } from '../codat-model/data-types.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { queueFirstLinkSyncs, queueSync } from './sync-queue.js';
import { effectiveSyncSettingsOf } from './sync-settings.store.js';
import { dataSetSyncs } from './data-sets.store.js';
import { operationDoc, pullOperationResource, pullOperationsPage } from './syncs.store.js';
import { connectionOfCompany, linkedConnections, platformKeysOfCompany } from '../connections/connections.store.js';
import { clockFor } from '../lib/clock.js';

export interface SyncsDeps {
  db: Kysely<Database>;
  dialect: SqlDialect;
  lists: ListContext;
  jobs: JobQueue;
  wakeJobs: () => void;
  companies: CompaniesService;
  now?: () => Date;
}

/** Queueing syncs and reading their state for a company. */
export function createSyncsService(deps: SyncsDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => clockFor({}).now());
  const resource = pullOperationResource(deps.dialect);

  return {
    /** Queues one data type on the connection given, or on the company's linked connections that support it. */
    async queue(client: Client, companyId: string, dataType: string, connectionId?: string, full = false): Promise<string> {
      await deps.companies.owned(client, companyId);
      let candidates = await linkedConnections(db, client.id, companyId);
      if (connectionId) {
        const given = await connectionOfCompany(db, client.id, companyId, connectionId);
        if (!given) throw notFound(`Data connection ${connectionId} not found`);
        if (given.status !== 'Linked') {
          throw new ApiError(
            400,
            `ConnectionNotLinkedException: Connection ${connectionId} is ${given.status}; link it before queueing a sync.`,
            { code: 'ConnectionNotLinked' },
          );
        }
        candidates = [given];
      }
      if (candidates.length === 0) {
        throw new ApiError(400, `NoLinkedConnectionException: Company ${companyId} has no linked connection to sync ${dataType} from.`, {
          code: 'NoLinkedConnection',
        });
      }
      const supporting = isDataType(dataType) ? candidates.filter((c) => findConnector(c.platform_key)?.dataTypes.has(dataType)) : [];
      if (supporting.length === 0) {
        throw unsupported(
          dataType,
          candidates.map((c) => findPlatform(c.platform_key)?.name ?? c.platform_key),
        );
      }
      const target = supporting[0];
      const doc = await db
        .transaction()
        .execute((trx) => queueSync(trx, deps.jobs, { clientId: client.id, companyId, connectionId: target.id, dataType, full }, now()));
      deps.wakeJobs();
      return doc;
    },

    /** Queues every type with `fetchOnFirstLink` that the linked connections support; types already syncing are left alone. */
    async queueAll(client: Client, companyId: string): Promise<void> {
      const company = await deps.companies.owned(client, companyId);
      const connections = await linkedConnections(db, client.id, companyId);
      const settings = await effectiveSyncSettingsOf(db, client.id, company.id);
      await db.transaction().execute(async (trx) => {
        for (const connection of connections) {
          await queueFirstLinkSyncs(
            trx,
            deps.jobs,
            { id: connection.id, clientId: client.id, companyId, platformKey: connection.platform_key },
            settings,
            now(),
          );
        }
      });
      deps.wakeJobs();
    },

    /**
     * The state of every data type the company's connections provide, keyed by data type (`invoices`,
     * `banking-accounts`: the wire names the official SDK reads and then camel-cases for its callers). Types
     * never requested are `Initial`; with several connections the newest sync of a type wins.
     */
    async dataStatus(client: Client, companyId: string): Promise<string> {
      await deps.companies.owned(client, companyId);
      const statuses = new Map<string, Record<string, unknown>>();
      for (const platformKey of await platformKeysOfCompany(db, client.id, companyId)) {
        for (const dataType of findConnector(platformKey)?.dataTypes.keys() ?? []) {
          statuses.set(dataType, { dataType, currentStatus: 'Initial' });
        }
      }
      for (const row of await dataSetSyncs(db, client.id, companyId)) {
        statuses.set(row.data_type, {
          dataType: row.data_type,
          currentStatus: row.status,
          latestSyncId: row.id,
          ...(row.last_successful_sync ? { lastSuccessfulSync: row.last_successful_sync } : {}),
          ...(row.latest_successful_sync_id ? { latestSuccessfulSyncId: row.latest_successful_sync_id } : {}),
        });
      }
      const out: Record<string, unknown> = {};
      for (const [dataType, status] of [...statuses.entries()].sort(([a], [b]) => a.localeCompare(b))) out[dataType] = status;
      return JSON.stringify(out);
    },

    async history(client: Client, companyId: string, page: PageRequest) {
      await deps.companies.owned(client, companyId);
      return pullOperationsPage(deps.lists, client.id, companyId, resource, page);
    },

    async operation(client: Client, companyId: string, datasetId: string): Promise<string> {
      await deps.companies.owned(client, companyId);
      const doc = await operationDoc(db, client.id, companyId, datasetId);
      if (doc === undefined)
        throw notFound(`DatasetNotFoundException: No pull operation with ID ${datasetId} was found for company ${companyId}`);
      return doc;
    },
  };
}

export type SyncsService = ReturnType<typeof createSyncsService>;
