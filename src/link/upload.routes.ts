import type { FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import { ApiError } from '../http/api-error.js';
import { readParts, UPLOAD_LIMITS } from '../uploads/files.routes.js';
import { customParamsFromForm, customQuery, formFields } from './custom-params.js';
import type { LinkService } from './link.service.js';
import { brandOf } from './link-company.js';
import { authorisationMethod } from './link-authorisation.js';
import { uploadPreviewPage } from './pages.js';
import { filesPath, ROUTE, seeOther, sendPage, startPath, type ConnectionParams, type LinkResponses } from './link-responses.js';

/** The Link routes of a platform whose data is files. */
export async function registerLinkUploadRoutes(scope: FastifyInstance, link: LinkService, pages: LinkResponses): Promise<void> {
  // A platform whose data is files: the end user sends them (multipart, in a scope of its own), sees what was
  // read, then imports it or chooses other files.
  await scope.register(async (uploads) => {
    await uploads.register(multipart, { limits: UPLOAD_LIMITS, throwFileSizeLimit: true });
    uploads.post<{ Params: ConnectionParams }>(
      '/link/companies/:companyId/connections/:connectionId/files',
      ROUTE,
      async (request, reply) => {
        const found = await pages.load(request.params);
        if (!found || authorisationMethod(found.connection.platformKey) !== 'files') return pages.notFoundPage(reply);
        const { company, connection } = found;
        let read: Awaited<ReturnType<typeof readParts>>;
        try {
          read = await readParts(request);
        } catch (err) {
          if (!(err instanceof ApiError) || err.statusCode >= 500) throw err;
          return pages.renderStart(reply, company, connection, new Map(), {
            status: err.statusCode,
            problems: err.validation ?? [{ message: err.message.replace(/^\w+Exception: /, '') }],
          });
        }
        const custom = customParamsFromForm(formFields(read.fields));
        if (read.fields.action === 'cancel') return pages.finish(reply, company, connection, 403, custom);
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
          return pages.renderStart(reply, company, connection, custom, {
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
      const found = await pages.load(request.params);
      if (!found || authorisationMethod(found.connection.platformKey) !== 'files') return pages.notFoundPage(reply);
      const { company, connection } = found;
      const form = formFields(request.body);
      const custom = customParamsFromForm(form);
      const batch = form.get('batch') ?? '';
      if (form.get('action') === 'discard') {
        await link.files.discardStaged(company.client, company.companyId, connection.id, batch);
        return seeOther(reply, startPath(company.companyId, connection.id) + customQuery(custom));
      }
      if (form.get('action') !== 'import')
        return pages.renderStart(reply, company, connection, custom, { status: 400, error: 'Choose Import or Choose other files.' });
      if (!(await link.files.importStaged(company.client, company.companyId, connection.id, batch))) {
        return pages.renderStart(reply, company, connection, custom, {
          status: 400,
          error: 'Those files are no longer waiting to be imported (it has been more than an hour): choose them again.',
        });
      }
      return pages.finish(reply, company, connection, 200, custom);
    },
  );
}
