import type { FastifyRequest } from 'fastify';
import { validationError } from './api-error.js';

/**
 * Refuses text containing U+0000 anywhere in a request's path parameters, query or JSON body. Postgres text and
 * jsonb cannot hold it, so without this a NUL would reach the store as a 500 (or, stored escaped in a JSON
 * document, break every later JSON query over that record); no accounting value needs it. One check for every
 * route, before schema validation.
 */
export async function refuseNulCharacters(request: FastifyRequest): Promise<void> {
  const found =
    nulPath(request.params, []) ?? nulPath(request.query, []) ?? (request.body === undefined ? undefined : nulPath(request.body, []) ?? undefined);
  if (found === undefined) return;
  const itemId = found.length > 0 ? found.join('.') : 'body';
  throw validationError('ValidationException: One or more validation errors occurred.', [
    { itemId, message: `${itemId} must not contain the NUL character (U+0000)`, validatorName: 'TextValidator' },
  ]);
}

/** The path of the first string or key holding U+0000, or undefined. */
function nulPath(value: unknown, path: string[]): string[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], [...path, String(i)]);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return [...path, key.replace(/\u0000/g, '\\u0000')];
    const found = nulPath(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}
