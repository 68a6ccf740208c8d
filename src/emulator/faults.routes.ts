import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, sendJson } from '../http/responses.js';
import { PagingQuery, renderPage } from '../http/paging.js';
import { callerOf } from '../clients/caller.js';
import { FAULT_ACTION_TYPES, type FaultRule, type Faults } from './faults.js';
import type { Journal } from './journal.js';

const tags = ['Emulator'];
/** The controls answer after a Free trial has expired and count against no limit (request-guard.ts). */
const config = { emulatorControl: true };

const FaultMatch = Type.Object(
  {
    operationId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "Any of Codat's operationIds for the operation, or Ledgerport's own." }),
    ),
    method: Type.Optional(Type.Union(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => Type.Literal(m)))),
    path: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'A path template, e.g. `/companies/{companyId}/data/invoices`.' }),
    ),
    companyId: Type.Optional(Type.String({ format: 'uuid' })),
    connectionId: Type.Optional(Type.String({ format: 'uuid' })),
    dataType: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    eventType: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false, description: 'What a request must be for the rule to fire: every field given must hold.' },
);

const FaultAction = Type.Object(
  {
    type: Type.Union(FAULT_ACTION_TYPES.map((t) => Type.Literal(t))),
    status: Type.Optional(
      Type.Union([Type.Integer(), Type.String()], {
        description: '`http`: the status to answer, 400 to 599; `syncError`: FetchError or AuthError; `pushOutcome`: Failed or TimedOut.',
      }),
    ),
    validation: Type.Optional(
      Type.Object(
        {
          errors: Type.Array(
            Type.Object(
              {
                itemId: Type.Optional(Type.String({ maxLength: 200 })),
                message: Type.String({ minLength: 1, maxLength: 1000 }),
                validatorName: Type.Optional(Type.String({ maxLength: 200 })),
              },
              { additionalProperties: false },
            ),
            { minItems: 1, maxItems: 50 },
          ),
        },
        { additionalProperties: false, description: '`pushOutcome` of `Failed`: the validation errors the write reports.' },
      ),
    ),
    retryAfter: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400, description: '`http`: the `Retry-After` header, in seconds.' })),
    delayMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 60_000,
        description: '`latency`: a fixed delay; `webhook`: a delay, or the longest a reordered delivery is held.',
      }),
    ),
    mode: Type.Optional(Type.String({ description: '`webhook`: duplicate, delay or reorder.' })),
    medianMs: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 60_000, description: '`latency`: a log-normal delay’s median.' })),
    sigma: Type.Optional(Type.Number({ minimum: 0, maximum: 3, description: '`latency`: a log-normal delay’s sigma.' })),
  },
  { additionalProperties: false },
);

const FaultBody = Type.Object(
  {
    match: FaultMatch,
    action: FaultAction,
    times: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Fires this many times, then is spent.' })),
    probability: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Fires on this share of matching requests.' })),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Makes the draws the same run after run.' })),
  },
  { additionalProperties: false },
);

const Fault = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    match: FaultMatch,
    action: FaultAction,
    times: Type.Optional(Type.Integer()),
    probability: Type.Optional(Type.Number()),
    seed: Type.Optional(Type.Integer()),
    created: Type.String({ format: 'date-time' }),
    fired: Type.Integer({ description: 'How many times it has fired.' }),
    spent: Type.Boolean({ description: 'Whether it has fired its `times` and fires no more.' }),
  },
  { $id: 'EmulatorFault' },
);

const JournalEntry = Type.Object(
  {
    method: Type.String(),
    path: Type.String({ description: 'Without the query string.' }),
    operationId: Type.String({
      description: "The canonical operationId: Codat's Platform file's, else Lending's, … else Ledgerport's own.",
    }),
    companyId: Type.Optional(Type.String({ format: 'uuid' })),
    status: Type.Integer({ description: '0 when the connection was closed without an answer.' }),
    durationMs: Type.Number(),
    clockTime: Type.String({ format: 'date-time', description: 'The business time the request ran in.' }),
    requestSha256: Type.String({ description: 'Of the method, the path with its query, and the body as parsed.' }),
    responseSha256: Type.Optional(Type.String({ description: 'Of the answer’s body; absent for a streamed one.' })),
  },
  { $id: 'EmulatorJournalEntry' },
);

const FaultParams = Type.Object({ faultId: Type.String({ format: 'uuid' }) });

