import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.js';
import { findPlatform } from '../connectors/registry.js';
import { customParamsFromForm, customParamsFromUrl, customQuery, formFields } from './custom-params.js';
import { createLinkService, type LinkDeps, type LinkService } from './link.service.js';
import { brandOf } from './link-company.js';
import { authorisationChoice, authorisationFields, authorisationMethod, offersOAuthToo } from './link-authorisation.js';
import { errorPage, finishPage } from './pages.js';
import { isLinkStatusCode, type LinkStatusCode } from './redirect.js';
import {
  companyPath,
  FORM_BODY_LIMIT,
  linkResponses,
  ROUTE,
  seeOther,
  sendPage,
  type CompanyParams,
  type ConnectionParams,
} from './link-responses.js';
import { registerOAuthLinkRoutes } from './oauth.routes.js';
import { registerLinkUploadRoutes } from './upload.routes.js';

/**
 * The hosted Link flow (facts 6): the company's page lists the platforms; choosing one opens the
 * connection's start page (its `linkUrl`); connecting or cancelling there ends at the client's redirect URL.
 * Server-rendered HTML and plain forms only: no script, works with a keyboard and without JavaScript.
 */
export function registerLinkRoutes(app: FastifyInstance, deps: LinkDeps): void {
  const link = createLinkService(deps);
  // Own scope: HTML error pages and form bodies here only, the API keeps JSON for both.
  void app.register(async (scope) => linkScope(scope, link));
}

async function linkScope(scope: FastifyInstance, link: LinkService): Promise<void> {
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      done(null, new URLSearchParams(body as string));
    },
  );

  scope.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    const known = err instanceof ApiError;
    const raw = known ? err.statusCode : (err.statusCode ?? 500);
    const status = raw >= 400 && raw < 600 ? raw : 500;
    if (status >= 500 && !known) request.log.error({ err }, 'Link page failed');
    if (known) reply.headers(err.headers);
    return sendPage(reply, status, errorPage(status));
  });

  const pages = linkResponses(link);
  const { notFoundPage, renderCompany, renderStart, load, finish } = pages;

  scope.get<{ Params: CompanyParams }>('/link/company/:companyId', ROUTE, async (request, reply) => {
    const company = await link.company(request.params.companyId);
    if (!company) return notFoundPage(reply);
    return renderCompany(reply, company, customParamsFromUrl(request.url));
  });

  scope.post<{ Params: CompanyParams }>('/link/company/:companyId/connections', ROUTE, async (request, reply) => {
    const company = await link.company(request.params.companyId);
    if (!company) return notFoundPage(reply);
    const form = formFields(request.body);
    const custom = customParamsFromForm(form);
    try {
      const { linkUrl } = await link.chooseConnection(company, form.get('platformKey') ?? '');
      return seeOther(reply, linkUrl + customQuery(custom));
    } catch (err) {
      if (err instanceof ApiError && err.statusCode < 500) return renderCompany(reply, company, custom, err.statusCode, err.message);
      throw err;
    }
  });

  scope.get<{ Params: ConnectionParams }>('/link/companies/:companyId/connections/:connectionId/start', ROUTE, async (request, reply) => {
    const found = await load(request.params);
    if (!found) return notFoundPage(reply);
    const custom = customParamsFromUrl(request.url);
    // As on Codat, an OAuth platform's linkUrl goes straight to the platform's consent page.
    if (authorisationMethod(found.connection.platformKey) === 'oauth2' && found.connection.status !== 'Linked') {
      return seeOther(reply, await link.startOAuth(found.company, found.connection, custom));
    }
    return renderStart(reply, found.company, found.connection, custom);
  });

  registerOAuthLinkRoutes(scope, link, pages);

  scope.post<{ Params: ConnectionParams }>('/link/companies/:companyId/connections/:connectionId/start', ROUTE, async (request, reply) => {
    const found = await load(request.params);
    if (!found) return notFoundPage(reply);
    const { company, connection } = found;
    const form = formFields(request.body);
    const custom = customParamsFromForm(form);
    const action = form.get('action');
    if (action === 'cancel') return finish(reply, company, connection, 403, custom);
    // The platform's consent page instead of its form (a platform offering both: see offersOAuthToo).
    if (action === 'oauth' && offersOAuthToo(connection.platformKey)) {
      return seeOther(reply, await link.startOAuth(company, connection, custom));
    }
    if (action !== 'connect') return renderStart(reply, company, connection, custom, { status: 400, error: 'Choose Connect or Cancel.' });
    const method = authorisationMethod(connection.platformKey);
    if (method !== 'credentials' && method !== 'choice') return finish(reply, company, connection, 501, custom);
    // What the end user typed (credentials) or picked (a choice): the body of `PUT …/authorization`.
    const values: Record<string, string> = {};
    if (method === 'credentials') {
      for (const field of authorisationFields(connection.platformKey)) {
        const value = form.get(field.name);
        if (value !== undefined && value !== '') values[field.name] = value;
      }
    } else {
      const { choice } = authorisationChoice(connection.platformKey);
      if (choice) {
        const picked = form.get(choice.name) ?? choice.default;
        if (!choice.options.some((o) => o.value === picked)) {
          return renderStart(reply, company, connection, custom, { status: 400, error: `Choose a ${choice.legend.toLowerCase()}.` });
        }
        values[choice.name] = picked;
      }
    }
    // The emulator's scenario (a Sandbox's form offers it with EMULATOR=true); refused like the API refuses it otherwise.
    const scenario = form.get('scenario');
    if (scenario !== undefined && scenario !== '') values.scenario = scenario;
    let code: LinkStatusCode | 'pending';
    try {
      code = await link.authorizeWith(company, connection, values);
    } catch (err) {
      // The platform refused (or could not be reached), or the scenario was: the end user corrects the form and tries again.
      if (err instanceof ApiError && err.statusCode === 400 && (method === 'credentials' || err.validation?.[0]?.itemId === 'scenario')) {
        const reason = err.validation?.[0]?.message ?? err.message;
        return renderStart(reply, company, connection, custom, {
          status: 400,
          error: `${connection.platformName} could not be connected: ${reason}.`,
          values,
        });
      }
      request.log.error({ err, connectionId: connection.id }, 'Link authorisation failed');
      code = 500;
    }
    // The scenario never-completes: the authorization waits on the platform for ever, and the connection stays as it was.
    if (code === 'pending') {
      return renderStart(reply, company, connection, custom, {
        status: 202,
        notice: `Waiting for ${connection.platformName} to finish the authorization. (Emulator scenario never-completes: it never does, and the connection stays ${connection.status}.)`,
      });
    }
    return finish(reply, company, connection, code, custom);
  });

  await registerLinkUploadRoutes(scope, link, pages);

  scope.get<{ Params: ConnectionParams }>(
    '/link/companies/:companyId/connections/:connectionId/finish',
    ROUTE,
    async (request: FastifyRequest<{ Params: ConnectionParams }>, reply) => {
      const found = await load(request.params);
      const statusCode = Number(new URLSearchParams(request.url.split('?')[1] ?? '').get('statusCode'));
      if (!found || !isLinkStatusCode(statusCode)) return notFoundPage(reply);
      const { company, connection } = found;
      const custom = customParamsFromUrl(request.url);
      return sendPage(
        reply,
        200,
        finishPage({
          brand: brandOf(company.profile),
          statusCode,
          platformName: connection.platformName || findPlatform(connection.platformKey)?.name || connection.platformKey,
          backUrl: companyPath(company.companyId) + customQuery(custom),
        }),
      );
    },
  );
}
