import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PagingQuery, pageOf, renderPage } from '../http/paging.js';
import { CompanyIdParams, errorResponses, sendJson } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import { CONNECTORS } from '../connectors/registry.js';
import type { DataType } from '../codat-model/data-types.js';
import { DATA_PATHS, type DataPath } from './data-paths.js';
import type { DataSetsService } from './data-sets.service.js';

const ConnectionParams = {
  ...CompanyIdParams.properties,
  connectionId: Type.String({ format: 'uuid', description: 'GUID of the connection.' }),
};
const RecordId = Type.String({ minLength: 1, maxLength: 500, description: 'The record id.' });
const NOT_READY = 'Not found, or the data type is not supported by the platform (`Datatype <name> not supported by platform(s) <name>`).';

/** Name under which a data type's record schema appears in the OpenAPI document. */
function schemaId(dataType: string): string {
  return `Data_${dataType.replace(/-/g, '_')}`;
}

/** The record schema of each data type, from the first platform that provides it. */
function recordSchemas(): Map<DataType, TSchema> {
  const schemas = new Map<DataType, TSchema>();
  for (const connector of CONNECTORS) {
    for (const [dataType, source] of connector.dataTypes) {
      if (!schemas.has(dataType)) schemas.set(dataType, { ...source.schema, $id: schemaId(dataType) });
    }
  }
  return schemas;
}

function tagOf(path: DataPath): string {
  if (path.dataType.startsWith('banking-')) return 'Banking data';
  if (path.dataType.startsWith('commerce-')) return 'Commerce data';
  return 'Accounting data';
}

/** Every data-set path of DATA_PATHS: paged lists, single records and single objects. */
export function registerDataSetRoutes(app: FastifyInstance, deps: { dataSets: DataSetsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { dataSets } = deps;
  const schemas = recordSchemas();
  for (const schema of schemas.values()) app.addSchema(schema);

  for (const path of DATA_PATHS) {
    const record = schemas.has(path.dataType) ? Type.Ref(schemaId(path.dataType)) : Type.Unknown();
    const base =
      path.scope === 'company'
        ? `/companies/:companyId/data/${path.segment}`
        : `/companies/:companyId/connections/:connectionId/data/${path.segment}`;
    const params = path.scope === 'company' ? CompanyIdParams.properties : ConnectionParams;
    const tags = [tagOf(path)];
    const errors = { ...errorResponses(409), 404: Type.Ref('ErrorMessage', { description: NOT_READY }) };
    const scopeName = path.scope === 'company' ? 'company' : 'connection';

    if (path.kind === 'single') {
      r.get(
        base,
        {
          schema: {
            operationId: `get-${scopeName}-${path.segment}`,
            summary: `Get ${path.dataType}`,
            tags,
            params: Type.Object(params),
            response: { 200: record, ...errors },
          },
        },
        async (request, reply) => {
          const p = request.params as { companyId: string; connectionId?: string };
          return sendJson(reply, await dataSets.single(callerOf(request), p.companyId, path.dataType, p.connectionId));
        },
      );
      continue;
    }

    r.get(
      base,
      {
        schema: {
          operationId: `list-${scopeName}-${path.segment}`,
          summary: `List ${path.dataType}`,
          description: '409 until the data set has been requested and its first sync has completed.',
          tags,
          params: Type.Object(params),
          querystring: Type.Object(PagingQuery),
          response: { 200: pageOf(record as never), ...errors },
        },
      },
      async (request, reply) => {
        const p = request.params as { companyId: string; connectionId?: string };
        const { page = 1, pageSize = 100, query, orderBy } = request.query;
        const { records, totalResults } = await dataSets.list(
          callerOf(request),
          p.companyId,
          path.dataType,
          { page, pageSize, query, orderBy },
          { connectionId: p.connectionId },
        );
        return sendJson(
          reply,
          renderPage({ path: request.url.split('?')[0], params: request.query, page, pageSize, totalResults, records }),
        );
      },
    );

    r.get(
      `${base}/:recordId`,
      {
        schema: {
          operationId: `get-${scopeName}-${path.segment}-record`,
          summary: `Get one of ${path.dataType}`,
          tags,
          params: Type.Object({ ...params, recordId: RecordId }),
          response: { 200: record, ...errors },
        },
      },
      async (request, reply) => {
        const p = request.params as { companyId: string; connectionId?: string; recordId: string };
        return sendJson(reply, await dataSets.get(callerOf(request), p.companyId, path.dataType, p.recordId, p.connectionId));
      },
    );
  }

  r.get(
    '/companies/:companyId/connections/:connectionId/data/bankAccounts/:accountId/bankTransactions',
    {
      schema: {
        operationId: 'list-bank-account-transactions',
        summary: 'List the transactions of one bank account',
        tags: ['Accounting data'],
        params: Type.Object({ ...ConnectionParams, accountId: RecordId }),
        querystring: Type.Object(PagingQuery),
        response: { 200: pageOf(Type.Ref(schemaId('bankTransactions')) as never), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const { companyId, connectionId, accountId } = request.params;
      const { page = 1, pageSize = 100, query, orderBy } = request.query;
      const { records, totalResults } = await dataSets.list(
        callerOf(request),
        companyId,
        'bankTransactions',
        { page, pageSize, query, orderBy },
        {
          connectionId,
          extra: { condition: dataSets.fieldEquals('accountId', accountId), key: `accountId=${accountId}` },
        },
      );
      return sendJson(reply, renderPage({ path: request.url.split('?')[0], params: request.query, page, pageSize, totalResults, records }));
    },
  );
}
