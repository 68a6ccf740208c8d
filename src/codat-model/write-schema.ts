import { KindGuard, type TSchema, Type } from '@sinclair/typebox';

/** Fields the platform or the service sets on every record; a write may not send them (facts 1.8). */
export const READ_ONLY_FIELDS = ['id', 'modifiedDate', 'sourceModifiedDate', 'metadata'] as const;

/**
 * The schema of a record as written, derived from the schema it is served with: the read-only top-level fields
 * are gone, and every optional field, at any depth, also accepts null (clients send null for "not set", as
 * Codat's own documents do). Required fields stay required and unknown fields stay allowed, as when served.
 */
export function writeSchemaOf(served: TSchema): TSchema {
  if (!KindGuard.IsObject(served)) throw new Error(`a served record schema must be an object (${served.title ?? 'untitled'})`);
  const properties = Object.fromEntries(
    Object.entries(served.properties).filter(([name]) => !(READ_ONLY_FIELDS as readonly string[]).includes(name)),
  );
  return written({ ...served, properties });
}

function written(schema: TSchema): TSchema {
  if (KindGuard.IsObject(schema)) {
    const properties: Record<string, TSchema> = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      properties[name] = KindGuard.IsOptional(property) ? Type.Optional(Type.Union([written(property), Type.Null()])) : written(property);
    }
    return Type.Object(properties, annotations(schema));
  }
  if (KindGuard.IsArray(schema)) return Type.Array(written(schema.items), annotations(schema));
  if (KindGuard.IsUnion(schema) && enumValues(schema) === undefined) return Type.Union(schema.anyOf.map(written), annotations(schema));
  // Scalars, enums and free-form maps (supplementalData) are written as they are served.
  return schema;
}

/** The non-structural keywords of a schema (title, description, formats, ...), without TypeBox's markers. */
function annotations(schema: TSchema): Record<string, unknown> {
  const { type: _type, properties: _properties, required: _required, items: _items, anyOf: _anyOf, ...rest } = schema;
  return Object.fromEntries(Object.entries(rest));
}

/** The schema without the null a write schema allows beside an optional field's own type. */
export function withoutNull(schema: TSchema): TSchema {
  if (!KindGuard.IsUnion(schema)) return schema;
  const others = schema.anyOf.filter((branch) => !KindGuard.IsNull(branch));
  return others.length === 1 && others.length < schema.anyOf.length ? others[0] : schema;
}

/** The values of an enum (Codat's enums are unions of string literals), or undefined for any other schema. */
export function enumValues(schema: TSchema): string[] | undefined {
  // TypeBox collapses a one-value union to its literal.
  if (KindGuard.IsLiteralString(schema)) return [schema.const];
  if (!KindGuard.IsUnion(schema) || schema.anyOf.length === 0) return undefined;
  const values = schema.anyOf.map((branch) => (KindGuard.IsLiteralString(branch) ? branch.const : undefined));
  return values.every((v): v is string => v !== undefined) ? values : undefined;
}
