import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PagingQuery, pageOf, renderPage } from '../http/paging.js';
import { CompanyIdParams, ConnectionIdParams, errorResponses, sendJson, sendNoBody } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import { Connection, CONNECTION_STATUSES } from './connection.schema.js';
import type { ConnectionsService } from './connections.service.js';

const tags = ['Connections'];

export function registerConnectionRoutes(app: FastifyInstance, deps: { connections: ConnectionsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { connections } = deps;

  r.get(
    '/companies/:companyId/connections',
    {
      schema: {
        operationId: 'list-connections',
        summary: 'List connections',
        tags,
        params: CompanyIdParams,
        querystring: Type.Object(PagingQuery),
        response: { 200: pageOf(Type.Ref(Connection)), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { page = 1, pageSize = 100, query, orderBy } = request.query;
      const { records, totalResults } = await connections.list(callerOf(request), request.params.companyId, {
        page,
        pageSize,
        query,
        orderBy,
      });
      return sendJson(reply, renderPage({ path: request.url.split('?')[0], params: request.query, page, pageSize, totalResults, records }));
    },
  );

  r.post(
    '/companies/:companyId/connections',
    {
      schema: {
        operationId: 'create-connection',
        summary: 'Create a connection',
        description:
          'A new connection in `PendingAuth`; its `linkUrl` is where the end user authorises it. One accounting connection per company.',
        tags,
        params: CompanyIdParams,
        body: Type.Unsafe<{ platformKey?: string } | null>({
          type: ['object', 'null'],
          properties: { platformKey: { type: 'string', pattern: '^[a-z]{4}$' } },
        }),
        response: { 200: Type.Ref(Connection), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) =>
      sendJson(reply, await connections.create(callerOf(request), request.params.companyId, request.body?.platformKey)),
  );

  r.get(
    '/companies/:companyId/connections/:connectionId',
    {
      schema: {
        operationId: 'get-connection',
        summary: 'Get a connection',
        tags,
        params: ConnectionIdParams,
        response: { 200: Type.Ref(Connection), ...errorResponses(404) },
      },
    },
    async (request, reply) =>
      sendJson(reply, await connections.get(callerOf(request), request.params.companyId, request.params.connectionId)),
  );

  r.delete(
    '/companies/:companyId/connections/:connectionId',
    {
      schema: {
        operationId: 'delete-connection',
        summary: 'Delete a connection',
        description: 'Deletes the connection with its data sets. Answers 200 with no body, as Codat does.',
        tags,
        params: ConnectionIdParams,
        response: { 200: Type.Null({ description: 'Deleted.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await connections.delete(callerOf(request), request.params.companyId, request.params.connectionId);
      return sendNoBody(reply, 200);
    },
  );

  r.patch(
    '/companies/:companyId/connections/:connectionId',
    {
      schema: {
        operationId: 'unlink-connection',
        summary: 'Unlink a connection',
        description: 'Send `{"status": "Unlinked"}` to sever a Linked connection; its data stays readable.',
        tags,
        params: ConnectionIdParams,
        body: Type.Object({ status: Type.Optional(Type.Union(CONNECTION_STATUSES.map((s) => Type.Literal(s)))) }),
        response: { 200: Type.Ref(Connection), ...errorResponses(404) },
      },
    },
    async (request, reply) =>
      sendJson(
        reply,
        await connections.unlink(callerOf(request), request.params.companyId, request.params.connectionId, request.body.status),
      ),
  );

  r.put(
    '/companies/:companyId/connections/:connectionId/authorization',
    {
      schema: {
        operationId: 'update-connection-authorization',
        summary: 'Authorise (link) a connection',
        description:
          'Links the connection without a browser. Sandbox platforms take `{"size": "small" | "medium" | "large"}` or `{"invoices": "<count>"}` (small by default). Queues the first-link syncs.',
        tags,
        params: ConnectionIdParams,
        body: Type.Unsafe<Record<string, unknown> | null>({
          type: ['object', 'null'],
          additionalProperties: { type: ['string', 'number'] },
        }),
        response: { 200: Type.Ref(Connection), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { served } = await connections.authorize(
        callerOf(request),
        request.params.companyId,
        request.params.connectionId,
        request.body ?? {},
      );
      return sendJson(reply, served);
    },
  );
}
