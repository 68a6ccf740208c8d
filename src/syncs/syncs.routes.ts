import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PagingQuery, pageOf, renderPage } from '../http/paging.js';
import { CompanyIdParams, errorResponses, sendJson } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import { DATASET_STATUSES, PullOperation } from './pull-operation.js';
import type { SyncsService } from './syncs.service.js';

const tags = ['Syncs'];

const DataStatus = Type.Object({
  dataType: Type.String(),
  currentStatus: Type.Union(DATASET_STATUSES.map((s) => Type.Literal(s))),
  lastSuccessfulSync: Type.Optional(Type.String({ format: 'date-time' })),
  latestSyncId: Type.Optional(Type.String({ format: 'uuid' })),
  latestSuccessfulSyncId: Type.Optional(Type.String({ format: 'uuid' })),
});

export function registerSyncRoutes(app: FastifyInstance, deps: { syncs: SyncsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { syncs } = deps;

  r.post(
    '/companies/:companyId/data/all',
    {
      schema: {
        operationId: 'refresh-company-data',
        summary: 'Refresh all data',
        description:
          'Queues every data type with `fetchOnFirstLink` that the linked connections support. Types already syncing are left as they are.',
        tags,
        params: CompanyIdParams,
        response: { 204: Type.Null({ description: 'Queued.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await syncs.queueAll(callerOf(request), request.params.companyId);
      return reply.code(204).send(null);
    },
  );

  r.post(
    '/companies/:companyId/data/queue/:dataType',
    {
      schema: {
        operationId: 'refresh-data-type',
        summary: 'Refresh one data type',
        description:
          'Queues a sync of one data type; 400 `DatasetAlreadyInProgressException` when that type is already syncing. A platform that can read changes since the last sync does so unless `full=true`.',
        tags,
        params: Type.Object({
          ...CompanyIdParams.properties,
          dataType: Type.String({ description: 'A data type, e.g. `invoices` or `banking-accounts`.' }),
        }),
        querystring: Type.Object({
          connectionId: Type.Optional(Type.String({ format: 'uuid' })),
          full: Type.Optional(
            Type.Boolean({
              default: false,
              description: 'Read the platform in full, whatever it could read as changes since the last sync.',
            }),
          ),
        }),
        response: { 200: Type.Ref(PullOperation), ...errorResponses(404) },
      },
    },
    async (request, reply) =>
      sendJson(
        reply,
        await syncs.queue(
          callerOf(request),
          request.params.companyId,
          request.params.dataType,
          request.query.connectionId,
          request.query.full === true,
        ),
      ),
  );

  r.post(
    '/companies/:companyId/data/info',
    {
      schema: {
        operationId: 'refresh-company-info',
        summary: 'Refresh company info',
        description:
          "Queues a sync of the company's accounting profile (data type `company`, read at `GET /companies/{companyId}/data/info`), as `POST …/data/queue/company` does.",
        tags,
        params: CompanyIdParams,
        response: { 200: Type.Ref(PullOperation), ...errorResponses(404) },
      },
    },
    async (request, reply) => sendJson(reply, await syncs.queue(callerOf(request), request.params.companyId, 'company')),
  );

  r.get(
    '/companies/:companyId/dataStatus',
    {
      schema: {
        operationId: 'get-company-data-status',
        summary: 'Data status',
        description: 'The state of each data type, keyed by data type (`invoices`, `banking-accounts`, ...).',
        tags,
        params: CompanyIdParams,
        response: { 200: Type.Record(Type.String(), DataStatus), ...errorResponses(404) },
      },
    },
    async (request, reply) => sendJson(reply, await syncs.dataStatus(callerOf(request), request.params.companyId)),
  );

  r.get(
    '/companies/:companyId/data/history',
    {
      schema: {
        operationId: 'list-pull-operations',
        summary: 'Sync history',
        description: 'Pull operations, newest first unless `orderBy` says otherwise.',
        tags,
        params: CompanyIdParams,
        querystring: Type.Object(PagingQuery),
        response: { 200: pageOf(Type.Ref(PullOperation)), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { page = 1, pageSize = 100, query, orderBy } = request.query;
      const { records, totalResults } = await syncs.history(callerOf(request), request.params.companyId, {
        page,
        pageSize,
        query,
        orderBy,
      });
      return sendJson(reply, renderPage({ path: request.url.split('?')[0], params: request.query, page, pageSize, totalResults, records }));
    },
  );

  r.get(
    '/companies/:companyId/data/history/:datasetId',
    {
      schema: {
        operationId: 'get-pull-operation',
        summary: 'One pull operation',
        tags,
        params: Type.Object({ ...CompanyIdParams.properties, datasetId: Type.String({ format: 'uuid' }) }),
        response: { 200: Type.Ref(PullOperation), ...errorResponses(404) },
      },
    },
    async (request, reply) => sendJson(reply, await syncs.operation(callerOf(request), request.params.companyId, request.params.datasetId)),
  );
}
