import { sql, type RawBuilder } from 'kysely';
import type { SqlDialect } from '../storage/dialect.js';
import type { ComparisonOperator, QueryNode } from './query-parser.js';
import type { PropertyDef, QueryableResource } from './properties.js';
import { normalizeDateValue } from './query-dates.js';

/** A query that parsed but cannot run against this resource; the message follows `Error parsing query - `. */
export class QuerySemanticError extends Error {}

export class UnknownPropertyError extends QuerySemanticError {
  constructor(property: string, typeName: string) {
    super(`Could not resolve property ${property} on ${typeName}`);
  }
}

const ORDERING: ReadonlySet<ComparisonOperator> = new Set(['>', '<', '>=', '<=']);

/** Compiles a parsed query into a parameterised SQL condition. Values are always bound, never inlined. */
export function compileQuery(node: QueryNode, resource: QueryableResource, dialect: SqlDialect): RawBuilder<unknown> {
  if (node.kind !== 'compare') {
    const parts = node.children.map((child) => compileQuery(child, resource, dialect));
    return sql`(${sql.join(parts, node.kind === 'and' ? sql` AND ` : sql` OR `)})`;
  }
  const def = resource.resolve(node.property.split('.'));
  if (!def) throw new UnknownPropertyError(node.property, resource.typeName);
  if (def.compile) return def.compile(node.op, node.value);
  return compileComparison(node.property, node.op, node.value, def, dialect);
}

export function compileComparison(
  property: string,
  op: ComparisonOperator,
  raw: string,
  def: PropertyDef,
  dialect: SqlDialect,
): RawBuilder<unknown> {
  const operatorError = () => new QuerySemanticError(`Operator ${op} cannot be applied to property ${property} of type ${def.type}`);
  switch (def.type) {
    case 'number': {
      if (op === '~') throw operatorError();
      const value = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(value)) {
        throw new QuerySemanticError(`Value ${raw} is not a number for property ${property}`);
      }
      return relate(def.expr, op, sql`${value}`, dialect);
    }
    case 'date': {
      if (op === '~') throw operatorError();
      const value = normalizeDateValue(raw, def.dateStyle ?? 'instant');
      if (value === undefined) throw new QuerySemanticError(`Value ${raw} is not a date for property ${property}`);
      return relate(def.expr, op, sql`${value}`, dialect);
    }
    case 'boolean': {
      if (op !== '=' && op !== '!=') throw operatorError();
      const lowered = raw.toLowerCase();
      if (lowered !== 'true' && lowered !== 'false') {
        throw new QuerySemanticError(`Value ${raw} is not true or false for property ${property}`);
      }
      return relate(def.expr, op, sql`${dialect.boolValue(lowered === 'true')}`, dialect);
    }
    case 'enum': {
      if (ORDERING.has(op)) throw operatorError();
      if (op === '~') return contains(def.expr, raw);
      // Matching the stored canonical spelling keeps the comparison exact (and index-friendly).
      const canonical = def.enumValues?.find((v) => v.toLowerCase() === raw.toLowerCase()) ?? raw;
      return relate(def.expr, op, sql`${canonical}`, dialect);
    }
    case 'string': {
      if (ORDERING.has(op)) throw operatorError();
      if (op === '~') return contains(def.expr, raw);
      if (def.exact) return relate(def.expr, op, sql`${raw}`, dialect);
      return relate(sql`lower(${def.expr})`, op, sql`lower(${raw})`, dialect);
    }
  }
}

function relate(expr: RawBuilder<unknown>, op: ComparisonOperator, value: RawBuilder<unknown>, dialect: SqlDialect): RawBuilder<unknown> {
  switch (op) {
    case '=':
      return sql`(${expr} = ${value})`;
    case '!=':
      // A record without the property counts as "not equal" (e.g. metadata.isDeleted!=true).
      return dialect.distinctFrom(expr, value);
    case '>':
      return sql`(${expr} > ${value})`;
    case '<':
      return sql`(${expr} < ${value})`;
    case '>=':
      return sql`(${expr} >= ${value})`;
    case '<=':
      return sql`(${expr} <= ${value})`;
    case '~':
      throw new Error('contains is compiled by contains()');
  }
}

/**
 * Case-insensitive substring match; LIKE wildcards in the value are escaped so they match literally.
 * The pattern is lowered by the database, like the column: SQLite's lower() folds ASCII only, so a
 * pattern lowered in JavaScript would never match non-ASCII capitals (`name~École`).
 */
function contains(expr: RawBuilder<unknown>, raw: string): RawBuilder<unknown> {
  const pattern = `%${raw.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql`(lower(${expr}) LIKE lower(${pattern}) ESCAPE '\\')`;
}
