import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.js';
import { findPlatform } from '../connectors/registry.js';
import { customParamsFromForm, customParamsFromUrl, customQuery, formFields, type CustomParams } from './custom-params.js';
import { PAGE_HEADERS } from './layout.js';
import {
  authorisationChoice,
  authorisationFields,
  authorisationMethod,
  brandOf,
  createLinkService,
  offersOAuthToo,
  type LinkCompany,
  type LinkConnection,
  type LinkDeps,
  type LinkService,
} from './link.service.js';
import { companyPage, errorPage, finishPage, organisationPage, startPage, uploadPreviewPage } from './pages.js';
import multipart from '@fastify/multipart';
import { readParts, UPLOAD_LIMITS } from '../uploads/files.routes.js';
import { OAUTH_CALLBACK_PATH } from './oauth.js';
import { isLinkStatusCode, redirectTarget, reservedValues, type LinkStatusCode } from './redirect.js';

interface CompanyParams {
  companyId: string;
}
interface ConnectionParams {
  companyId: string;
  connectionId: string;
}

/** Every Link route: no API key (the company id in the address is the credential), not in the API docs. */
const ROUTE = { config: { public: true }, schema: { hide: true } } as const;
const FORM_BODY_LIMIT = 32 * 1024;

const companyPath = (companyId: string) => `/link/company/${encodeURIComponent(companyId)}`;
const startPath = (companyId: string, connectionId: string) =>
  `/link/companies/${encodeURIComponent(companyId)}/connections/${encodeURIComponent(connectionId)}/start`;
const filesPath = (companyId: string, connectionId: string) =>
  `/link/companies/${encodeURIComponent(companyId)}/connections/${encodeURIComponent(connectionId)}/files`;
const organisationPath = (companyId: string, connectionId: string) =>
  `/link/companies/${encodeURIComponent(companyId)}/connections/${encodeURIComponent(connectionId)}/organisation`;
const finishPath = (companyId: string, connectionId: string) =>
  `/link/companies/${encodeURIComponent(companyId)}/connections/${encodeURIComponent(connectionId)}/finish`;

function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).send(html);
}

