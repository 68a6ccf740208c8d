import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, sendJson } from '../http/responses.js';
import { callerOf } from './caller.js';
import type { ClientsStore } from './clients.store.js';
import { normalizeProfile, Profile, ProfileUpdate } from './profile.js';

const tags = ['Settings'];

export function registerProfileRoutes(app: FastifyInstance, deps: { clients: ClientsStore }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/profile',
    {
      schema: { operationId: 'get-profile', summary: 'Get the profile', tags, response: { 200: Type.Ref(Profile), ...errorResponses() } },
    },
    async (request, reply) => {
      const profile = await deps.clients.getProfile(callerOf(request).id);
      return sendJson(reply, profile ?? '{}');
    },
  );

  r.put(
    '/profile',
    {
      schema: {
        operationId: 'update-profile',
        summary: 'Update the profile',
        description: 'Name, logo and redirect address used by the hosted Link page.',
        tags,
        body: ProfileUpdate,
        response: { 200: Type.Ref(Profile), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const json = JSON.stringify(normalizeProfile(request.body));
      await deps.clients.setProfile(callerOf(request).id, json);
      return sendJson(reply, json);
    },
  );
}
