import type { FastifyReply } from 'fastify';
import { customQuery, type CustomParams } from './custom-params.js';
import { PAGE_HEADERS } from './layout.js';
import { type LinkService } from './link.service.js';
import { brandOf, type LinkCompany, type LinkConnection } from './link-company.js';
import { authorisationChoice, authorisationFields, authorisationMethod, offersOAuthToo } from './link-authorisation.js';
import { companyPage, errorPage, startPage } from './pages.js';
import { redirectTarget, reservedValues, type LinkStatusCode } from './redirect.js';

export interface CompanyParams {
  companyId: string;
}
export interface ConnectionParams {
  companyId: string;
  connectionId: string;
}

/** Every Link route: no API key (the company id in the address is the credential), not in the API docs. */
export const ROUTE = { config: { public: true }, schema: { hide: true } } as const;
export const FORM_BODY_LIMIT = 32 * 1024;

export const companyPath = (companyId: string) => `/link/company/${encodeURIComponent(companyId)}`;
export const startPath = (companyId: string, connectionId: string) =>
  `/link/companies/${encodeURIComponent(companyId)}/connections/${encodeURIComponent(connectionId)}/start`;
export const filesPath = (companyId: string, connectionId: string) =>
  `/link/companies/${encodeURIComponent(companyId)}/connections/${encodeURIComponent(connectionId)}/files`;
export const organisationPath = (companyId: string, connectionId: string) =>
  `/link/companies/${encodeURIComponent(companyId)}/connections/${encodeURIComponent(connectionId)}/organisation`;
const finishPath = (companyId: string, connectionId: string) =>
  `/link/companies/${encodeURIComponent(companyId)}/connections/${encodeURIComponent(connectionId)}/finish`;

export function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).send(html);
}

export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).headers({ Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).send();
}

/**
 * What the Link routes answer with, over the Link service: the company's page, a connection's start page, a page
 * not found, and the end of the flow (the client's redirect URL or the built-in finish page).
 */
export function linkResponses(link: LinkService) {
  const notFoundPage = (reply: FastifyReply) => sendPage(reply, 404, errorPage(404));

  async function renderCompany(reply: FastifyReply, company: LinkCompany, custom: CustomParams, status = 200, error?: string) {
    const groups = await link.platformGroups(company);
    return sendPage(
      reply,
      status,
      companyPage({
        brand: brandOf(company.profile),
        companyId: company.companyId,
        companyName: company.companyName,
        groups,
        custom,
        error,
      }),
    );
  }

  function renderStart(
    reply: FastifyReply,
    company: LinkCompany,
    connection: LinkConnection,
    custom: CustomParams,
    options: {
      status?: number;
      error?: string;
      /** A notice that is not an error (an authorization still waiting). */
      notice?: string;
      selected?: string;
      values?: Record<string, string>;
      problems?: readonly { itemId?: string; message: string }[];
    } = {},
  ) {
    const method = authorisationMethod(connection.platformKey);
    return sendPage(
      reply,
      options.status ?? 200,
      startPage({
        brand: brandOf(company.profile),
        companyName: company.companyName,
        platform: { name: connection.platformName, logoUrl: link.logoUrl(connection.platformKey), sourceType: connection.sourceType },
        status: connection.status,
        // OAuth platforms never show this page's form: their start address sends the end user to the platform.
        method: method === 'oauth2' ? 'unsupported' : method,
        fields: authorisationFields(connection.platformKey),
        oauthButton: offersOAuthToo(connection.platformKey) ? `Connect with ${connection.platformName}` : undefined,
        values: options.values,
        ...authorisationChoice(connection.platformKey),
        selected: options.selected,
        formAction: method === 'files' ? filesPath(company.companyId, connection.id) : startPath(company.companyId, connection.id),
        backUrl: companyPath(company.companyId) + customQuery(custom),
        custom,
        error: options.error,
        notice: options.notice,
        problems: options.problems,
        scenarios: method === 'choice' ? link.scenariosFor(connection.platformKey) : undefined,
      }),
    );
  }

  /** The company and connection of a connection-scoped Link address, or undefined. */
  async function load(params: ConnectionParams): Promise<{ company: LinkCompany; connection: LinkConnection } | undefined> {
    const company = await link.company(params.companyId);
    const connection = company && (await link.connection(company, params.connectionId));
    return company && connection ? { company, connection } : undefined;
  }

  /** Ends the flow: the profile's redirect URL with its placeholders filled, or the built-in finish page. */
  function finish(reply: FastifyReply, company: LinkCompany, connection: LinkConnection, statusCode: LinkStatusCode, custom: CustomParams) {
    const target = redirectTarget(company.profile, reservedValues(link.redirectFacts(company, connection, statusCode)), custom);
    if (target) return seeOther(reply, target);
    return seeOther(reply, finishPath(company.companyId, connection.id) + customQuery(custom, { statusCode: String(statusCode) }));
  }

  return { notFoundPage, renderCompany, renderStart, load, finish };
}

export type LinkResponses = ReturnType<typeof linkResponses>;
