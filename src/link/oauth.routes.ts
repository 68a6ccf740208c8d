import type { FastifyInstance, FastifyReply } from 'fastify';
import { type LinkService } from './link.service.js';
import { brandOf, type LinkCompany, type LinkConnection } from './link-company.js';
import { errorPage, organisationPage } from './pages.js';
import { OAUTH_CALLBACK_PATH } from './oauth.js';
import type { LinkStatusCode } from './redirect.js';
import { formFields } from './custom-params.js';
import { organisationPath, ROUTE, seeOther, sendPage, type ConnectionParams, type LinkResponses } from './link-responses.js';

/**
 * The Link routes of OAuth platforms after the platform's consent page: its callback, and the choice of an
 * organisation when one consent covers several.
 */
export function registerOAuthLinkRoutes(scope: FastifyInstance, link: LinkService, pages: LinkResponses): void {
  /** The one callback of every OAuth platform: `?code=…&state=…`, or `?error=…&state=…` when consent was refused. */
  scope.get(OAUTH_CALLBACK_PATH, ROUTE, async (request, reply) => {
    const query = new URLSearchParams(request.url.split('?')[1] ?? '');
    const attempt = await link.takeOAuthAttempt(query.get('state') ?? '');
    // An unknown, used or expired state: nothing to link, and nothing to tell the platform's redirect apart from a forged one.
    if (!attempt) return sendPage(reply, 400, errorPage(400));
    const found = await pages.load({ companyId: attempt.companyId, connectionId: attempt.connectionId });
    if (!found || found.company.client.id !== attempt.clientId) return pages.notFoundPage(reply);
    let statusCode: LinkStatusCode | { choose: string };
    try {
      statusCode = await link.finishOAuth(found.company, found.connection, attempt, {
        code: query.get('code') ?? undefined,
        error: query.get('error') ?? undefined,
        query: Object.fromEntries(query),
      });
    } catch (err) {
      request.log.error({ err, connectionId: found.connection.id }, 'OAuth link failed');
      statusCode = 500;
    }
    if (typeof statusCode === 'object') {
      return seeOther(
        reply,
        `${organisationPath(found.company.companyId, found.connection.id)}?${new URLSearchParams({ choice: statusCode.choose })}`,
      );
    }
    return pages.finish(reply, found.company, found.connection, statusCode, attempt.custom);
  });

  /** A consent that covers several organisations: the end user picks one (the key in `choice` is what grants it). */
  scope.get<{ Params: ConnectionParams }>(
    '/link/companies/:companyId/connections/:connectionId/organisation',
    ROUTE,
    async (request, reply) => {
      const found = await pages.load(request.params);
      const key = new URLSearchParams(request.url.split('?')[1] ?? '').get('choice') ?? '';
      const pending = found && (await link.organisationChoice(key));
      if (!found || !pending || pending.attempt.connectionId !== found.connection.id) return pages.notFoundPage(reply);
      return renderOrganisations(reply, found.company, found.connection, key, pending.choice.choices);
    },
  );

  scope.post<{ Params: ConnectionParams }>(
    '/link/companies/:companyId/connections/:connectionId/organisation',
    ROUTE,
    async (request, reply) => {
      const found = await pages.load(request.params);
      const form = formFields(request.body);
      const key = form.get('choice') ?? '';
      const pending = found && (await link.organisationChoice(key));
      if (!found || !pending || pending.attempt.connectionId !== found.connection.id) return pages.notFoundPage(reply);
      if (form.get('action') === 'cancel') return pages.finish(reply, found.company, found.connection, 403, pending.attempt.custom);
      const picked = form.get('organisation') ?? '';
      if (form.get('action') !== 'connect' || !pending.choice.choices.some((c) => c.id === picked)) {
        return renderOrganisations(
          reply,
          found.company,
          found.connection,
          key,
          pending.choice.choices,
          'Choose one of the organisations listed.',
        );
      }
      let statusCode: LinkStatusCode = 500;
      try {
        const chosen = await link.chooseOrganisation(key, picked);
        if (!chosen) return pages.notFoundPage(reply);
        statusCode = chosen.statusCode;
      } catch (err) {
        request.log.error({ err, connectionId: found.connection.id }, 'OAuth link failed');
      }
      return pages.finish(reply, found.company, found.connection, statusCode, pending.attempt.custom);
    },
  );

  function renderOrganisations(
    reply: FastifyReply,
    company: LinkCompany,
    connection: LinkConnection,
    key: string,
    organisations: readonly { id: string; name: string }[],
    error?: string,
  ) {
    return sendPage(
      reply,
      error ? 400 : 200,
      organisationPage({
        brand: brandOf(company.profile),
        companyName: company.companyName,
        platform: { name: connection.platformName, logoUrl: link.logoUrl(connection.platformKey) },
        organisations,
        formAction: organisationPath(company.companyId, connection.id),
        choice: key,
        error,
      }),
    );
  }
}
