import { sql, type RawBuilder } from 'kysely';
import type { SqlDialect } from '../storage/dialect.js';
import type { PropertyDef, QueryableResource } from '../query/properties.js';
import { resolverFromSchema } from '../query/schema-resolver.js';
import type { DataTypeSource } from '../connectors/connector.js';
import { INDEXED_COLUMNS, recordFieldPaths } from './record-fields.js';

/**
 * A data type's records as a list resource: `id`, `modifiedDate` and `metadata.isDeleted` read the index row (`r`),
 * the indexed fields their narrow columns (same values, without opening each document), anything else the document.
 */
export function recordResource(source: DataTypeSource, dialect: SqlDialect): QueryableResource {
  const fromDocument = resolverFromSchema(source.schema, 'doc', dialect);
  const overrides: Record<string, PropertyDef> = {
    id: { type: 'string', exact: true, expr: sql`r.record_id` },
    modifiedDate: { type: 'date', dateStyle: 'instant', expr: sql`r.modified_date` },
    'metadata.isDeleted': { type: 'boolean', expr: sql`(r.is_deleted = 1)` },
  };
  const paths = recordFieldPaths(source.schema);
  for (const column of INDEXED_COLUMNS) {
    const path = paths[column];
    const def = path ? fromDocument(path.split('.')) : undefined;
    if (path && def) overrides[path] = { ...def, expr: sql.ref(`r.f_${column}`) };
  }
  return { typeName: source.typeName, resolve: resolverFromSchema(source.schema, 'doc', dialect, overrides) };
}

/** A condition on a top-level string field of the stored records (for sub-resource paths). */
export function recordFieldEquals(dialect: SqlDialect, field: string, value: string): RawBuilder<unknown> {
  return sql`${dialect.jsonText('doc', [field])} = ${value}`;
}
