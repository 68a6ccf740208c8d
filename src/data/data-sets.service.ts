import type { Kysely, RawBuilder } from 'kysely';
import { boundedCache } from '../lib/bounded-cache.js';
import type { Database } from '../storage/schema.js';
import type { SqlDialect } from '../storage/dialect.js';
import { ApiError, unsupported } from '../http/api-error.js';
import type { PageRequest } from '../http/paging.js';
import type { ListContext } from '../query/list-engine.js';
import type { QueryableResource } from '../query/properties.js';
import type { Client } from '../clients/clients.store.js';
import type { CompaniesService } from '../companies/companies.service.js';
import { findConnector, findPlatform } from '../connectors/registry.js';
import type { DataTypeSource } from '../connectors/connector.js';
import type { DataType } from '../codat-model/data-types.js';
import { sourceTypeOf } from './data-paths.js';
import { recordFieldEquals, recordResource } from '../records/record-resource.js';
import { currentVersionsOf, recordCountsOfCompany } from '../records/record-versions.js';
import { connectionOfCompany, connectionsOfCompany } from '../connections/connections.store.js';
import type { RecordReader } from '../records/record-reader.js';

export interface DataSetsDeps {
  db: Kysely<Database>;
  dialect: SqlDialect;
  lists: ListContext;
  companies: CompaniesService;
  records: RecordReader;
}

/** The complete versions a read sees, and what they are. */
export interface ReadableDataSet {
  versions: number[];
  /** The same versions with the connection each belongs to. */
  byConnection: { connectionId: string; version: number }[];
  source: DataTypeSource;
  /** Platform name, the `service` of a missing-record 404. */
  platformName: string;
}

export const NOT_REQUESTED = 'The data set has not been requested.';
export const FIRST_SYNC_PENDING = 'The data set is not ready: its first sync has not completed.';

