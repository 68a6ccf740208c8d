import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/api-error.js';
import { UNMATCHED_ROUTE, type Metrics } from './metrics.js';
import { secretsEqual } from '../lib/constant-time.js';

/** Times every answered request by its route template (never the raw URL: ids would make a series each). */
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.is404 || !request.routeOptions.url ? UNMATCHED_ROUTE : request.routeOptions.url;
    metrics.httpRequest({ method: request.method, route, statusCode: reply.statusCode }, reply.elapsedTime / 1000);
  });
}

/**
 * `GET /metrics` on the API's own port, for a bearer of `token` (METRICS_TOKEN). No API key: it is the operator's,
 * not a client's, so no client's rate limit counts it, and it answers during maintenance, when it matters most.
 * Without a token the route does not exist (404), unless served on METRICS_PORT instead (metrics-listener.ts).
 */
export function registerMetricsRoute(app: FastifyInstance, deps: { metrics: Metrics; token: string }): void {
  app.get('/metrics', { config: { public: true, health: true }, schema: { hide: true } }, async (request, reply) => {
    const match = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '');
    if (!match || !secretsEqual(match[1], deps.token)) {
      throw new ApiError(401, 'Unauthorized', { headers: { 'WWW-Authenticate': 'Bearer realm="Ledgerport metrics"' } });
    }
    const { contentType, text } = await deps.metrics.scrape();
    return reply.type(contentType).send(text);
  });
}
