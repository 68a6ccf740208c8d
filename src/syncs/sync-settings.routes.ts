import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Database } from '../storage/schema.js';
import { validationError, type ApiError } from '../http/api-error.js';
import { CompanyIdParams, errorResponses, sendJson } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import type { CompaniesService } from '../companies/companies.service.js';
import { checkSyncSettings, ClientSyncSettings, CompanySyncSettings, effectiveSyncSettings, SyncSetting } from './sync-settings.js';
import { clientSyncSettings, companySyncSettings, saveClientSyncSettings, saveCompanySyncSettings } from './sync-settings.store.js';

const tags = ['Sync settings'];

function mismatch(field: string, expected: string): ApiError {
  return validationError('ValidationException: One or more validation errors occurred.', [
    { itemId: field, message: `${field} must be ${expected}, the one in the path or of the calling key`, validatorName: 'SyncSettings' },
  ]);
}

export function registerSyncSettingsRoutes(app: FastifyInstance, deps: { db: Kysely<Database>; companies: CompaniesService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = deps;

  r.get(
    '/profile/syncSettings',
    {
      schema: {
        operationId: 'get-profile-sync-settings',
        summary: 'Default sync settings',
        description: 'The settings every company of this client follows unless it has its own.',
        tags,
        response: {
          200: Type.Object({ clientId: Type.String(), settings: Type.Array(Type.Ref(SyncSetting)), overridesDefaults: Type.Boolean() }),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const client = callerOf(request);
      const stored = await clientSyncSettings(db, client.id);
      return { clientId: client.id, settings: effectiveSyncSettings(stored), overridesDefaults: stored?.overridesDefaults ?? true };
    },
  );

  r.post(
    '/profile/syncSettings',
    {
      schema: {
        operationId: 'update-profile-sync-settings',
        summary: 'Set default sync settings',
        description: 'Settings are merged by data type over the built-in defaults. An hourly schedule answers 402 on the Free trial.',
        tags,
        body: ClientSyncSettings,
        response: { 204: Type.Null({ description: 'Saved.' }), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const client = callerOf(request);
      if (request.body.clientId !== client.id) throw mismatch('clientId', client.id);
      checkSyncSettings(client.plan, request.body.settings);
      await saveClientSyncSettings(db, client.id, { settings: request.body.settings, overridesDefaults: request.body.overridesDefaults });
      return reply.code(204).send(null);
    },
  );

  r.get(
    '/companies/:companyId/syncSettings',
    {
      schema: {
        operationId: 'get-company-sync-settings',
        summary: "A company's sync settings",
        tags,
        params: CompanyIdParams,
        response: {
          200: Type.Object({ companyId: Type.String(), settings: Type.Array(Type.Ref(SyncSetting)), overridesDefaults: Type.Boolean() }),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const client = callerOf(request);
      await deps.companies.owned(client, request.params.companyId);
      const own = await companySyncSettings(db, client.id, request.params.companyId);
      const body = {
        companyId: request.params.companyId,
        settings: effectiveSyncSettings(await clientSyncSettings(db, client.id), own),
        overridesDefaults: own?.overridesDefaults ?? true,
      };
      return sendJson(reply, JSON.stringify(body));
    },
  );

  r.post(
    '/companies/:companyId/syncSettings',
    {
      schema: {
        operationId: 'set-company-sync-settings',
        summary: "Set a company's sync settings",
        description: "Merged by data type over the client's settings. An hourly schedule answers 402 on the Free trial.",
        tags,
        params: CompanyIdParams,
        body: CompanySyncSettings,
        response: { 204: Type.Null({ description: 'Saved.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const client = callerOf(request);
      await deps.companies.owned(client, request.params.companyId);
      if (request.body.companyId !== request.params.companyId) throw mismatch('companyId', request.params.companyId);
      checkSyncSettings(client.plan, request.body.settings);
      await saveCompanySyncSettings(db, client.id, request.params.companyId, {
        settings: request.body.settings,
        overridesDefaults: request.body.overridesDefaults ?? true,
      });
      return reply.code(204).send(null);
    },
  );
}
