import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import type { EventFiring } from './fired-events.js';

/** The controls answer after a Free trial has expired and count against no limit (request-guard.ts). */
const config = { emulatorControl: true };

const FireBody = Type.Object(
  {
    type: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'An event type the service sends; an unknown one is answered with the list of known ones.',
    }),
    companyId: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'The company the event is about (company, connection, read, write and category events).',
      }),
    ),
    connectionId: Type.Optional(
      Type.String({ format: 'uuid', description: "The connection the event is about; by default the company's first." }),
    ),
    dataType: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: '`read.completed`: the data type reported.' })),
  },
  { additionalProperties: false },
);

const Fired = Type.Object({
  id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: "The event's id; null when none of the client's consumers wants the event (nothing is recorded then).",
  }),
  type: Type.String(),
  companyId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  deliveries: Type.Integer({ description: 'Deliveries queued: one per enabled consumer that wants the event.' }),
});

/** `POST /emulator/events` (docs/emulator.md, "Fired events"); registered only with `EMULATOR=true`. */
export function registerEventRoutes(app: FastifyInstance, deps: { events: EventFiring }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/emulator/events',
    {
      config,
      schema: {
        operationId: 'emulator-fire-event',
        summary: 'Fire a webhook event',
        description:
          "Records the event the service would send, with its payload made from the company's current state, and delivers it to the client's consumers that want it the way every event is delivered: signed, retried, in the delivery log.",
        tags: ['Emulator'],
        body: FireBody,
        response: { 202: Fired, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => reply.code(202).send(await deps.events.fire(callerOf(request), request.body)),
  );
}
