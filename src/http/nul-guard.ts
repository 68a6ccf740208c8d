import type { FastifyRequest } from 'fastify';
import { validationError } from './api-error.js';

/**
 * Refuses text containing U+0000 anywhere in a request's path parameters, query or JSON body. Postgres text and
 * jsonb cannot hold it, so without this a NUL would reach the store as a 500 (or, stored escaped in a JSON
 * document, break every later JSON query over that record); no accounting value needs it. One check for every
 * route, before schema validation.
 */
export async function refuseNulCharacters(request: FastifyRequest): Promise<void> {
  const found = nulPath(request.params) ?? nulPath(request.query) ?? (request.body === undefined ? undefined : nulPath(request.body));
  if (found === undefined) return;
  const itemId = found.length > 0 ? found.join('.') : 'body';
  throw validationError('ValidationException: One or more validation errors occurred.', [
    { itemId, message: `${itemId} must not contain the NUL character (U+0000)`, validatorName: 'TextValidator' },
  ]);
}

/**
 * The path of the first string or key holding U+0000, or undefined. Walks with an explicit stack, not recursion:
 * the value is client input, and its depth is the client's choice.
 */
function nulPath(root: unknown): string[] | undefined {
  // Each entry is checked when popped (its key, then its value), so the first offence in document order is named.
  const stack: { value: unknown; path: string[]; key?: string }[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path, key } = stack.pop()!;
    if (key?.includes('\u0000')) return [...path.slice(0, -1), key.replace(/\u0000/g, '\\u0000')];
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return path;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [name, item] = entries[i];
      stack.push({ value: item, path: [...path, name], key: name });
    }
  }
  return undefined;
}
