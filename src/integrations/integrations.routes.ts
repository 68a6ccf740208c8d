import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PagingQuery, pageOf, renderPage } from '../http/paging.js';
import { errorResponses, sendJson } from '../http/responses.js';
import { findPlatform } from '../connectors/registry.js';
import { notFound } from '../http/api-error.js';
import { Integration } from './integration.schema.js';
import type { IntegrationsService } from './integrations.service.js';
import { platformLogoSvg } from './platform-logo.js';

const tags = ['Integrations'];
const PlatformKeyParams = Type.Object({
  platformKey: Type.String({ pattern: '^[a-z]{4}$', description: 'Four lower-case letters, e.g. `mqjo`.' }),
});

export function registerIntegrationRoutes(app: FastifyInstance, deps: { integrations: IntegrationsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/integrations',
    {
      schema: {
        operationId: 'list-integrations',
        summary: 'List integrations',
        description: 'The platforms this server can connect to, e.g. `query=sourceType=Accounting&&enabled=true`.',
        tags,
        querystring: Type.Object(PagingQuery),
        response: { 200: pageOf(Type.Ref(Integration)), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const { page = 1, pageSize = 100, query, orderBy } = request.query;
      const { records, totalResults } = await deps.integrations.list({ page, pageSize, query, orderBy });
      return sendJson(reply, renderPage({ path: request.url.split('?')[0], params: request.query, page, pageSize, totalResults, records }));
    },
  );

  r.get(
    '/integrations/:platformKey',
    {
      schema: {
        operationId: 'get-integration',
        summary: 'Get an integration',
        tags,
        params: PlatformKeyParams,
        response: { 200: Type.Ref(Integration), ...errorResponses(404) },
      },
    },
    async (request, reply) => sendJson(reply, await deps.integrations.get(request.params.platformKey)),
  );

  r.get(
    '/integrations/:platformKey/logo.svg',
    {
      config: { public: true },
      schema: { hide: true, params: PlatformKeyParams },
    },
    async (request, reply) => {
      const platform = findPlatform(request.params.platformKey);
      if (!platform) throw notFound(`IntegrationNotFoundException: No integration was found with key ${request.params.platformKey}`);
      return reply.type('image/svg+xml').header('Cache-Control', 'public, max-age=86400').send(platformLogoSvg(platform));
    },
  );
}
