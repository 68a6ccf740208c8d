import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import { apiKeyDetails, MAX_API_KEYS, type ApiKeysService } from './api-keys.service.js';

const tags = ['API keys'];

export const ApiKeyDetails = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.Union([Type.String(), Type.Null()]),
    apiKey: Type.Optional(Type.String({ description: 'The key in full; only in the response that created it.' })),
    createdDate: Type.String({ format: 'date-time' }),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'After this the key is outdated (403).' })),
  },
  { $id: 'ApiKeyDetails' },
);

const CreateApiKey = Type.Object({ name: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()])) });

export function registerApiKeyRoutes(app: FastifyInstance, deps: { apiKeys: ApiKeysService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { apiKeys } = deps;

  r.get(
    '/apiKeys',
    {
      schema: {
        operationId: 'list-api-keys',
        summary: 'List API keys',
        description: 'Keys are stored hashed, so listed keys carry no `apiKey` value.',
        tags,
        response: { 200: Type.Object({ results: Type.Array(Type.Ref(ApiKeyDetails)) }), ...errorResponses() },
      },
    },
    async (request) => ({ results: (await apiKeys.list(callerOf(request).id)).map(apiKeyDetails) }),
  );

  r.post(
    '/apiKeys',
    {
      schema: {
        operationId: 'create-api-key',
        summary: 'Create an API key',
        description: `The response is the only time the key is shown. At most ${MAX_API_KEYS} keys: the next answers 409.`,
        tags,
        // The body is optional (`Type.Optional` alone does not make a root schema accept an absent body, which
        // is validated as null): no body, as the official SDK sends for `createApiKey()`, creates an unnamed key.
        body: Type.Unsafe<Static<typeof CreateApiKey> | null>({ ...CreateApiKey, type: ['object', 'null'] }),
        response: { 201: Type.Ref(ApiKeyDetails), ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const key = await apiKeys.create(callerOf(request).id, { name: request.body?.name ?? null });
      return reply.code(201).send(apiKeyDetails(key));
    },
  );

  r.delete(
    '/apiKeys/:apiKeyId',
    {
      schema: {
        operationId: 'delete-api-key',
        summary: 'Delete an API key',
        description: 'Takes effect at once, including for the key that makes the call.',
        tags,
        params: Type.Object({ apiKeyId: Type.String({ format: 'uuid' }) }),
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await apiKeys.delete(callerOf(request).id, request.params.apiKeyId);
      return reply.code(204).send(null);
    },
  );
}