/** Reading synced data sets: always the complete version a data set points at, never one being written. */
export function createDataSetsService(deps: DataSetsDeps) {
  const { db } = deps;
  const resources = new Map<DataTypeSource, QueryableResource>();
  // Keyed by the caller's company id, which may be any text: bounded by entries and by key bytes.
  const answers = boundedCache<ReadableDataSet>({ entries: 10_000, bytes: 4 * 1024 * 1024, valueBytes: () => 192 });

  function resourceOf(source: DataTypeSource): QueryableResource {
    let resource = resources.get(source);
    if (!resource) {
      resource = recordResource(source, deps.dialect);
      resources.set(source, resource);
    }
    return resource;
  }

  /**
   * Finds what a read of `dataType` sees: the named connection, or the company's connections of the data type's
   * source type. 404 when their platforms lack the type; 409 when it was never requested or never completed.
   */
  async function readable(client: Client, companyId: string, dataType: DataType, connectionId?: string): Promise<ReadableDataSet> {
    // Every change that could alter the answer (a sync completing, a connection or company deleted) moves the
    // client's companies version in its transaction, and the request guard reads that version with the key:
    // an answer cached under it is exact. Only answers are cached, never errors.
    const key = `${client.id}\u0000${client.companiesVersion}\u0000${companyId}\u0000${dataType}\u0000${connectionId ?? ''}`;
    const cached = answers.get(key);
    if (cached) return cached;
    const answer = await lookUp(client, companyId, dataType, connectionId);
    answers.set(key, answer);
    return answer;
  }

  async function lookUp(client: Client, companyId: string, dataType: DataType, connectionId?: string): Promise<ReadableDataSet> {
    await deps.companies.owned(client, companyId);
    const connections = connectionId
      ? [await connectionOfCompany(db, client.id, companyId, connectionId)].filter((c) => c !== undefined)
      : await connectionsOfCompany(db, client.id, companyId);
    if (connectionId && connections.length === 0) throw new ApiError(404, `Data connection ${connectionId} not found`);
    const candidates = connectionId ? connections : connections.filter((c) => c.source_type === sourceTypeOf(dataType));
    if (candidates.length === 0) {
      if (connections.length === 0) throw new ApiError(409, NOT_REQUESTED);
      throw unsupported(
        dataType,
        connections.map((c) => findPlatform(c.platform_key)?.name ?? c.platform_key),
      );
    }
    const supporting = candidates.filter((c) => findConnector(c.platform_key)?.dataTypes.has(dataType));
    if (supporting.length === 0)
      throw unsupported(
        dataType,
        candidates.map((c) => findPlatform(c.platform_key)?.name ?? c.platform_key),
      );

    const sets = await currentVersionsOf(
      db,
      client.id,
      supporting.map((c) => c.id),
      dataType,
    );
    if (sets.length === 0) throw new ApiError(409, NOT_REQUESTED);
    const byConnection = sets
      .filter((s) => s.current_version !== null)
      .map((s) => ({ connectionId: s.connection_id, version: Number(s.current_version) }))
      .sort((a, b) => a.version - b.version);
    const versions = byConnection.map((s) => s.version);
    if (versions.length === 0) throw new ApiError(409, FIRST_SYNC_PENDING);
    const first = supporting[0];
    const connector = findConnector(first.platform_key);
    return {
      versions,
      byConnection,
      source: connector?.dataTypes.get(dataType) as DataTypeSource,
      platformName: connector?.info.name ?? first.platform_key,
    };
  }

  /**
   * For each data type, its complete versions with their connections, or undefined when there is nothing complete
   * to read (as `synced`).
   */
  async function syncedByConnection(
    client: Client,
    companyId: string,
    dataTypes: readonly DataType[],
  ): Promise<({ connectionId: string; version: number }[] | undefined)[]> {
    await deps.companies.owned(client, companyId);
    return Promise.all(
      dataTypes.map(async (dataType) => {
        try {
          return (await readable(client, companyId, dataType)).byConnection;
        } catch (error) {
          if (error instanceof ApiError && (error.statusCode === 409 || error.code === 'DataTypeNotSupported')) return undefined;
          throw error;
        }
      }),
    );
  }

  return {
    readable,

    /**
     * For each data type, the complete versions a read of it sees, or undefined when there is nothing complete to
     * read: never requested, its first sync not complete, or no connection of the company's serves it. An unknown
     * company is 404 (checked once for them all).
     */
    async synced(client: Client, companyId: string, dataTypes: readonly DataType[]): Promise<(number[] | undefined)[]> {
      return (await syncedByConnection(client, companyId, dataTypes)).map((sets) => sets?.map((s) => s.version));
    },

    syncedByConnection,

    /** A condition on a top-level string field of the stored records (for sub-resource paths). */
    fieldEquals(field: string, value: string): RawBuilder<unknown> {
      return recordFieldEquals(deps.dialect, field, value);
    },

    /** A page of records; `extra` narrows the scope further (e.g. one bank account's transactions). */
    async list(
      client: Client,
      companyId: string,
      dataType: DataType,
      page: PageRequest,
      options: { connectionId?: string; extra?: { condition: RawBuilder<unknown>; key: string } } = {},
    ) {
      const set = await readable(client, companyId, dataType, options.connectionId);
      return deps.records.list({ versions: set.versions, resource: resourceOf(set.source), extra: options.extra, page });
    },

    /** One record by id; 404 naming the company and record, from the platform, when absent. */
    async get(client: Client, companyId: string, dataType: DataType, recordId: string, connectionId?: string): Promise<string> {
      const set = await readable(client, companyId, dataType, connectionId);
      const doc = await deps.records.byId(set.versions, recordId);
      if (doc === undefined) {
        throw new ApiError(
          404,
          `RecordNotFoundException: No ${dataType} record with ID ${recordId} was found for company ${companyId}${connectionId ? ` (connection ${connectionId})` : ''}.`,
          { code: 'RecordNotFound', service: set.platformName },
        );
      }
      return doc;
    },

    /** The one record of a single-object data type (company info). */
    async single(client: Client, companyId: string, dataType: DataType, connectionId?: string): Promise<string> {
      const set = await readable(client, companyId, dataType, connectionId);
      const doc = await deps.records.first(set.versions);
      if (doc === undefined)
        throw new ApiError(404, `RecordNotFoundException: No ${dataType} record was found for company ${companyId}.`, {
          code: 'RecordNotFound',
          service: set.platformName,
        });
      return doc;
    },

    /** Records per data type the company's connections hold now (their current versions' sizes). */
    async recordCounts(client: Client, companyId: string): Promise<Map<string, number>> {
      await deps.companies.owned(client, companyId);
      return recordCountsOfCompany(db, client.id, companyId);
    },

    /** All records of a report-like type (monthly statements), oldest first, for the financials endpoints. */
    async allRecords(client: Client, companyId: string, dataType: DataType): Promise<string[]> {
      const set = await readable(client, companyId, dataType);
      return deps.records.allLive(set.versions);
    },
  };
}

export type DataSetsService = ReturnType<typeof createDataSetsService>;
