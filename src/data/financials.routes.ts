import { Type, type TObject } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CompanyIdParams, errorResponses } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import { CONNECTORS } from '../connectors/registry.js';
import type { DataSetsService } from './data-sets.service.js';
import { inPeriod } from './financial-statements.js';
import { readStatement, STATEMENTS, type Statement } from './statement-reports.js';

const LocalMonth = (description: string) => Type.String({ format: 'date-time', 'x-date-style': 'local', description });

/**
 * A period of a statement: the fields of the monthly record that `buildPeriods` keeps, as the record schema of the
 * first platform with the data type says them (the schema the data-set routes document).
 */
function periodSchema(statement: Statement): TObject {
  const record = CONNECTORS.find((c) => c.dataTypes.has(statement.dataType))?.dataTypes.get(statement.dataType)?.schema as
    TObject | undefined;
  if (!record?.properties) throw new Error(`no record schema for ${statement.dataType}`);
  const fields = Object.entries(record.properties).filter(([name]) => inPeriod(name, statement.kind));
  return Type.Object(Object.fromEntries(fields), {
    description:
      statement.kind === 'position'
        ? 'The position at the last month of the period that has data.'
        : 'The figures and report lines of the months of the period, added up.',
  });
}

/** What a statement answers. */
function statementSchema(statement: Statement): TObject {
  return Type.Object(
    {
      ...(statement.basis
        ? {
            reportBasis: Type.Literal('Accrual', {
              description: 'The basis of the report: always accrual, as the monthly statements are.',
            }),
          }
        : {}),
      ...('reportInput' in statement
        ? { reportInput: Type.Literal(statement.reportInput, { description: 'How the cash flow is worked out: the direct method.' }) }
        : {}),
      currency: Type.Optional(
        Type.String({
          description: "The company's base currency (from its company info), else the monthly statements'; absent when neither says.",
        }),
      ),
      mostRecentAvailableMonth: Type.Optional(LocalMonth('The first day of the latest month with a statement; absent when there is none.')),
      earliestAvailableMonth: Type.Optional(LocalMonth('The first day of the earliest month with a statement; absent when there is none.')),
      reports: Type.Array(periodSchema(statement), {
        description: 'The periods, most recent first; a period with no month of data is left out.',
      }),
    },
    { description: 'The statement, period by period.' },
  );
}

const PeriodQuery = Type.Object({
  periodLength: Type.Integer({ minimum: 1, maximum: 12, description: 'Months in each period.' }),
  periodsToCompare: Type.Integer({ minimum: 1, maximum: 24, description: 'How many periods to return.' }),
  startMonth: Type.Optional(
    Type.String({
      format: 'date',
      description: 'First month of the earliest period, e.g. `2025-01-01`; by default the periods end at the most recent month.',
    }),
  ),
});

/** Balance sheet, profit and loss and cash flow statement, built from the synced monthly statements. */
export function registerFinancialsRoutes(app: FastifyInstance, deps: { dataSets: DataSetsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  for (const statement of STATEMENTS) {
    r.get(
      `/companies/:companyId/data/financials/${statement.segment}`,
      {
        schema: {
          operationId: `get-${statement.segment}`,
          summary: `Get the ${statement.segment} statement`,
          description:
            statement.kind === 'position' ? 'Each period shows the position at its last month.' : 'Each period adds up its months.',
          tags: ['Accounting data'],
          params: CompanyIdParams,
          querystring: PeriodQuery,
          response: { 200: statementSchema(statement), ...errorResponses(404, 409) },
        },
      },
      async (request) => readStatement(deps.dataSets, callerOf(request), request.params.companyId, statement, request.query),
    );
  }
}
