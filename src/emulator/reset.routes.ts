import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import type { Reset } from './reset.js';

/** The controls answer after a Free trial has expired and count against no limit (request-guard.ts). */
const config = { emulatorControl: true };

const ResetOutcome = Type.Object({
  companies: Type.Integer({ description: 'Companies deleted, with everything they owned.' }),
  webhookConsumers: Type.Integer({ description: 'Webhook consumers deleted, with their events and deliveries.' }),
  clocks: Type.Integer({ description: 'Test clocks deleted, with the work due on them.' }),
  faultRules: Type.Integer({ description: 'Fault rules deleted.' }),
});

/** `POST /emulator/reset` (docs/emulator.md, "Reset"); registered only with `EMULATOR=true`. */
export function registerResetRoutes(app: FastifyInstance, deps: { reset: Reset }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/emulator/reset',
    {
      config,
      schema: {
        operationId: 'emulator-reset',
        summary: 'Reset the client',
        description:
          "Deletes the client's companies with everything they own, its webhook consumers, sync settings, test clocks, fault rules and request journal; its API keys, plan and profile stay. 409 while a sync is reading, a write is pending or a webhook delivery is being sent.",
        tags: ['Emulator'],
        response: { 200: ResetOutcome, ...errorResponses(409) },
      },
    },
    async (request) => deps.reset.reset(callerOf(request).id),
  );
}
