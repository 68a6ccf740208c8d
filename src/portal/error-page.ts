import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from '../http/api-error.js';
import { h, plainPage, portalPage, sendPortalPage, type Section } from './portal-layout.js';
import { pageContext } from './portal-request.js';

/**
 * A refused request as a page. Signed in, it keeps the portal's navigation and offers the way back to the page the
 * request came from (a form's own page), so a refusal such as a second accounting connection's 409 is a detour,
 * not a dead end; before sign-in, a plain page pointing at the sign-in form.
 */
export function sendErrorPage(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  const items = error.validation?.map((v) => `<li>${h(v.message)}</li>`).join('') ?? '';
  const title = `${error.statusCode}: ${titleOf(error.statusCode)}`;
  reply.headers(error.headers);
  if (!request.portalSession) {
    const main = `<p role="alert">${h(error.message)}</p>${items ? `<ul>${items}</ul>` : ''}<p><a href="/portal/sign-in">Sign in</a></p>`;
    return sendPortalPage(reply, plainPage({ title, main }), error.statusCode);
  }
  const back = wayBack(request.url, error.statusCode);
  const main = `<section class="card"><p role="alert">${h(error.message)}</p>${items ? `<ul>${items}</ul>` : ''}
<p><a href="${h(back.href)}">${h(back.label)}</a></p></section>`;
  return sendPortalPage(reply, portalPage(pageContext(request), { title, section: back.section, main }), error.statusCode);
}

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/**
 * Where "back" leads from a refused address: the company or consumer the address is about (its page holds the form
 * that was sent), or the section's list; a 404 leads to the list, as the thing itself may be what is missing.
 */
export function wayBack(url: string, status: number): { href: string; label: string; section?: Section } {
  const path = url.split('?')[0];
  const company = new RegExp(`^/portal/companies/(${UUID})(/|$)`).exec(path);
  if (company && status !== 404) return { href: `/portal/companies/${company[1]}`, label: 'Back to the company', section: 'companies' };
  const consumer = new RegExp(`^/portal/webhooks/(${UUID})(/|$)`).exec(path);
  if (consumer && status !== 404) return { href: `/portal/webhooks/${consumer[1]}`, label: 'Back to the consumer', section: 'webhooks' };
  const section = /^\/portal\/(companies|webhooks|settings|keys)(\/|$)/.exec(path)?.[1] as Section | undefined;
  const label = { companies: 'Back to companies', webhooks: 'Back to webhooks', settings: 'Back to settings', keys: 'Back to API keys' };
  return section
    ? { href: `/portal/${section}`, label: label[section], section }
    : { href: '/portal/companies', label: 'Back to companies' };
}

function titleOf(status: number): string {
  return (
    {
      400: 'Bad request',
      401: 'Not signed in',
      402: 'Limit reached',
      403: 'Forbidden',
      404: 'Not found',
      409: 'Conflict',
      429: 'Too many requests',
    }[status] ?? 'Something went wrong'
  );
}
