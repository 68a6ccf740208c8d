import { sql } from 'kysely';
import type { SqlDialect } from '../storage/dialect.js';
import type { PropertyDef, QueryableResource } from '../query/properties.js';
import { compileComparison, QuerySemanticError } from '../query/query-compiler.js';
import { resolverFromSchema } from '../query/schema-resolver.js';
import { connectionColumns } from '../connections/connections.store.js';
import { Company } from './company.schema.js';

/**
 * Queryable properties of Company. Plain fields read real columns where one exists; `tags.<key>` reads the
 * stored JSON; `dataConnections.<field>` matches companies with at least one such connection (the one
 * array Codat allows in queries).
 */
export function companiesResource(dialect: SqlDialect): QueryableResource {
  const columns: Record<string, PropertyDef> = {
    id: { type: 'string', exact: true, expr: sql`companies.id` },
    name: { type: 'string', expr: sql`companies.name` },
    created: { type: 'date', dateStyle: 'instant', expr: sql`companies.created` },
    lastSync: { type: 'date', dateStyle: 'instant', expr: sql`companies.last_sync` },
  };
  const connectionFields = connectionColumns('c');
  const fromSchema = resolverFromSchema(Company, 'doc', dialect, columns);
  return {
    typeName: 'Company',
    resolve(path) {
      if (path[0] === 'tags' && path.length === 2) return { type: 'string', expr: dialect.jsonText('doc', path) };
      if (path[0] === 'dataConnections' && path.length === 2) {
        if (!Object.hasOwn(connectionFields, path[1])) return undefined;
        const def = connectionFields[path[1]];
        return {
          ...def,
          sortable: false,
          compile: (op, value) =>
            sql`EXISTS (SELECT 1 FROM connections c WHERE c.company_id = companies.id AND ${compileComparison(path.join('.'), op, value, def, dialect)})`,
        };
      }
      // Served but not stored: the address depends on where the server is reached.
      if (path[0] === 'redirect') return undefined;
      return fromSchema(path);
    },
  };
}

/**
 * The `tags` filter of GET /companies: the query language over tag keys, with `=`, `!=` and `~` only.
 */
export function companyTagsResource(dialect: SqlDialect): QueryableResource {
  return {
    typeName: 'Company tags',
    resolve(path) {
      if (path.length !== 1) return undefined;
      const def: PropertyDef = { type: 'string', expr: dialect.jsonText('doc', ['tags', path[0]]) };
      return {
        ...def,
        compile(op, value) {
          if (op !== '=' && op !== '!=' && op !== '~')
            throw new QuerySemanticError(`Operator ${op} cannot be used in tags; use =, != or ~`);
          return compileComparison(path[0], op, value, def, dialect);
        },
      };
    },
  };
}
