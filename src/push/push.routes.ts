import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PagingQuery, pageOf, renderPage } from '../http/paging.js';
import { CompanyIdParams, errorResponses, sendJson } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import type { WriteOperation } from '../connectors/connector.js';
import { PushOperation, PushOperationWithData } from './push-operation.js';
import { PushOption } from './push-option.js';
import { BankTransactionBatch } from './bank-transaction-batch.js';
import type { PushService, WriteRequest } from './push.service.js';

const tags = ['Push data'];

const ConnectionParams = Type.Object({
  ...CompanyIdParams.properties,
  connectionId: Type.String({ format: 'uuid', description: 'GUID of the connection written to.' }),
});
const DataTypeParams = Type.Object({
  ...ConnectionParams.properties,
  dataType: Type.String({ description: 'An accounting data type the platform accepts writes of, e.g. `invoices`.' }),
});
const RecordParams = Type.Object({
  ...DataTypeParams.properties,
  recordId: Type.String({ minLength: 1, description: 'Id of the record on the platform.' }),
});

const WriteQuery = {
  timeoutInMinutes: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 10080,
      description: 'The write times out if the platform has not completed it within this many minutes.',
    }),
  ),
  allowSyncOnPushComplete: Type.Optional(
    Type.Boolean({
      default: true,
      description: 'Queue a sync of the data type when the write succeeds, so the record shows in reads at once.',
    }),
  ),
};
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'A retried request with the same key returns the first operation instead of writing twice.',
    }),
  ),
});
const BankAccountParams = Type.Object({
  ...ConnectionParams.properties,
  accountId: Type.String({ minLength: 1, description: 'Id of the bank account (a `bankAccounts` record) written to.' }),
});
const RecordBody = Type.Record(Type.String(), Type.Unknown(), {
  description:
    "The record in the data type's shape, without the read-only `id`, `modifiedDate`, `sourceModifiedDate` and `metadata`. `GET …/options/{dataType}` lists its fields.",
});

function requestLine(request: FastifyRequest): string {
  return `${request.method} ${request.url.split('?')[0]}`;
}

/** What every write request carries besides its data type and operation: where it goes, its body, query and key. */
function writeParts(request: FastifyRequest) {
  const { companyId, connectionId } = request.params as { companyId: string; connectionId: string };
  return {
    companyId,
    connectionId,
    body: request.body,
    ...(request.query as Pick<WriteRequest, 'timeoutInMinutes' | 'allowSyncOnPushComplete' | 'forceUpdate'>),
    idempotencyKey: request.headers['idempotency-key'] as string | undefined,
    requestLine: requestLine(request),
  };
}

