import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SqlDialect } from '../storage/dialect.js';
import { ApiError } from '../http/api-error.js';
import type { PageRequest } from '../http/paging.js';
import { listPage, type ListContext } from '../query/list-engine.js';
import type { QueryableResource } from '../query/properties.js';
import { resolverFromSchema } from '../query/schema-resolver.js';
import type { Client } from '../clients/clients.store.js';
import type { CompaniesService } from '../companies/companies.service.js';
import { findConnector, findPlatform } from '../connectors/registry.js';
import type { DataTypeSource } from '../connectors/connector.js';
import type { DataType } from '../connectors/data-types.js';
import { unsupported } from '../syncs/syncs.service.js';
import { sourceTypeOf } from './data-paths.js';

export interface DataSetsDeps {
  db: Kysely<Database>;
  dialect: SqlDialect;
  lists: ListContext;
  companies: CompaniesService;
}

/** The complete versions a read sees, and what they are. */
export interface ReadableDataSet {
  versions: number[];
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

  function resourceOf(source: DataTypeSource): QueryableResource {
    let resource = resources.get(source);
    if (!resource) {
      resource = {
        typeName: source.typeName,
        resolve: resolverFromSchema(source.schema, 'doc', deps.dialect, {
          id: { type: 'string', exact: true, expr: sql`records.record_id` },
          modifiedDate: { type: 'date', dateStyle: 'instant', expr: sql`records.modified_date` },
          'metadata.isDeleted': { type: 'boolean', expr: sql`(records.is_deleted = 1)` },
        }),
      };
      resources.set(source, resource);
    }
    return resource;
  }

  /**
   * Finds what a read of `dataType` sees: the named connection, or the company's connections of the data type's
   * source type. 404 when their platforms lack the type; 409 when it was never requested or never completed.
   */
  async function readable(client: Client, companyId: string, dataType: DataType, connectionId?: string): Promise<ReadableDataSet> {
    await deps.companies.owned(client, companyId);
    let query = db.selectFrom('connections').select(['id', 'platform_key', 'source_type']).where('company_id', '=', companyId);
    if (connectionId) query = query.where('id', '=', connectionId);
    const connections = await query.orderBy('created').execute();
    if (connectionId && connections.length === 0) throw new ApiError(404, `Data connection ${connectionId} not found`);
    const candidates = connectionId ? connections : connections.filter((c) => c.source_type === sourceTypeOf(dataType));
    if (candidates.length === 0) {
      if (connections.length === 0) throw new ApiError(409, NOT_REQUESTED);
      throw unsupported(dataType, connections.map((c) => findPlatform(c.platform_key)?.name ?? c.platform_key));
    }
    const supporting = candidates.filter((c) => findConnector(c.platform_key)?.dataTypes.has(dataType));
    if (supporting.length === 0) throw unsupported(dataType, candidates.map((c) => findPlatform(c.platform_key)?.name ?? c.platform_key));

    const sets = await db
      .selectFrom('data_sets')
      .select(['connection_id', 'current_version'])
      .where('connection_id', 'in', supporting.map((c) => c.id))
      .where('data_type', '=', dataType)
      .execute();
    if (sets.length === 0) throw new ApiError(409, NOT_REQUESTED);
    const versions = sets.filter((s) => s.current_version !== null).map((s) => Number(s.current_version)).sort((a, b) => a - b);
    if (versions.length === 0) throw new ApiError(409, FIRST_SYNC_PENDING);
    const first = supporting[0];
    const connector = findConnector(first.platform_key);
    return { versions, source: connector?.dataTypes.get(dataType) as DataTypeSource, platformName: connector?.info.name ?? first.platform_key };
  }

  const inVersions = (versions: number[]) => sql`records.version IN (${sql.join(versions)})`;

  return {
    readable,

    /** A condition on a top-level string field of the stored records (for sub-resource paths). */
    fieldEquals(field: string, value: string): RawBuilder<unknown> {
      return sql`${deps.dialect.jsonText('doc', [field])} = ${value}`;
    },

    /** A page of records; `extra` narrows the scope further (e.g. one bank account's transactions). */
    async list(client: Client, companyId: string, dataType: DataType, page: PageRequest, options: { connectionId?: string; extra?: { condition: RawBuilder<unknown>; key: string } } = {}) {
      const set = await readable(client, companyId, dataType, options.connectionId);
      const scope = options.extra ? sql`${inVersions(set.versions)} AND ${options.extra.condition}` : inVersions(set.versions);
      const result = await listPage<{ doc: string }>(deps.lists, {
        from: sql`records`,
        scope,
        resource: resourceOf(set.source),
        select: sql`records.doc`,
        tiebreak: [sql`records.version`, sql`records.position`],
        // A version never changes once complete, so its counts are exact forever.
        countKey: `records\u0000${set.versions.join(',')}\u0000${options.extra?.key ?? ''}`,
      }, page);
      return { records: result.rows.map((r) => r.doc), totalResults: result.totalResults };
    },

    /** One record by id; 404 naming the company and record, from the platform, when absent. */
    async get(client: Client, companyId: string, dataType: DataType, recordId: string, connectionId?: string): Promise<string> {
      const set = await readable(client, companyId, dataType, connectionId);
      const row = await db.selectFrom('records').select('doc').where('version', 'in', set.versions).where('record_id', '=', recordId).executeTakeFirst();
      if (!row) {
        throw new ApiError(404, `RecordNotFoundException: No ${dataType} record with ID ${recordId} was found for company ${companyId}${connectionId ? ` (connection ${connectionId})` : ''}.`, { service: set.platformName });
      }
      return row.doc;
    },

    /** The one record of a single-object data type (company info). */
    async single(client: Client, companyId: string, dataType: DataType, connectionId?: string): Promise<string> {
      const set = await readable(client, companyId, dataType, connectionId);
      const row = await db.selectFrom('records').select('doc').where('version', 'in', set.versions).orderBy('version', 'desc').orderBy('position').limit(1).executeTakeFirst();
      if (!row) throw new ApiError(404, `RecordNotFoundException: No ${dataType} record was found for company ${companyId}.`, { service: set.platformName });
      return row.doc;
    },

    /** All records of a report-like type (monthly statements), oldest first, for the financials endpoints. */
    async allRecords(client: Client, companyId: string, dataType: DataType): Promise<string[]> {
      const set = await readable(client, companyId, dataType);
      const rows = await db.selectFrom('records').select('doc').where('version', 'in', set.versions).where('is_deleted', '=', 0).orderBy('record_id').execute();
      return rows.map((r) => r.doc);
    },
  };
}

export type DataSetsService = ReturnType<typeof createDataSetsService>;
