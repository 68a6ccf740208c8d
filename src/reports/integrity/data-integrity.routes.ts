import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, sendJson } from '../../http/responses.js';
import { DEFAULT_PAGE_SIZE, PagingQuery, pageOf, renderPage } from '../../http/paging.js';
import { callerOf } from '../../clients/caller.js';
import { INTEGRITY_TYPES } from './integrity-facts.js';
import type { DataIntegrityService } from './data-integrity.service.js';

/*
 * GET /data/companies/{companyId}/assess/dataTypes/{dataType}/dataIntegrity/status, /summaries and /details (Codat's
 * Lending API: get-data-integrity-status, get-data-integrity-summaries, list-data-integrity-details).
 */

const Params = Type.Object({
  companyId: Type.String({ format: 'uuid', description: 'Unique identifier for a company.' }),
  dataType: Type.String({
    description: `The data type matched: ${INTEGRITY_TYPES.map((t) => `\`${t}\``).join(', ')}; another is 404.`,
  }),
});

const TypeName = Type.String({ description: 'The data type matched against (the other side of the one in the URL).' });

const StatusSchema = Type.Object({
  metadata: Type.Array(
    Type.Object({
      type: TypeName,
      statusInfo: Type.Object({
        lastMatched: Type.Optional(Type.String({ description: 'When the matching last ran (absent before it ever has).' })),
        currentStatus: Type.Union(
          ['Unknown', 'DoesNotExist', 'Error', 'Complete'].map((s) => Type.Literal(s)),
          { description: '`DoesNotExist` while either side has nothing synced.' },
        ),
        statusMessage: Type.String(),
      }),
      connectionIds: Type.Object({
        source: Type.Array(Type.String(), { description: 'Connections of the type in the URL.' }),
        target: Type.Array(Type.String(), { description: 'Connections of the type matched against.' }),
      }),
      amounts: Type.Optional(
        Type.Object(
          {
            min: Type.Optional(Type.Number()),
            max: Type.Optional(Type.Number()),
            currency: Type.Optional(Type.String({ description: 'Absent when the transactions are in more than one currency.' })),
          },
          { description: 'Transactions only: the lowest and highest amount of the type in the URL.' },
        ),
      ),
      dates: Type.Optional(
        Type.Object(
          {
            minDate: Type.Optional(Type.String()),
            maxDate: Type.Optional(Type.String()),
            minOverlappingDate: Type.Optional(Type.String({ description: 'The first day both sides have transactions for.' })),
            maxOverlappingDate: Type.Optional(Type.String({ description: 'The last day both sides have transactions for.' })),
          },
          { description: 'Transactions only.' },
        ),
      ),
    }),
  ),
});

const Counts = Type.Object({
  matchPercentage: Type.Number({ description: 'matched / total × 100 (0 when there are none).' }),
  matched: Type.Number(),
  unmatched: Type.Number(),
  total: Type.Number(),
});

const SummariesSchema = Type.Object({
  summaries: Type.Array(
    Type.Object({
      type: TypeName,
      byAmount: Type.Optional(
        Type.Object(
          {
            ...Counts.properties,
            currency: Type.Optional(Type.String({ description: 'Absent when the amounts are in more than one currency.' })),
          },
          { description: 'Transactions only: absolute amounts, no conversion.' },
        ),
      ),
      byCount: Counts,
    }),
    { description: 'Empty while either side has nothing synced.' },
  ),
});

const Match = Type.Object({
  id: Type.String(),
  type: TypeName,
  connectionId: Type.String(),
  date: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  amount: Type.Optional(Type.String({ description: 'The amount as text (as Codat types it).' })),
  currency: Type.Optional(Type.String()),
  accountName: Type.Optional(Type.String()),
  institution: Type.Optional(Type.String()),
  matchPass: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 4, description: 'Ledgerport: the pass that made the match (docs/lending/matching.md).' }),
  ),
});

const DetailSchema = Type.Object({
  id: Type.String({ description: '`{accountId}_{id}` for account transactions; the record id otherwise.' }),
  type: Type.String(),
  connectionId: Type.String(),
  date: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  amount: Type.Optional(Type.Number()),
  currency: Type.Optional(Type.String()),
  accountName: Type.Optional(Type.String()),
  institution: Type.Optional(Type.String()),
  matches: Type.Array(Match, { description: 'Empty when unmatched.' }),
});

export function registerDataIntegrityRoutes(app: FastifyInstance, deps: { dataIntegrity: DataIntegrityService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const base = '/data/companies/:companyId/assess/dataTypes/:dataType/dataIntegrity';
  const common = { tags: ['Data integrity'], params: Params };
  r.get(
    `${base}/status`,
    {
      schema: {
        ...common,
        operationId: 'get-data-integrity-status',
        summary: 'Get data integrity status',
        description: 'Whether the type has been matched against its counterpart, when, over which connections, amounts and dates.',
        response: { 200: StatusSchema, ...errorResponses(404) },
      },
    },
    async (request) => deps.dataIntegrity.status(callerOf(request), request.params.companyId, request.params.dataType),
  );
  r.get(
    `${base}/summaries`,
    {
      schema: {
        ...common,
        operationId: 'get-data-integrity-summaries',
        summary: 'Get data integrity summaries',
        description: 'How much of the type is matched, by count and by absolute amount, over the records `query` selects.',
        querystring: Type.Object({ query: PagingQuery.query }),
        response: { 200: SummariesSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) =>
      deps.dataIntegrity.summaries(callerOf(request), request.params.companyId, request.params.dataType, request.query.query),
  );
  r.get(
    `${base}/details`,
    {
      schema: {
        ...common,
        operationId: 'list-data-integrity-details',
        summary: 'List data integrity details',
        description: 'The records of the type, each with what it matched (by date, then id, unless `orderBy` says otherwise).',
        querystring: Type.Object(PagingQuery),
        response: { 200: pageOf(DetailSchema), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const page = request.query.page ?? 1;
      const pageSize = request.query.pageSize ?? DEFAULT_PAGE_SIZE;
      const { results, totalResults } = await deps.dataIntegrity.details(
        callerOf(request),
        request.params.companyId,
        request.params.dataType,
        { page, pageSize, query: request.query.query, orderBy: request.query.orderBy },
      );
      return sendJson(
        reply,
        renderPage({
          path: request.url.split('?')[0],
          params: request.query,
          page,
          pageSize,
          totalResults,
          records: results.map((result) => JSON.stringify(result)),
        }),
      );
    },
  );
}
