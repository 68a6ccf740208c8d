import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ConnectionIdParams, errorResponses, sendJson, sendNoBody } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import type { UploadSessionsService } from './upload-sessions.service.js';

const tags = ['Bank statements'];
const DatasetParams = Type.Object({
  ...ConnectionIdParams.properties,
  datasetId: Type.String({ format: 'uuid', description: "The upload session's dataset (its pull operation)." }),
});
const base = '/companies/:companyId/connections/:connectionId/bankStatements/upload';

const Configuration = Type.Object(
  {
    source: Type.Literal('codat', { description: 'The source of the banking data that determines its format.' }),
    accountId: Type.String({ description: 'The ID of the account in the third-party platform.' }),
    providerId: Type.Optional(Type.String({ description: 'TrueLayer provider ID (only required if source is TrueLayer).' })),
  },
  { additionalProperties: false, title: 'BankStatementUploadConfiguration' },
);
const AnyObject = Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'] });
const StartRequest = Type.Unsafe<Record<string, unknown> | null>({
  type: ['object', 'null'],
  title: 'StartUploadSessionRequest',
  properties: {
    dataType: {
      type: 'string',
      enum: ['banking-accounts', 'banking-transactions'],
      description: 'The data type the session uploads (banking-transactions when left out).',
    },
  },
});
const EndRequest = Type.Unsafe<Record<string, unknown> | null>({
  type: ['object', 'null'],
  title: 'EndUploadSessionRequest',
  required: ['status'],
  properties: {
    status: { type: 'string', enum: ['Process', 'Cancel'], description: 'Process ingests the uploaded data; Cancel drops it.' },
  },
});
const ConfigurationBody = Type.Unsafe<Record<string, unknown> | null>({
  type: ['object', 'null'],
  title: 'BankStatementUploadConfiguration',
  required: ['source', 'accountId'],
  additionalProperties: false,
  properties: {
    source: { type: 'string', enum: ['codat'] },
    accountId: { type: 'string', minLength: 1 },
    providerId: { type: 'string' },
  },
});

/** Codat's bank statement upload sessions (Lending API), on Bank statement files (`fstm`) connections. */
export function registerUploadSessionRoutes(app: FastifyInstance, deps: { sessions: UploadSessionsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { sessions } = deps;

  r.get(
    `${base}/configuration`,
    {
      schema: {
        operationId: 'get-bank-statement-upload-configuration',
        summary: 'Get upload configuration',
        tags,
        params: ConnectionIdParams,
        response: { 200: Configuration, ...errorResponses(404) },
      },
    },
    async (request, reply) =>
      sendJson(reply, await sessions.getConfiguration(callerOf(request), request.params.companyId, request.params.connectionId)),
  );

  r.post(
    `${base}/configuration`,
    {
      schema: {
        operationId: 'set-bank-statement-upload-configuration',
        summary: 'Set upload configuration',
        description:
          'One configuration per connection and account: uploads are only taken for configured accounts. Setting it again for an account is a 400.',
        tags,
        params: ConnectionIdParams,
        body: ConfigurationBody,
        response: { 200: Configuration, ...errorResponses(404) },
      },
    },
    async (request, reply) =>
      sendJson(
        reply,
        JSON.stringify(
          await sessions.setConfiguration(callerOf(request), request.params.companyId, request.params.connectionId, request.body ?? {}),
        ),
      ),
  );

  r.post(
    `${base}/startSession`,
    {
      schema: {
        operationId: 'start-bank-statement-upload-session',
        summary: 'Start upload session',
        description:
          'Opens a session for `banking-accounts` or `banking-transactions` (one active per data type) and answers its pull operation, `Initial` until the session ends. A session times out after 90 minutes without an upload.',
        tags,
        params: ConnectionIdParams,
        body: StartRequest,
        response: { 200: Type.Ref('PullOperation'), ...errorResponses(404) },
      },
    },
    async (request, reply) =>
      sendJson(reply, await sessions.start(callerOf(request), request.params.companyId, request.params.connectionId, request.body)),
  );

  r.post(
    `${base}/dataset/:datasetId/upload`,
    {
      schema: {
        operationId: 'upload-bank-statement-data',
        summary: 'Upload data',
        description:
          'One page of the session\'s data type in Codat\'s banking schema: a `BankingAccount`, or `BankingTransactions` (`{"results": [...]}`), for configured accounts only.',
        tags,
        params: DatasetParams,
        querystring: Type.Object({
          path: Type.Optional(Type.String({ description: 'Only for sources other than codat (not taken here).' })),
        }),
        body: AnyObject,
        response: { 200: Type.Null({ description: 'Kept.' }), ...errorResponses(404, 413) },
      },
    },
    async (request, reply) => {
      await sessions.upload(
        callerOf(request),
        request.params.companyId,
        request.params.connectionId,
        request.params.datasetId,
        request.body,
      );
      return sendNoBody(reply, 200);
    },
  );

  r.post(
    `${base}/dataset/:datasetId/endSession`,
    {
      schema: {
        operationId: 'end-bank-statement-upload-session',
        summary: 'End upload session',
        description:
          '`{"status": "Process"}` ingests the uploaded pages (the session\'s pull operation syncs the data type); `{"status": "Cancel"}` drops them.',
        tags,
        params: DatasetParams,
        body: EndRequest,
        response: { 200: Type.Null({ description: 'Ended.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await sessions.end(callerOf(request), request.params.companyId, request.params.connectionId, request.params.datasetId, request.body);
      return sendNoBody(reply, 200);
    },
  );
}