/** Fault rules and the request journal (docs/emulator.md); registered only with `EMULATOR=true`. */
export function registerFaultAndJournalRoutes(app: FastifyInstance, deps: { faults: Faults; journal: Journal }): void {
  app.addSchema(Fault);
  app.addSchema(JournalEntry);
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { faults, journal } = deps;
  const fault = Type.Ref(Fault);

  r.post(
    '/emulator/faults',
    {
      config,
      schema: {
        operationId: 'emulator-create-fault',
        summary: 'Create a fault rule',
        description: "The client's matching requests meet the action: an error status, a delay, or a closed connection.",
        tags,
        body: FaultBody,
        response: { 201: fault, ...errorResponses(409) },
      },
    },
    async (request, reply) => reply.code(201).send(await faults.create(callerOf(request).id, request.body as FaultRule)),
  );

  r.get(
    '/emulator/faults',
    {
      config,
      schema: {
        operationId: 'emulator-list-faults',
        summary: 'List fault rules',
        description: "The calling client's rules, in the order they are tried (oldest first).",
        tags,
        response: { 200: Type.Object({ results: Type.Array(fault) }), ...errorResponses() },
      },
    },
    async (request) => ({ results: await faults.list(callerOf(request).id) }),
  );

  r.delete(
    '/emulator/faults',
    {
      config,
      schema: {
        operationId: 'emulator-delete-faults',
        summary: 'Delete every fault rule',
        tags,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses() },
      },
    },
    async (request, reply) => {
      await faults.deleteAll(callerOf(request).id);
      return reply.code(204).send(null);
    },
  );

  r.get(
    '/emulator/faults/:faultId',
    {
      config,
      schema: {
        operationId: 'emulator-get-fault',
        summary: 'Get a fault rule',
        tags,
        params: FaultParams,
        response: { 200: fault, ...errorResponses(404) },
      },
    },
    async (request) => faults.get(callerOf(request).id, request.params.faultId),
  );

  r.delete(
    '/emulator/faults/:faultId',
    {
      config,
      schema: {
        operationId: 'emulator-delete-fault',
        summary: 'Delete a fault rule',
        tags,
        params: FaultParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await faults.delete(callerOf(request).id, request.params.faultId);
      return reply.code(204).send(null);
    },
  );

  r.get(
    '/emulator/requests',
    {
      config,
      schema: {
        operationId: 'emulator-list-requests',
        summary: 'List the request journal',
        description: "The calling client's requests, newest first (the emulator's own controls are not in it).",
        tags,
        querystring: Type.Object({
          page: PagingQuery.page,
          pageSize: PagingQuery.pageSize,
          companyId: Type.Optional(Type.String({ format: 'uuid' })),
          operationId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          status: Type.Optional(Type.Integer({ minimum: 0, maximum: 599 })),
        }),
        response: {
          200: Type.Object({
            results: Type.Array(Type.Ref(JournalEntry)),
            pageNumber: Type.Integer(),
            pageSize: Type.Integer(),
            totalResults: Type.Integer(),
            _links: Type.Object({}, { additionalProperties: true }),
          }),
          ...errorResponses(),
        },
      },
    },
    async (request, reply) => {
      const { page = 1, pageSize = 100, companyId, operationId, status } = request.query;
      const { entries, total } = await journal.page(callerOf(request).id, { companyId, operationId, status, page, pageSize });
      const body = renderPage({
        path: request.url.split('?')[0],
        params: request.query,
        page,
        pageSize,
        totalResults: total,
        records: entries.map((e) => JSON.stringify(e)),
      });
      return sendJson(reply, body);
    },
  );

  r.post(
    '/emulator/requests/verify',
    {
      config,
      schema: {
        operationId: 'emulator-verify-requests',
        summary: 'Verify how many requests the journal holds',
        description:
          'Answers 200 when the journal holds exactly `count` requests of the operation (for the company, when given); 409 when not.',
        tags,
        body: Type.Object(
          {
            operationId: Type.String({ minLength: 1, maxLength: 200 }),
            count: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
            companyId: Type.Optional(Type.String({ format: 'uuid' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ operationId: Type.String(), count: Type.Integer(), seen: Type.Integer() }),
          ...errorResponses(409),
        },
      },
    },
    async (request) => journal.verify(callerOf(request).id, request.body),
  );
}
