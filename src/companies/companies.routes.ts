import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PagingQuery, pageOf, renderPage } from '../http/paging.js';
import { CompanyIdParams, errorResponses, sendJson } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import { Company, CompanyRequestBody, CompanyUpdateRequest } from './company.schema.js';
import type { CompaniesService } from './companies.service.js';

const tags = ['Companies'];

export function registerCompanyRoutes(app: FastifyInstance, deps: { companies: CompaniesService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { companies } = deps;

  r.get(
    '/companies',
    {
      schema: {
        operationId: 'list-companies',
        summary: 'List companies',
        tags,
        querystring: Type.Object({
          ...PagingQuery,
          tags: Type.Optional(Type.String({ description: 'Filter on tags with =, != and ~, e.g. `region=uk && team=finance`.' })),
        }),
        response: { 200: pageOf(Type.Ref(Company)), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { page = 1, pageSize = 100, query, orderBy, tags: tagFilter } = request.query;
      const { records, totalResults } = await companies.list(callerOf(request), { page, pageSize, query, orderBy }, tagFilter);
      const path = request.url.split('?')[0];
      return sendJson(reply, renderPage({ path, params: request.query, page, pageSize, totalResults, records }));
    },
  );

  r.post(
    '/companies',
    {
      schema: {
        operationId: 'create-company',
        summary: 'Create a company',
        description: 'Answers 402 when a Free trial client already holds 50 companies.',
        tags,
        body: CompanyRequestBody,
        response: { 200: Type.Ref(Company), ...errorResponses() },
      },
    },
    async (request, reply) => sendJson(reply, await companies.create(callerOf(request), request.body)),
  );

  r.get(
    '/companies/:companyId',
    {
      schema: {
        operationId: 'get-company',
        summary: 'Get a company',
        tags,
        params: CompanyIdParams,
        response: { 200: Type.Ref(Company), ...errorResponses(404) },
      },
    },
    async (request, reply) => sendJson(reply, await companies.get(callerOf(request), request.params.companyId)),
  );

  r.put(
    '/companies/:companyId',
    {
      schema: {
        operationId: 'replace-company',
        summary: 'Replace a company',
        description: 'Replaces name, description and tags; a field left out is cleared.',
        tags,
        params: CompanyIdParams,
        body: CompanyRequestBody,
        response: { 200: Type.Ref(Company), ...errorResponses(404) },
      },
    },
    async (request, reply) => sendJson(reply, await companies.replace(callerOf(request), request.params.companyId, request.body)),
  );

  r.patch(
    '/companies/:companyId',
    {
      schema: {
        operationId: 'update-company',
        summary: 'Update a company',
        description: 'Changes only the fields given; `tags: null` or `{}` removes every tag.',
        tags,
        params: CompanyIdParams,
        body: CompanyUpdateRequest,
        response: { 200: Type.Ref(Company), ...errorResponses(404) },
      },
    },
    async (request, reply) => sendJson(reply, await companies.update(callerOf(request), request.params.companyId, request.body)),
  );

  r.delete(
    '/companies/:companyId',
    {
      schema: {
        operationId: 'delete-company',
        summary: 'Delete a company',
        description: 'Deletes the company with its connections and data.',
        tags,
        params: CompanyIdParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await companies.delete(callerOf(request), request.params.companyId);
      return reply.code(204).send(null);
    },
  );
}
