import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SqlDialect } from '../storage/dialect.js';
import { notFound } from '../http/api-error.js';
import type { PageRequest } from '../http/paging.js';
import type { ListContext } from '../query/list-engine.js';
import { offeredConnectors, stableGuid } from '../connectors/registry.js';
import { WRITE_METHOD, type Connector, type WriteOperation } from '../connectors/connector.js';
import type { DataType } from '../codat-model/data-types.js';
import { integrationByKey, integrationResource, integrationsPage, publishIntegrationDocs } from './integrations.store.js';

/** Codat's feature type of a write operation: its push method, capitalised (`POST` → `Post`). */
const featureTypeOf = (operation: WriteOperation) => `${WRITE_METHOD[operation][0]}${WRITE_METHOD[operation].slice(1).toLowerCase()}`;

/**
 * What a platform's connector declares it does with each data type: every type it provides can be read (`Get`),
 * and each write operation it accepts is a feature of its own, so `/integrations` says exactly what
 * `.../data/...` and `.../push/...` will take.
 */
function supportedFeatures(connector: Connector, dataType: DataType): { featureType: string; featureState: 'Release' }[] {
  const operations = connector.writes?.get(dataType)?.operations ?? [];
  return ['Get', ...operations.map(featureTypeOf)].map((featureType) => ({ featureType, featureState: 'Release' as const }));
}

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
    datatypeFeatures: platform.dataTypes.map((dataType) => ({
      datatype: dataType,
      dataType,
      supportedFeatures: supportedFeatures(connector, dataType),
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
