import type { FastifyRequest } from 'fastify';
import { validationError, type ApiError } from './api-error.js';

/**
 * Refuses text containing U+0000 anywhere in a request's path parameters, query or JSON body. Postgres text and
 * jsonb cannot hold it, so without this a NUL would reach the store as a 500 (or, stored escaped in a JSON
 * document, break every later JSON query over that record); no accounting value needs it. One check for every
 * route, before schema validation.
 */
export async function refuseNulCharacters(request: FastifyRequest): Promise<void> {
  const found = nulPath(request.params) ?? nulPath(request.query) ?? (request.body === undefined ? undefined : nulPath(request.body));
  if (found === undefined) return;
  throw nulRefusal(found.length > 0 ? found.join('.') : 'body');
}

/** The documented 400 for text holding U+0000 at `itemId` (also for what a route reads itself, such as multipart parts). */
export function nulRefusal(itemId: string): ApiError {
  return validationError('ValidationException: One or more validation errors occurred.', [
    { itemId, message: `${itemId} must not contain the NUL character (U+0000)`, validatorName: 'TextValidator' },
  ]);
}

/** A value still to visit, with the way back to the root (so no path is copied per entry). */
interface Visit {
  value: unknown;
  key?: string;
  parent?: Visit;
}

/**
 * The path of the first string or key holding U+0000, or undefined. Walks with an explicit stack, not recursion:
 * the value is client input, and its depth is the client's choice. Each entry links to its parent instead of
 * carrying a copy of its path: copying made the walk quadratic in depth (a 2,000-deep body cost 22 MB).
 */
function nulPath(root: unknown): string[] | undefined {
  const stack: Visit[] = [{ value: root }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value, key } = visit;
    // Checked when popped (the key, then the value), so the first offence in document order is the one named.
    if (key?.includes('\u0000')) return pathOf(visit, key.replace(/\u0000/g, '\\u0000'));
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return pathOf(visit);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: String(i), parent: visit });
    } else {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i][1], key: entries[i][0], parent: visit });
    }
  }
  return undefined;
}

function pathOf(visit: Visit, lastKey?: string): string[] {
  const path: string[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.push(at.key);
  path.reverse();
  if (lastKey !== undefined) path[path.length - 1] = lastKey;
  return path;
}
