import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/responses.js';
import { callerOf } from '../../clients/caller.js';
import { COMMERCE_REPORTS, type CommerceReportName } from './commerce-metrics.js';
import { MAX_SPAN_DAYS, PERIOD_UNITS } from './commerce-periods.js';
import type { CommerceMetricsService } from './commerce-metrics.service.js';

/*
 * GET /data/companies/{companyId}/connections/{connectionId}/assess/commerceMetrics/revenue, /orders, /refunds,
 * /customerRetention and /lifetimeValue (Codat's Lending API: get-commerce-revenue-metrics, get-commerce-orders-report,
 * get-commerce-refunds-report, get-commerce-customer-retention-metrics, get-commerce-lifetime-value-metrics).
 */

const OPERATIONS: Record<CommerceReportName, [operationId: string, summary: string]> = {
  revenue: ['get-commerce-revenue-metrics', 'Get commerce revenue metrics'],
  orders: ['get-commerce-orders-report', 'Get commerce orders report'],
  refunds: ['get-commerce-refunds-report', 'Get commerce refunds report'],
  customerRetention: ['get-commerce-customer-retention-metrics', 'Get commerce customer retention metrics'],
  lifetimeValue: ['get-commerce-lifetime-value-metrics', 'Get commerce lifetime value metrics'],
};

const Params = Type.Object({
  companyId: Type.String({ format: 'uuid', description: 'Unique identifier for a company.' }),
  connectionId: Type.String({ format: 'uuid', description: 'The commerce connection.' }),
});

const Query = Type.Object({
  reportDate: Type.String({
    description: 'The last day of the last period (included), `dd-MM-yyyy` or `yyyy-MM-dd`.',
    examples: ['29-09-2020'],
  }),
  periodUnit: Type.String({ description: `${PERIOD_UNITS.join(', ')}.`, examples: ['Month'] }),
  periodLength: Type.String({ description: 'Units per period, a whole number from 1.', examples: ['1'] }),
  numberOfPeriods: Type.String({
    description: `Periods, a whole number from 1; together at most ${MAX_SPAN_DAYS} days.`,
    examples: ['6'],
  }),
  includeDisplayNames: Type.Optional(
    Type.String({ description: '`true` adds display names to the report data. Default false.', examples: ['false'] }),
  ),
});

const Report = Type.Object({
  reportInfo: Type.Object({ name: Type.String(), displayName: Type.String() }),
  dimensions: Type.Array(
    Type.Object({
      index: Type.Integer(),
      displayName: Type.String(),
      type: Type.String(),
      items: Type.Array(
        Type.Object({
          index: Type.Integer(),
          displayName: Type.Optional(Type.String()),
          start: Type.Optional(Type.String({ description: "The period's first day." })),
          end: Type.Optional(Type.String({ description: "The period's last day." })),
          value: Type.Optional(Type.String()),
        }),
      ),
    }),
  ),
  measures: Type.Array(
    Type.Object({ index: Type.Integer(), displayName: Type.String(), type: Type.String(), units: Type.Optional(Type.String()) }),
  ),
  reportData: Type.Array(
    Type.Object({
      dimension: Type.Integer(),
      dimensionDisplayName: Type.Optional(Type.String()),
      item: Type.Integer(),
      itemDisplayName: Type.Optional(Type.String()),
      components: Type.Array(
        Type.Object({
          dimension: Type.Integer(),
          dimensionDisplayName: Type.Optional(Type.String()),
          item: Type.Integer(),
          itemDisplayName: Type.Optional(Type.String()),
          measures: Type.Array(
            Type.Object({ index: Type.Integer(), measureDisplayName: Type.Optional(Type.String()), value: Type.Number() }),
            { description: 'Empty where the figure cannot be computed (revenue growth without a previous period or revenue).' },
          ),
        }),
      ),
    }),
  ),
  errors: Type.Array(
    Type.Object({ message: Type.String(), type: Type.String(), details: Type.Record(Type.String(), Type.Array(Type.String())) }),
  ),
});

export function registerCommerceMetricsRoutes(app: FastifyInstance, deps: { commerceMetrics: CommerceMetricsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const name of Object.keys(COMMERCE_REPORTS) as CommerceReportName[]) {
    const [operationId, summary] = OPERATIONS[name];
    r.get(
      `/data/companies/:companyId/connections/:connectionId/assess/commerceMetrics/${name}`,
      {
        schema: {
          operationId,
          summary,
          description: `${COMMERCE_REPORTS[name].displayName} per period, from the connection's orders (docs/lending/commerce-metrics.md). 409 until orders, customers and company info have synced.`,
          tags: ['Commerce metrics'],
          params: Params,
          querystring: Query,
          response: { 200: Report, ...errorResponses(400, 404, 409) },
        },
      },
      async (request) =>
        deps.commerceMetrics.report(callerOf(request), request.params.companyId, request.params.connectionId, name, request.query),
    );
  }
}
