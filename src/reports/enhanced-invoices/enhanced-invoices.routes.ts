import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CompanyIdParams, errorResponses } from '../../http/responses.js';
import { DEFAULT_PAGE_SIZE, PagingQuery } from '../../http/paging.js';
import { callerOf } from '../../clients/caller.js';
import type { EnhancedInvoicesService } from './enhanced-invoices.service.js';

/* GET /companies/{companyId}/reports/enhancedInvoices (Codat's Lending API: list-reconciled-invoices). */

const Text = (description: string) => Type.Optional(Type.String({ description }));
const Amount = (description: string) => Type.Optional(Type.Number({ description }));

const BankingTransactionRef = Type.Object({
  id: Type.String({ description: 'The banking transaction.' }),
  dataConnectionId: Type.String({ description: 'Its banking connection.' }),
  accountId: Type.String({ description: 'Its bank account.' }),
  accountName: Text("The bank account's name."),
  date: Text('Its date (`postedDate`, else `authorizedDate`).'),
  description: Text('Its description.'),
  amount: Amount('Its amount.'),
});

const Payment = Type.Object({
  id: Type.String({ description: 'The payment (or credit note) allocated to the invoice.' }),
  date: Text("The payment's date."),
  paymentType: Type.String({ description: '`payments`, or `creditNotes` for a credit note allocated to the invoice.' }),
  amount: Amount('The amount allocated to the invoice.'),
  currency: Text('The allocation currency.'),
  currencyRate: Type.Optional(Type.Number()),
  bankingTransactionRefs: Type.Array(BankingTransactionRef, {
    description: 'The bank transactions matched to the payment (docs/lending/enhanced-invoices.md); empty when none is.',
  }),
});

const ReportSchema = Type.Object({
  reportInfo: Type.Object({
    pageNumber: Type.Integer(),
    pageSize: Type.Integer(),
    totalResults: Type.Integer(),
    reportName: Type.String(),
    companyName: Text("The company's name."),
    generatedDate: Type.String(),
  }),
  reportItems: Type.Array(
    Type.Object({
      id: Type.String(),
      invoiceNumber: Text(''),
      customerRef: Type.Optional(Type.Object({ id: Type.String(), customerName: Type.Optional(Type.String()) })),
      issueDate: Text(''),
      dueDate: Text(''),
      paidOnDate: Text(''),
      status: Text(''),
      currency: Text(''),
      totalAmount: Amount(''),
      amountDue: Amount(''),
      modifiedDate: Text(''),
      sourceModifiedDate: Text(''),
      payments: Type.Array(Payment),
    }),
  ),
});

export function registerEnhancedInvoicesRoutes(app: FastifyInstance, deps: { enhancedInvoices: EnhancedInvoicesService }): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/companies/:companyId/reports/enhancedInvoices',
    {
      schema: {
        operationId: 'list-reconciled-invoices',
        summary: 'List reconciled invoices',
        description:
          "A page of the company's invoices, each payment with the bank transactions that settled it (docs/lending/enhanced-invoices.md). 409 until invoices and payments have synced.",
        tags: ['Lending reports'],
        params: CompanyIdParams,
        querystring: Type.Object({ page: PagingQuery.page, pageSize: PagingQuery.pageSize, query: PagingQuery.query }),
        response: { 200: ReportSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) =>
      deps.enhancedInvoices.report(callerOf(request), request.params.companyId, {
        page: request.query.page ?? 1,
        pageSize: request.query.pageSize ?? DEFAULT_PAGE_SIZE,
        query: request.query.query,
      }),
  );
}
