import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SqlDialect } from '../storage/dialect.js';
import { notFound } from '../http/api-error.js';
import type { PageRequest } from '../http/paging.js';
import type { ListContext } from '../query/list-engine.js';
import { offeredConnectors, stableGuid } from '../connectors/registry.js';
import type { Connector } from '../connectors/connector.js';
import { integrationByKey, integrationResource, integrationsPage, publishIntegrationDocs } from './integrations.store.js';

/** The stored Integration document of a platform (without `logoUrl`, which depends on the public address). */
export function integrationDoc(connector: Connector): string {
  const platform = connector.info;
  return JSON.stringify({
    key: platform.key,
    name: platform.name,
    enabled: true,
    sourceId: stableGuid(`source:${platform.key}`),
    sourceType: platform.sourceType,
    integrationId: stableGuid(`integration:${platform.key}`),
    isOfflineConnector: false,
    isBeta: false,
    dataProvidedBy: 'Ledgerport',
    // Both spellings: Codat's schema requires `datatype` (and its example shows it) while its properties and the
    // official SDKs read `dataType` (docs/decisions.md).
    // What the platform's declaration claims for each data type (checked against its code at start, and against its
    // tests by the capability matrix: docs/connectors.md).
    datatypeFeatures: Object.entries(connector.declaration.dataTypes).map(([dataType, { features }]) => ({
      datatype: dataType,
      dataType,
      supportedFeatures: features.map((featureType) => ({ featureType, featureState: 'Release' as const })),
    })),
  });
}

/** Copies the platforms offered (an OAuth2 platform once configured) into the store so the list engine can page and query it. */
export async function publishIntegrations(db: Kysely<Database>): Promise<void> {
  await publishIntegrationDocs(
    db,
    offeredConnectors().map((connector) => ({ key: connector.info.key, doc: integrationDoc(connector) })),
  );
}

export function integrationLogoUrl(publicUrl: string, key: string): string {
  return `${publicUrl}/integrations/${key}/logo.svg`;
}

/** Reading the platforms this server has. */
export function createIntegrationsService(deps: {
  db: Kysely<Database>;
  dialect: SqlDialect;
  lists: ListContext;
  publicUrl: () => string;
}) {
  const resource = integrationResource(deps.dialect);
  const serve = (row: { key: string; doc: string }) =>
    `${row.doc.slice(0, -1)},"logoUrl":${JSON.stringify(integrationLogoUrl(deps.publicUrl(), row.key))}}`;

  return {
    async list(page: PageRequest): Promise<{ records: string[]; totalResults: number }> {
      const result = await integrationsPage(deps.lists, resource, page);
      return { records: result.rows.map(serve), totalResults: result.totalResults };
    },

    async get(key: string): Promise<string> {
      const row = await integrationByKey(deps.db, key);
      if (!row) throw notFound(`IntegrationNotFoundException: No integration was found with key ${key}`);
      return serve(row);
    },
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;
