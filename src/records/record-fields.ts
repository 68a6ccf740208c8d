import type { TSchema } from '@sinclair/typebox';

/**
 * The few record fields that lists filter and sort on most, copied out of each record into narrow columns
 * (`record_index.f_*`) when a version is written. Filters and orderBy on them read those columns instead of
 * extracting JSON from every stored document, so a full pass over a million-record version is a scan of a
 * narrow table. Which field of a data type fills each column follows from its schema (first match wins).
 */
export const INDEXED_COLUMNS = ['status', 'date', 'amount', 'currency', 'ref'] as const;
export type IndexedColumn = (typeof INDEXED_COLUMNS)[number];

/** Dotted path of the field each column holds for one data type; absent columns stay null. */
export type RecordFieldPaths = Partial<Record<IndexedColumn, string>>;

const CANDIDATES: Record<IndexedColumn, { paths: string[]; kind: 'string' | 'date' | 'number' }> = {
  status: { paths: ['status'], kind: 'string' },
  date: { paths: ['issueDate', 'date', 'postedDate', 'postedOn', 'createdDate', 'closedDate'], kind: 'date' },
  amount: { paths: ['amountDue', 'totalAmount', 'amount'], kind: 'number' },
  currency: { paths: ['currency'], kind: 'string' },
  ref: { paths: ['customerRef.id', 'supplierRef.id', 'accountId', 'contactRef.id'], kind: 'string' },
};

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  const?: unknown;
  format?: string;
};

const cache = new WeakMap<TSchema, RecordFieldPaths>();

/** The indexed fields of a data type, from the schema of its served records. */
export function recordFieldPaths(schema: TSchema): RecordFieldPaths {
  let paths = cache.get(schema);
  if (!paths) {
    paths = {};
    for (const column of INDEXED_COLUMNS) {
      const { paths: candidates, kind } = CANDIDATES[column];
      const found = candidates.find((path) => leafKind(schema as JsonSchema, path.split('.')) === kind);
      if (found) paths[column] = found;
    }
    cache.set(schema, paths);
  }
  return paths;
}

function leafKind(schema: JsonSchema, path: string[]): 'string' | 'date' | 'number' | undefined {
  let node: JsonSchema | undefined = schema;
  for (const key of path) node = unwrap(node)?.properties?.[key];
  node = unwrap(node);
  if (!node) return undefined;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('number') || types.includes('integer')) return 'number';
  if (types.includes('string')) return node.format === 'date-time' || node.format === 'date' ? 'date' : 'string';
  // TypeBox enums: a union of string constants.
  if (node.anyOf?.every((m) => typeof m.const === 'string')) return 'string';
  return undefined;
}

function unwrap(node: JsonSchema | undefined): JsonSchema | undefined {
  if (!node?.anyOf) return node;
  const members = node.anyOf.filter((m) => m.type !== 'null');
  return members.length === 1 ? members[0] : node;
}

/** The column values of one record, in INDEXED_COLUMNS order; a missing field or one of another type is null. */
export function extractFields(paths: RecordFieldPaths, data: Record<string, unknown>): (string | number | null)[] {
  return INDEXED_COLUMNS.map((column) => {
    const path = paths[column];
    if (!path) return null;
    let value: unknown = data;
    for (const key of path.split('.'))
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    if (CANDIDATES[column].kind === 'number') return typeof value === 'number' ? value : null;
    return typeof value === 'string' ? value : null;
  });
}
