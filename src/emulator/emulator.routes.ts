import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import { testClock, type ClocksService } from './clocks.service.js';

const tags = ['Emulator'];
/** The controls answer after a Free trial has expired (the client can still move off its clock): request-guard.ts. */
const config = { emulatorControl: true };

const TestClock = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    frozenTime: Type.String({ format: 'date-time', description: 'The business time of everything on the clock.' }),
    status: Type.Union([Type.Literal('ready'), Type.Literal('advancing')], {
      description: '`advancing` until everything due up to the time asked has run; then `ready`.',
    }),
  },
  { $id: 'TestClock' },
);

const ClockParams = Type.Object({ clockId: Type.String({ format: 'uuid' }) });
const CompanyParams = Type.Object({ companyId: Type.String({ format: 'uuid' }) });
const JoinBody = Type.Object({ clockId: Type.String({ format: 'uuid' }) });

/** The emulator's test clock controls (docs/emulator.md); registered only with `EMULATOR=true`. */
export function registerEmulatorRoutes(app: FastifyInstance, deps: { clocks: ClocksService }): void {
  app.addSchema(TestClock);
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { clocks } = deps;
  const clock = Type.Ref(TestClock);

  r.post(
    '/emulator/clocks',
    {
      config,
      schema: {
        operationId: 'emulator-create-clock',
        summary: 'Create a test clock',
        description: 'A clock frozen at `frozenTime`: companies on it live at that time until it is advanced.',
        tags,
        body: Type.Object({ frozenTime: Type.String({ description: 'An ISO 8601 date-time with its offset.' }) }),
        response: { 201: clock, ...errorResponses() },
      },
    },
    async (request, reply) => reply.code(201).send(await clocks.create(callerOf(request).id, request.body.frozenTime)),
  );

  r.get(
    '/emulator/clocks',
    {
      config,
      schema: {
        operationId: 'emulator-list-clocks',
        summary: 'List test clocks',
        description: "The calling client's clocks, oldest first.",
        tags,
        response: { 200: Type.Object({ results: Type.Array(clock) }), ...errorResponses() },
      },
    },
    async (request) => ({ results: await clocks.list(callerOf(request).id) }),
  );

  r.get(
    '/emulator/clocks/:clockId',
    {
      config,
      schema: {
        operationId: 'emulator-get-clock',
        summary: 'Get a test clock',
        tags,
        params: ClockParams,
        response: { 200: clock, ...errorResponses(404) },
      },
    },
    async (request) => testClock(await clocks.owned(callerOf(request).id, request.params.clockId)),
  );

  r.delete(
    '/emulator/clocks/:clockId',
    {
      config,
      schema: {
        operationId: 'emulator-delete-clock',
        summary: 'Delete a test clock',
        description: 'Answers 409 while companies or the client are on it.',
        tags,
        params: ClockParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      await clocks.delete(callerOf(request).id, request.params.clockId);
      return reply.code(204).send(null);
    },
  );

  r.post(
    '/emulator/clocks/:clockId/advance',
    {
      config,
      schema: {
        operationId: 'emulator-advance-clock',
        summary: 'Advance a test clock',
        description:
          'Moves the clock forward to `to`, or on by `by` (an ISO 8601 duration such as `P30D`). Everything that falls due ' +
          'meanwhile runs in time order (scheduled syncs, write time-outs, webhook retries); the clock is `ready` again at the end.',
        tags,
        params: ClockParams,
        body: Type.Object({
          to: Type.Optional(Type.String({ description: 'An ISO 8601 date-time with its offset, not before the clock.' })),
          by: Type.Optional(Type.String({ description: 'An ISO 8601 duration, e.g. `P30D`, `PT5M`.' })),
        }),
        response: { 202: clock, ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => reply.code(202).send(await clocks.advance(callerOf(request).id, request.params.clockId, request.body)),
  );

  r.put(
    '/emulator/companies/:companyId/clock',
    {
      config,
      schema: {
        operationId: 'emulator-set-company-clock',
        summary: 'Put a company on a test clock',
        description: "From now on the company's paths, syncs, writes and events read the clock.",
        tags,
        params: CompanyParams,
        body: JoinBody,
        response: { 200: clock, ...errorResponses(404) },
      },
    },
    async (request) => clocks.joinCompany(callerOf(request).id, request.params.companyId, request.body.clockId),
  );

  r.delete(
    '/emulator/companies/:companyId/clock',
    {
      config,
      schema: {
        operationId: 'emulator-remove-company-clock',
        summary: 'Take a company off its test clock',
        description: "The company follows the client's clock again, or real time.",
        tags,
        params: CompanyParams,
        response: { 204: Type.Null({ description: 'Off its clock.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await clocks.leaveCompany(callerOf(request).id, request.params.companyId);
      return reply.code(204).send(null);
    },
  );

  r.put(
    '/emulator/client/clock',
    {
      config,
      schema: {
        operationId: 'emulator-set-client-clock',
        summary: 'Put the client on a test clock',
        description: 'Paths without a company, and companies without a clock of their own, read this clock.',
        tags,
        body: JoinBody,
        response: { 200: clock, ...errorResponses(404) },
      },
    },
    async (request) => clocks.joinClient(callerOf(request).id, request.body.clockId),
  );

  r.delete(
    '/emulator/client/clock',
    {
      config,
      schema: {
        operationId: 'emulator-remove-client-clock',
        summary: 'Take the client off its test clock',
        tags,
        response: { 204: Type.Null({ description: 'Off its clock.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await clocks.leaveClient(callerOf(request).id);
      return reply.code(204).send(null);
    },
  );
}
