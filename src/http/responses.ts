import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';

export const ErrorMessage = Type.Object(
  {
    statusCode: Type.Integer(),
    service: Type.String(),
    error: Type.String(),
    correlationId: Type.String({ format: 'uuid' }),
    validation: Type.Optional(
      Type.Object({
        errors: Type.Array(
          Type.Object({ itemId: Type.Optional(Type.String()), message: Type.String(), validatorName: Type.Optional(Type.String()) }),
        ),
        warnings: Type.Array(Type.Unknown()),
      }),
    ),
  },
  { $id: 'ErrorMessage', description: 'The error body every failure carries.' },
);

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request: invalid parameters, body or query.',
  401: 'The API key is missing or incorrect.',
  402: 'An account limit has been reached.',
  403: 'Outdated API key, or a resource of another client.',
  404: 'Not found.',
  409: 'Conflict: resource not ready or a limit on values reached.',
  413: 'The request body is too large.',
  429: 'Rate limit exceeded; see Retry-After.',
  500: 'Unexpected server error.',
  503: 'Maintenance; see Retry-After.',
};

/** Error responses for the OpenAPI document; every route shares the common ones. */
export function errorResponses(...codes: number[]): Record<number, TSchema> {
  const all = new Set([400, 401, 402, 403, 429, 500, 503, ...codes]);
  const out: Record<number, TSchema> = {};
  for (const code of [...all].sort()) out[code] = Type.Ref(ErrorMessage, { description: STATUS_TEXT[code] ?? 'Error.' });
  return out;
}

/** Sends already-serialised JSON (stored documents, spliced pages; text or UTF-8 bytes) as-is. */
export function sendJson(reply: FastifyReply, json: string | Buffer, status = 200): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(json);
}

/** A status with no body at all, as Codat's files declare some 200s (`send(null)` would send a `null` JSON body). */
export function sendNoBody(reply: FastifyReply, status: number): FastifyReply {
  return reply.code(status).send();
}

export const CompanyIdParams = Type.Object({
  companyId: Type.String({ format: 'uuid', description: 'GUID of the company.' }),
});

export const ConnectionIdParams = Type.Object({
  ...CompanyIdParams.properties,
  connectionId: Type.String({ format: 'uuid', description: 'GUID of the connection.' }),
});
