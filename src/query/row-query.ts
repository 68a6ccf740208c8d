import { ApiError } from '../http/api-error.js';
import { QuerySemanticError, UnknownPropertyError } from './query-compiler.js';
import { normalizeDateValue } from './query-dates.js';
import { parseQuery, QuerySyntaxError, type ComparisonOperator, type QueryNode } from './query-parser.js';

/*
 * The query language (`query`, `orderBy`) over rows a service has made in memory (a report's entries), with the
 * same meaning the SQL compiler gives it over stored records (query-compiler.ts, order-by.ts): strings compare
 * without regard to case (`~` contains), numbers and dates compare as such, a row without the property is unequal to
 * everything and sorts first ascending, last descending; the same errors, as the same 400s.
 */

export interface RowField<Row> {
  type: 'string' | 'number' | 'date';
  /** How a `date` is written on the rows: as a UTC instant (`…Z`) or as a business-local time without offset. */
  dateStyle?: 'instant' | 'local';
  get(row: Row): string | number | null | undefined;
}

export interface RowResource<Row> {
  typeName: string;
  fields: Readonly<Record<string, RowField<Row>>>;
}

const ORDERING: ReadonlySet<ComparisonOperator> = new Set(['>', '<', '>=', '<=']);

/** The rows `query` selects, as a test of one row; a bad query is the 400 a stored list answers. */
export function rowFilter<Row>(text: string, resource: RowResource<Row>): (row: Row) => boolean {
  try {
    return compile(parseQuery(text), resource);
  } catch (error) {
    throw queryError(error, 'query');
  }
}

/** A comparison of rows by `orderBy` (`date`, `-amount`, several comma-separated); 400 when malformed. */
export function rowOrder<Row>(text: string, resource: RowResource<Row>): (x: Row, y: Row) => number {
  try {
    const terms = text.split(',').map((term) => {
      const m = /^\s*(-?)\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*$/.exec(term);
      if (!m) throw new QuerySemanticError('Malformed orderBy.');
      const field = fieldOf(resource, m[2]);
      return { field, descending: m[1] === '-' };
    });
    return (x, y) => {
      for (const { field, descending } of terms) {
        const a = sortable(field, field.get(x));
        const b = sortable(field, field.get(y));
        // Nulls first ascending and last descending, as on the stores.
        const order = a === b ? 0 : a === undefined ? -1 : b === undefined ? 1 : a < b ? -1 : 1;
        if (order !== 0) return descending ? -order : order;
      }
      return 0;
    };
  } catch (error) {
    throw queryError(error, 'orderBy');
  }
}

function fieldOf<Row>(resource: RowResource<Row>, property: string): RowField<Row> {
  const field = Object.hasOwn(resource.fields, property) ? resource.fields[property] : undefined;
  if (!field) throw new UnknownPropertyError(property, resource.typeName);
  return field;
}

function sortable<Row>(field: RowField<Row>, value: string | number | null | undefined): string | number | undefined {
  if (value === null || value === undefined) return undefined;
  if (field.type === 'string') return String(value).toLowerCase();
  if (field.type === 'date') return normalizeDateValue(String(value), field.dateStyle ?? 'local') ?? String(value);
  return value;
}

function compile<Row>(node: QueryNode, resource: RowResource<Row>): (row: Row) => boolean {
  if (node.kind !== 'compare') {
    const parts = node.children.map((child) => compile(child, resource));
    return node.kind === 'and' ? (row) => parts.every((p) => p(row)) : (row) => parts.some((p) => p(row));
  }
  const { property, op, value: raw } = node;
  const field = fieldOf(resource, property);
  const operatorError = () => new QuerySemanticError(`Operator ${op} cannot be applied to property ${property} of type ${field.type}`);
  let wanted: string | number;
  switch (field.type) {
    case 'number':
      if (op === '~') throw operatorError();
      wanted = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(wanted))
        throw new QuerySemanticError(`Value ${raw} is not a number for property ${property}`);
      break;
    case 'date': {
      if (op === '~') throw operatorError();
      const value = normalizeDateValue(raw, field.dateStyle ?? 'local');
      if (value === undefined) throw new QuerySemanticError(`Value ${raw} is not a date for property ${property}`);
      wanted = value;
      break;
    }
    case 'string':
      if (ORDERING.has(op)) throw operatorError();
      wanted = raw.toLowerCase();
      break;
  }
  return (row) => {
    const have = sortable(field, field.get(row));
    if (have === undefined) return op === '!=';
    switch (op) {
      case '=':
        return have === wanted;
      case '!=':
        return have !== wanted;
      case '~':
        return String(have).includes(String(wanted));
      case '>':
        return have > wanted;
      case '<':
        return have < wanted;
      case '>=':
        return have >= wanted;
      case '<=':
        return have <= wanted;
    }
  };
}

/** A query's or orderBy's error as the 400 naming the parameter; anything else as it is. */
export function queryError(err: unknown, parameter: string): unknown {
  if (!(err instanceof QuerySyntaxError) && !(err instanceof QuerySemanticError)) return err;
  return new ApiError(400, `Error parsing ${parameter} - ${err.message}`, {
    validation: [{ itemId: parameter, message: err.message, validatorName: parameter === 'orderBy' ? 'OrderByParser' : 'QueryParser' }],
  });
}