function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).headers({ Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).send();
}

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
        problems: options.problems,
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

  /** The one callback of every OAuth platform: `?code=…&state=…`, or `?error=…&state=…` when consent was refused. */
  scope.get(OAUTH_CALLBACK_PATH, ROUTE, async (request, reply) => {
    const query = new URLSearchParams(request.url.split('?')[1] ?? '');
    const attempt = await link.takeOAuthAttempt(query.get('state') ?? '');
    // An unknown, used or expired state: nothing to link, and nothing to tell the platform's redirect apart from a forged one.
    if (!attempt) return sendPage(reply, 400, errorPage(400));
    const found = await load({ companyId: attempt.companyId, connectionId: attempt.connectionId });
    if (!found || found.company.client.id !== attempt.clientId) return notFoundPage(reply);
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
    return finish(reply, found.company, found.connection, statusCode, attempt.custom);
  });

  /** A consent that covers several organisations: the end user picks one (the key in `choice` is what grants it). */
  scope.get<{ Params: ConnectionParams }>(
    '/link/companies/:companyId/connections/:connectionId/organisation',
    ROUTE,
    async (request, reply) => {
      const found = await load(request.params);
      const key = new URLSearchParams(request.url.split('?')[1] ?? '').get('choice') ?? '';
      const pending = found && (await link.organisationChoice(key));
      if (!found || !pending || pending.attempt.connectionId !== found.connection.id) return notFoundPage(reply);
      return renderOrganisations(reply, found.company, found.connection, key, pending.choice.choices);
    },
  );

  scope.post<{ Params: ConnectionParams }>(
    '/link/companies/:companyId/connections/:connectionId/organisation',
    ROUTE,
    async (request, reply) => {
      const found = await load(request.params);
      const form = formFields(request.body);
      const key = form.get('choice') ?? '';
      const pending = found && (await link.organisationChoice(key));
      if (!found || !pending || pending.attempt.connectionId !== found.connection.id) return notFoundPage(reply);
      if (form.get('action') === 'cancel') return finish(reply, found.company, found.connection, 403, pending.attempt.custom);
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
        if (!chosen) return notFoundPage(reply);
        statusCode = chosen.statusCode;
      } catch (err) {
        request.log.error({ err, connectionId: found.connection.id }, 'OAuth link failed');
      }
      return finish(reply, found.company, found.connection, statusCode, pending.attempt.custom);
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
    let code: LinkStatusCode;
    try {
      code = await link.authorizeWith(company, connection, values);
    } catch (err) {
      // The platform refused (or could not be reached): the end user corrects the form and tries again.
      if (method === 'credentials' && err instanceof ApiError && err.statusCode === 400) {
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
    return finish(reply, company, connection, code, custom);
  });

  // A platform whose data is files: the end user sends them (multipart, in a scope of its own), sees what was
  // read, then imports it or chooses other files.
  await scope.register(async (uploads) => {
    await uploads.register(multipart, { limits: UPLOAD_LIMITS, throwFileSizeLimit: true });
    uploads.post<{ Params: ConnectionParams }>(
      '/link/companies/:companyId/connections/:connectionId/files',
      ROUTE,
      async (request, reply) => {
        const found = await load(request.params);
        if (!found || authorisationMethod(found.connection.platformKey) !== 'files') return notFoundPage(reply);
        const { company, connection } = found;
        let read: Awaited<ReturnType<typeof readParts>>;
        try {
          read = await readParts(request);
        } catch (err) {
          if (!(err instanceof ApiError) || err.statusCode >= 500) throw err;
          return renderStart(reply, company, connection, new Map(), {
            status: err.statusCode,
            problems: err.validation ?? [{ message: err.message.replace(/^\w+Exception: /, '') }],
          });
        }
        const custom = customParamsFromForm(formFields(read.fields));
        if (read.fields.action === 'cancel') return finish(reply, company, connection, 403, custom);
        try {
          const staged = await link.files.stage(company.client, company.companyId, connection.id, read.files, read.fields);
          return sendPage(
            reply,
            200,
            uploadPreviewPage({
              brand: brandOf(company.profile),
              companyName: company.companyName,
              platform: { name: connection.platformName, logoUrl: link.logoUrl(connection.platformKey) },
              files: staged.files,
              warnings: staged.warnings ?? [],
              batch: staged.batch,
              formAction: `${filesPath(company.companyId, connection.id)}/confirm`,
              custom,
            }),
          );
        } catch (err) {
          if (!(err instanceof ApiError) || err.statusCode >= 500) throw err;
          return renderStart(reply, company, connection, custom, {
            status: err.statusCode,
            selected: read.fields.preset,
            problems: err.validation ?? [{ message: err.message }],
          });
        }
      },
    );
  });

  scope.post<{ Params: ConnectionParams }>(
    '/link/companies/:companyId/connections/:connectionId/files/confirm',
    ROUTE,
    async (request, reply) => {
      const found = await load(request.params);
      if (!found || authorisationMethod(found.connection.platformKey) !== 'files') return notFoundPage(reply);
      const { company, connection } = found;
      const form = formFields(request.body);
      const custom = customParamsFromForm(form);
      const batch = form.get('batch') ?? '';
      if (form.get('action') === 'discard') {
        await link.files.discardStaged(company.client, company.companyId, connection.id, batch);
        return seeOther(reply, startPath(company.companyId, connection.id) + customQuery(custom));
      }
      if (form.get('action') !== 'import')
        return renderStart(reply, company, connection, custom, { status: 400, error: 'Choose Import or Choose other files.' });
      if (!(await link.files.importStaged(company.client, company.companyId, connection.id, batch))) {
        return renderStart(reply, company, connection, custom, {
          status: 400,
          error: 'Those files are no longer waiting to be imported (it has been more than an hour): choose them again.',
        });
      }
      return finish(reply, company, connection, 200, custom);
    },
  );

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
