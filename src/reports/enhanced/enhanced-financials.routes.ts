import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CompanyIdParams, ConnectionIdParams, errorResponses } from '../../http/responses.js';
import { callerOf } from '../../clients/caller.js';
import { ENHANCED_BOUNDS } from './enhanced-parameters.js';
import { ENHANCED_REPORTS, type EnhancedFinancialsService, type EnhancedReportName } from './enhanced-financials.service.js';

/*
 * GET /companies/{companyId}/reports/enhancedProfitAndLoss/accounts and …/enhancedBalanceSheet/accounts (Codat's
 * Lending API, get-categorized-profit-and-loss-statement and get-categorized-balance-sheet-statement), and Ledgerport's
 * recategorisation: PUT and DELETE …/connections/{connectionId}/accounts/{accountId}/category.
 */

const AccountCategorySchema = Type.Object(
  {
    status: Type.Union([Type.Literal('Suggested'), Type.Literal('Confirmed')], {
      description: '`Suggested` by the mapper, or `Confirmed` by the client (which replaces the suggestion).',
    }),
    levels: Type.Array(
      Type.Object({
        levelName: Type.String({ description: "The level's name in Codat's v3 account categories." }),
        confidence: Type.Optional(Type.Number({ description: 'How sure the mapper is of this level, 0 to 1; only when Suggested.' })),
      }),
      { description: 'From level 1 down, as deep as the category goes (at most 5).' },
    ),
    ruleId: Type.Optional(Type.String({ description: "Ledgerport's extension: the mapper's rule that suggested it (Suggested only)." })),
  },
  { description: "The account's category on Codat's v3 taxonomy (docs/lending/account-categories.md)." },
);

function reportSchema(name: EnhancedReportName) {
  return Type.Object(
    {
      reportInfo: Type.Object({
        reportName: Type.String({ description: `\`${ENHANCED_REPORTS[name].reportName}\`.` }),
        companyName: Type.String({ description: "The company's name." }),
        currency: Type.Optional(Type.String({ description: "The statements' currency: the company's base currency where known." })),
        generatedDate: Type.String({ format: 'date-time', description: 'When the report was made (UTC).' }),
      }),
      reportItems: Type.Array(
        Type.Object({
          date: Type.String({ description: 'The last day of the month (midnight).' }),
          balance: Type.Number({
            description:
              name === 'enhancedBalanceSheet'
                ? "The account's balance at the month's end, positive in its category's normal direction."
                : "The account's amount for the month, positive in its category's normal direction.",
          }),
          accountName: Type.String({ description: "The account's name as the statement shows it." }),
          accountId: Type.String({ description: "The account's id." }),
          accountCategory: AccountCategorySchema,
        }),
        { description: 'One item per account and month: by date, then category path, then account name.' },
      ),
    },
    { description: 'Every account line of the monthly statements, categorised (docs/lending/enhanced-financials.md).' },
  );
}

const ReportQuery = (name: EnhancedReportName) =>
  Type.Object({
    reportDate: ENHANCED_REPORTS[name].dateRequired
      ? Type.String({ description: 'A day of the last month to report, `dd-MM-yyyy` or `yyyy-MM-dd`. Required.', examples: ['29-09-2020'] })
      : Type.Optional(
          Type.String({
            description: 'A day of the last month to report, `dd-MM-yyyy` or `yyyy-MM-dd`. Default: the last month with data.',
            examples: ['29-09-2020'],
          }),
        ),
    numberOfPeriods: Type.Optional(
      Type.Integer({ ...ENHANCED_BOUNDS.numberOfPeriods, description: 'Calendar months ending with the report date’s. Default 12.' }),
    ),
  });

const CategoryParams = Type.Object({
  ...ConnectionIdParams.properties,
  accountId: Type.String({ minLength: 1, maxLength: 1000, description: "The account's id (URL-encoded)." }),
});

const CategoryAnswer = Type.Object({
  accountId: Type.String(),
  accountCategory: AccountCategorySchema,
});

export function registerEnhancedFinancialsRoutes(app: FastifyInstance, deps: { enhanced: EnhancedFinancialsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const meta = {
    enhancedProfitAndLoss: {
      operationId: 'get-categorized-profit-and-loss-statement',
      summary: 'Get categorized profit and loss statement',
    },
    enhancedBalanceSheet: { operationId: 'get-categorized-balance-sheet-statement', summary: 'Get categorized balance sheet statement' },
  } as const;
  for (const name of Object.keys(ENHANCED_REPORTS) as EnhancedReportName[]) {
    r.get(
      `/companies/:companyId/reports/${name}/accounts`,
      {
        schema: {
          ...meta[name],
          description: `Every account of the company's monthly ${ENHANCED_REPORTS[name].statement === 'profitAndLoss' ? 'profit and loss' : 'balance sheet'} per calendar month, with its category on Codat's v3 taxonomy (docs/lending/enhanced-financials.md). 409 until the statements and the chart of accounts have synced.`,
          tags: ['Lending reports'],
          params: CompanyIdParams,
          querystring: ReportQuery(name),
          response: { 200: reportSchema(name), ...errorResponses(404, 409) },
        },
      },
      async (request) => deps.enhanced.report(callerOf(request), request.params.companyId, name, request.query as Record<string, unknown>),
    );
  }

  r.put(
    '/companies/:companyId/connections/:connectionId/accounts/:accountId/category',
    {
      schema: {
        operationId: 'set-account-category',
        summary: 'Confirm an account category',
        description:
          "Ledgerport's extension (Codat recategorises in its Portal only): confirms or changes an account's category, a path of Codat's v3 taxonomy. Later enhanced reports show it as `Confirmed` for every month; `accountCategories.updated` is sent.",
        tags: ['Lending reports'],
        params: CategoryParams,
        body: Type.Object({
          category: Type.String({
            maxLength: 500,
            description: 'A taxonomy path, dot-joined, e.g. `Expense.Operating.Travel`.',
            examples: ['Expense.Operating.Travel'],
          }),
        }),
        response: { 200: CategoryAnswer, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const { companyId, connectionId, accountId } = request.params;
      return deps.enhanced.setCategory(callerOf(request), companyId, connectionId, accountId, request.body.category);
    },
  );
  r.delete(
    '/companies/:companyId/connections/:connectionId/accounts/:accountId/category',
    {
      schema: {
        operationId: 'delete-account-category',
        summary: 'Drop a confirmed account category',
        description:
          "Ledgerport's extension: drops the account's confirmed category, so reports show the suggestion again (answered); `accountCategories.updated` is sent when there was one.",
        tags: ['Lending reports'],
        params: CategoryParams,
        response: { 200: CategoryAnswer, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const { companyId, connectionId, accountId } = request.params;
      return deps.enhanced.setCategory(callerOf(request), companyId, connectionId, accountId, null);
    },
  );
}
