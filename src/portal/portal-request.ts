import type { FastifyRequest } from 'fastify';
import type { Notice, PageContext } from './portal-layout.js';
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

/** The notice a redirect after a form names by code (`?done=created`): never free text in the address. */
export function doneNotice(request: FastifyRequest, messages: Readonly<Record<string, Notice>>): Notice | undefined {
  const done = (request.query as { done?: unknown }).done;
  return typeof done === 'string' && Object.hasOwn(messages, done) ? messages[done] : undefined;
}

/** A stored record or document (JSON text) as the page reads it. */
export type Json = Record<string, any>;
export const parseDoc = (doc: string | Buffer): Json => JSON.parse(doc.toString()) as Json;
