import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SqlDialect } from '../storage/dialect.js';
import type { PageRequest } from '../http/paging.js';
import { listPage, type ListContext } from '../query/list-engine.js';
import type { QueryableResource } from '../query/properties.js';
import { resolverFromSchema } from '../query/schema-resolver.js';
import { Integration } from './integration.schema.js';

/*
 * The platforms on offer, as published from the connector registry at start (`integrations`): the same for every
 * client, so nothing here is scoped to one.
 */

/** Replaces the published platforms with these, in this order. */
export async function publishIntegrationDocs(db: Kysely<Database>, platforms: { key: string; doc: string }[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const [position, { key, doc }] of platforms.entries()) {
      await trx
        .insertInto('integrations')
        .values({ key, position, doc })
        .onConflict((oc) => oc.column('key').doUpdateSet({ position, doc }))
        .execute();
    }
    await trx
      .deleteFrom('integrations')
      .where(
        'key',
        'not in',
        platforms.map((p) => p.key),
      )
      .execute();
  });
}

/** Integrations as a list resource. */
export function integrationResource(dialect: SqlDialect): QueryableResource {
  const overrides = { key: { type: 'string' as const, exact: true, expr: sql`integrations.key` } };
  return { typeName: 'Integration', resolve: resolverFromSchema(Integration, 'doc', dialect, overrides) };
}

/** A page of the published platforms, in registry order unless `orderBy` says otherwise. */
export function integrationsPage(lists: ListContext, resource: QueryableResource, page: PageRequest) {
  return listPage<{ key: string; doc: string }>(
    lists,
    {
      from: sql`integrations`,
      scope: sql`1 = 1`,
      resource,
      select: sql`integrations.key, integrations.doc`,
      tiebreak: [sql`integrations.position`],
      // The table changes only at start, when the registry is published.
      countKey: 'integrations',
    },
    page,
  );
}

export function integrationByKey(db: Kysely<Database>, key: string): Promise<{ key: string; doc: string } | undefined> {
  return db.selectFrom('integrations').select(['key', 'doc']).where('key', '=', key).executeTakeFirst();
}
