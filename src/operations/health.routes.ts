import type { Kysely } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../storage/schema.js';
import { ApiError } from '../http/api-error.js';
import { storeAnswers } from '../storage/database.js';

/** Liveness and readiness probes: no key needed, answered even during maintenance. */
export function registerHealthRoutes(app: FastifyInstance, deps: { db: Kysely<Database> }): void {
  const config = { public: true, health: true };
  app.get('/healthz', { config, schema: { summary: 'Liveness', tags: ['Health'] } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config, schema: { summary: 'Readiness: the store answers', tags: ['Health'] } }, async () => {
    try {
      await storeAnswers(deps.db);
    } catch {
      throw new ApiError(503, 'ServiceUnavailable: The store is not reachable.');
    }
    return { status: 'ready' };
  });
}
