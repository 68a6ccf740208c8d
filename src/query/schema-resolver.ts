import type { TSchema } from '@sinclair/typebox';
import type { SqlDialect } from '../storage/dialect.js';
import type { PropertyDef, PropertyResolver } from './properties.js';

type JsonSchema = TSchema & {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  enum?: string[];
  const?: unknown;
  format?: string;
  'x-date-style'?: 'instant' | 'local';
};

/**
 * Resolves dotted properties against the JSON schema of a stored document: objects are walked,
 * arrays cannot be queried (as in Codat), leaves map to a typed JSON extraction on `column`.
 * `overrides` maps whole dotted paths to definitions that read real columns instead.
 */
export function resolverFromSchema(
  schema: TSchema,
  column: string,
  dialect: SqlDialect,
  overrides: Record<string, PropertyDef> = {},
): PropertyResolver {
  return (path) => {
    // Own keys only: a path such as `constructor` must not find Object.prototype members.
    const dotted = path.join('.');
    if (Object.hasOwn(overrides, dotted)) return overrides[dotted];
    let node: JsonSchema | undefined = schema as JsonSchema;
    for (const key of path) {
      node = unwrapNullable(node);
      if (!node || !isObject(node) || !node.properties || !Object.hasOwn(node.properties, key)) return undefined;
      node = node.properties[key];
    }
    node = unwrapNullable(node);
    if (!node) return undefined;
    return leafDefinition(node, column, path, dialect);
  };
}

function isObject(node: JsonSchema): boolean {
  return node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
}

/** `T | null` is written as anyOf [T, null]; both forms read as T. */
function unwrapNullable(node: JsonSchema | undefined): JsonSchema | undefined {
  if (!node?.anyOf) return node;
  const members = node.anyOf.filter((m) => m.type !== 'null');
  if (members.length === 1) return members[0];
  // A union of string constants (TypeBox's enum form).
  if (members.every((m) => typeof m.const === 'string')) {
    return { type: 'string', enum: members.map((m) => m.const as string) } as JsonSchema;
  }
  return undefined;
}

function leafDefinition(node: JsonSchema, column: string, path: readonly string[], dialect: SqlDialect): PropertyDef | undefined {
  const type = Array.isArray(node.type) ? node.type.find((t) => t !== 'null') : node.type;
  if (node.enum) return { type: 'enum', enumValues: node.enum, expr: dialect.jsonText(column, path) };
  switch (type) {
    case 'string':
      if (node.format === 'date-time' || node.format === 'date') {
        return { type: 'date', dateStyle: node['x-date-style'] ?? 'instant', expr: dialect.jsonText(column, path) };
      }
      return { type: 'string', expr: dialect.jsonText(column, path) };
    case 'number':
    case 'integer':
      return { type: 'number', expr: dialect.jsonNumber(column, path) };
    case 'boolean':
      return { type: 'boolean', expr: dialect.jsonBool(column, path) };
    default:
      return undefined;
  }
}
