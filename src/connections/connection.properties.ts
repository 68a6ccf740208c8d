import { sql } from 'kysely';
import type { PropertyDef } from '../query/properties.js';
import { assertIdentifier } from '../storage/dialect.js';
import { CONNECTION_STATUSES, SOURCE_TYPES } from './connection.schema.js';

/**
 * Connection properties that read real columns of the `connections` table (under `alias`): used by the
 * connections list and by companies' `dataConnections.<field>` filter, so both mean the same thing.
 */
export function connectionColumns(alias: string): Record<string, PropertyDef> {
  const column = (name: string) => sql.raw(`${assertIdentifier(alias)}.${assertIdentifier(name)}`);
  return {
    id: { type: 'string', exact: true, expr: sql`${column('id')}` },
    status: { type: 'enum', enumValues: CONNECTION_STATUSES, expr: sql`${column('status')}` },
    sourceType: { type: 'enum', enumValues: SOURCE_TYPES, expr: sql`${column('source_type')}` },
    integrationKey: { type: 'string', exact: true, expr: sql`${column('platform_key')}` },
    created: { type: 'date', dateStyle: 'instant', expr: sql`${column('created')}` },
  };
}