export function registerPushRoutes(app: FastifyInstance, deps: { push: PushService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { push } = deps;
  const writeResponses = { 200: PushOperationWithData, ...errorResponses(404, 405) };
  const describe = (operation: WriteOperation) =>
    `${operation === 'Create' ? 'Creates' : operation === 'Update' ? 'Replaces' : 'Deletes'} a record on the connection's platform. ` +
    'Answers 200 with the Pending push operation at once; the platform processes the write asynchronously ' +
    '(follow it with `GET /companies/{companyId}/push/{pushOperationKey}` or the `{dataType}.write.*` webhooks).';

  r.post(
    '/companies/:companyId/connections/:connectionId/push/:dataType',
    {
      schema: {
        operationId: 'create-record',
        summary: 'Create a record',
        description: describe('Create'),
        tags,
        params: DataTypeParams,
        querystring: Type.Object(WriteQuery),
        headers: IdempotencyHeaders,
        body: RecordBody,
        response: writeResponses,
      },
    },
    async (request, reply) =>
      sendJson(
        reply,
        await push.write(callerOf(request), { ...writeParts(request), dataType: request.params.dataType, operation: 'Create' }),
      ),
  );

  // Codat's create-account path: its data type is chartOfAccounts (the path segment of reads is `accounts` too).
  r.post(
    '/companies/:companyId/connections/:connectionId/push/accounts',
    {
      schema: {
        operationId: 'create-account',
        summary: 'Create an account',
        description: `${describe('Create')} The account is a \`chartOfAccounts\` record; \`GET …/options/chartOfAccounts\` lists its fields.`,
        tags,
        params: ConnectionParams,
        querystring: Type.Object(WriteQuery),
        headers: IdempotencyHeaders,
        body: RecordBody,
        response: writeResponses,
      },
    },
    async (request, reply) =>
      sendJson(reply, await push.write(callerOf(request), { ...writeParts(request), dataType: 'chartOfAccounts', operation: 'Create' })),
  );

  r.post(
    '/companies/:companyId/connections/:connectionId/push/bankAccounts/:accountId/bankTransactions',
    {
      schema: {
        operationId: 'create-bank-transactions',
        summary: 'Create bank account transactions',
        description:
          'Creates a batch of transactions in one bank account: one push operation of data type `bankTransactions` that ' +
          'creates every transaction of the batch on the platform, or none of them. Answers 200 with the Pending operation at ' +
          'once; on success its `changes` name each transaction created. `GET …/options/bankAccounts/{accountId}/bankTransactions` ' +
          'lists the fields.',
        tags,
        params: BankAccountParams,
        querystring: Type.Object(WriteQuery),
        headers: IdempotencyHeaders,
        body: RecordBody,
        documentedBody: BankTransactionBatch,
        response: writeResponses,
      },
    },
    async (request, reply) =>
      sendJson(
        reply,
        await push.write(callerOf(request), {
          ...writeParts(request),
          dataType: 'bankTransactions',
          operation: 'Create',
          batchAccountId: request.params.accountId,
        }),
      ),
  );

  r.put(
    '/companies/:companyId/connections/:connectionId/push/:dataType/:recordId',
    {
      schema: {
        operationId: 'update-record',
        summary: 'Update a record',
        description: describe('Update'),
        tags,
        params: RecordParams,
        querystring: Type.Object({
          ...WriteQuery,
          forceUpdate: Type.Optional(
            Type.Boolean({ default: false, description: 'Change a record the platform treats as settled (a paid or void document).' }),
          ),
        }),
        headers: IdempotencyHeaders,
        body: RecordBody,
        response: writeResponses,
      },
    },
    async (request, reply) =>
      sendJson(reply, await push.write(callerOf(request), { ...writeParts(request), ...request.params, operation: 'Update' })),
  );

  r.delete(
    '/companies/:companyId/connections/:connectionId/push/:dataType/:recordId',
    {
      schema: {
        operationId: 'delete-record',
        summary: 'Delete a record',
        description: describe('Delete'),
        tags,
        params: RecordParams,
        querystring: Type.Object(WriteQuery),
        headers: IdempotencyHeaders,
        response: writeResponses,
      },
    },
    async (request, reply) =>
      sendJson(
        reply,
        await push.write(callerOf(request), { ...writeParts(request), ...request.params, operation: 'Delete', body: undefined }),
      ),
  );

  r.get(
    '/companies/:companyId/push',
    {
      schema: {
        operationId: 'get-company-push-history',
        summary: 'Push history',
        description: "The company's write operations, newest first unless `orderBy` says otherwise.",
        tags,
        params: CompanyIdParams,
        querystring: Type.Object(PagingQuery),
        response: { 200: pageOf(Type.Ref(PushOperation)), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { page = 1, pageSize = 100, query, orderBy } = request.query;
      const { records, totalResults } = await push.history(callerOf(request), request.params.companyId, { page, pageSize, query, orderBy });
      return sendJson(reply, renderPage({ path: request.url.split('?')[0], params: request.query, page, pageSize, totalResults, records }));
    },
  );

  r.get(
    '/companies/:companyId/push/:pushOperationKey',
    {
      schema: {
        operationId: 'get-push-operation',
        summary: 'One push operation',
        tags,
        params: Type.Object({ ...CompanyIdParams.properties, pushOperationKey: Type.String({ format: 'uuid' }) }),
        response: { 200: Type.Ref(PushOperation), ...errorResponses(404) },
      },
    },
    async (request, reply) =>
      sendJson(reply, await push.operation(callerOf(request), request.params.companyId, request.params.pushOperationKey)),
  );

  r.get(
    '/companies/:companyId/connections/:connectionId/options/:dataType',
    {
      schema: {
        operationId: 'get-create-update-model-options-by-data-type',
        summary: 'Write options of a data type',
        description: 'The fields the platform takes when a record of the data type is created or updated, and which are required.',
        tags,
        params: DataTypeParams,
        response: { 200: Type.Ref(PushOption), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { companyId, connectionId, dataType } = request.params;
      return sendJson(reply, await push.options(callerOf(request), companyId, connectionId, dataType));
    },
  );

  r.get(
    '/companies/:companyId/connections/:connectionId/options/bankAccounts/:accountId/bankTransactions',
    {
      schema: {
        operationId: 'get-create-bank-transactions-model',
        summary: 'Write options of bank account transactions',
        description:
          'The fields a batch of bank transactions to one account takes (`POST …/push/bankAccounts/{accountId}/bankTransactions`).',
        tags,
        params: BankAccountParams,
        response: { 200: Type.Ref(PushOption), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { companyId, connectionId } = request.params;
      return sendJson(reply, await push.batchOptions(callerOf(request), companyId, connectionId));
    },
  );
}
