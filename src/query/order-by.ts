import { sql, type RawBuilder } from 'kysely';
import type { QueryableResource } from './properties.js';
import { QuerySemanticError, UnknownPropertyError } from './query-compiler.js';

const TERM = /^\s*(-?)\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*$/;

/**
 * Compiles `orderBy` (`issueDate`, `-issueDate`, or several comma-separated) into ORDER BY terms.
 * Nulls sort as the smallest value on both stores.
 */
export function compileOrderBy(text: string, resource: QueryableResource): RawBuilder<unknown>[] {
  return text.split(',').map((term) => {
    const m = TERM.exec(term);
    if (!m) throw new QuerySemanticError(`Malformed orderBy.`);
    const [, minus, property] = m;
    const def = resource.resolve(property.split('.'));
    if (!def) throw new UnknownPropertyError(property, resource.typeName);
    if (def.sortable === false || def.compile) throw new QuerySemanticError(`Cannot order by property ${property}`);
    return minus ? sql`${def.expr} DESC NULLS LAST` : sql`${def.expr} ASC NULLS FIRST`;
  });
}
