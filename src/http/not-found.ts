import type { FastifyInstance, HTTPMethods } from 'fastify';
import FindMyWay from 'find-my-way';
import { ApiError } from './api-error.js';

/**
 * Unknown paths answer 404; a known path with the wrong method answers 405 with `Allow`.
 * Fastify alone answers 404 for both, so every registered route is mirrored into a router that is asked,
 * on a miss, which methods the path does accept.
 */
export function installNotFound(app: FastifyInstance): void {
  const routes = FindMyWay({ ignoreTrailingSlash: true });
  const methodsByRoute = new Set<string>();
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]) as HTTPMethods[];
    for (const method of methods) {
      const key = `${method} ${route.url}`;
      if (methodsByRoute.has(key)) continue;
      methodsByRoute.add(key);
      routes.on(method as never, route.url, () => {});
    }
  });
  app.setNotFoundHandler((request) => {
    const path = request.url.split('?')[0];
    const allowed = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter(
      (method) => method !== request.method && routes.find(method as never, path) !== null,
    );
    if (allowed.length > 0) {
      throw new ApiError(405, `MethodNotAllowedException: ${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}.`, {
        headers: { Allow: allowed.join(', ') },
      });
    }
    throw new ApiError(404, `NotFoundException: No endpoint matches ${request.method} ${path}.`);
  });
}
