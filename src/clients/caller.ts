import type { FastifyRequest } from 'fastify';
import type { Client } from './clients.store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The calling client, set by the request guard (src/access/request-guard.ts) on authenticated routes. */
    client?: Client;
  }
}

/** The authenticated client of a request on a non-public route. */
export function callerOf(request: FastifyRequest): Client {
  if (!request.client) throw new Error('route is public: no client');
  return request.client;
}
