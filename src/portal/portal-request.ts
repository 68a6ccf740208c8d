import type { FastifyRequest } from 'fastify';
import type { PageContext } from './portal-layout.js';
import { sessionOf } from './portal-session.js';

/** A form's fields (the portal's scope parses `application/x-www-form-urlencoded` into URLSearchParams). */
export function formOf(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

/** What every signed-in page is drawn with. */
export function pageContext(request: FastifyRequest): PageContext {
  const session = sessionOf(request);
  return { clientName: session.client.name, csrfToken: session.csrfToken };
}
