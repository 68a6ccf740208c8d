import { KindGuard, type TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { WriteModel } from '../connectors/connector.js';
import type { DataType } from '../codat-model/data-types.js';
import { enumValues, READ_ONLY_FIELDS, withoutNull } from '../codat-model/write-schema.js';
import type { ValidationItem } from '../http/api-error.js';
import { validationItems } from '../http/validation-messages.js';
import { normalizeDateValue } from '../query/query-dates.js';

const VALIDATOR = 'WriteValidator';

const ajv = addFormats.default(new Ajv.default({ allErrors: true, strict: false, coerceTypes: false }));
// Codat takes every DateTime field in any of the forms of facts 2.2 (a bare date, a time without offset, ...);
// ajv's own date-time demands an offset. Queries accept the same forms, so both use one definition.
ajv.addFormat('date-time', (text: string) => text === text.trim() && normalizeDateValue(text, 'instant') !== undefined);

const compiled = new WeakMap<TSchema, ValidateFunction>();

/**
 * Problems with a record sent to create or update, one item per problem (empty = valid). Each item names the
 * field (`lineItems.0.quantity`) and says what is wrong with it.
 */
export function validateWrittenRecord(model: WriteModel, body: unknown): ValidationItem[] {
  if (!isObject(body)) return [{ itemId: 'body', message: 'body must be an object', validatorName: VALIDATOR }];
  const items: ValidationItem[] = [];
  const fields = (model.schema.properties ?? {}) as Record<string, TSchema>;
  const typeName = model.schema.title ?? model.dataType;
  for (const field of Object.keys(body)) {
    if ((READ_ONLY_FIELDS as readonly string[]).includes(field)) {
      items.push({ itemId: field, message: `${field} is read-only and cannot be written`, validatorName: VALIDATOR });
    } else if (!Object.hasOwn(fields, field) && field !== 'supplementalData') {
      // Unknown fields are allowed when served, but a misspelt field in a write would otherwise be dropped unseen.
      items.push({ itemId: field, message: `${field} is not a field of ${typeName}`, validatorName: VALIDATOR });
    }
  }
  const validate = validatorOf(model.schema);
  if (!validate(body)) items.push(...validationItems((validate.errors ?? []).map(withoutNullChoice), 'body', VALIDATOR));
  return items;
}

/** The ids the record names (non-empty strings only), with the field and data type of each. */
export function referencedIds(model: WriteModel, record: Record<string, unknown>): { field: string; dataType: DataType; id: string }[] {
  return model.references.flatMap((ref) => [...idsAt(record, ref.path, [])].map(([field, id]) => ({ field, dataType: ref.dataType, id })));
}

/**
 * The ids a write's records name, each once, with the field of the write that names it: a batch's transactions by
 * their place (`transactions.2.…`), except the account they all name (`accountId`, the batch's own field too).
 */
export function namedReferences(
  model: WriteModel,
  records: readonly { record: Record<string, unknown> }[],
): { field: string; dataType: DataType; id: string }[] {
  const named: { field: string; dataType: DataType; id: string }[] = [];
  const seen = new Set<string>();
  for (const [i, { record }] of records.entries()) {
    for (const ref of referencedIds(model, record)) {
      const field = records.length > 1 && ref.field !== 'accountId' ? `transactions.${i}.${ref.field}` : ref.field;
      if (seen.has(`${field}\u0000${ref.id}`)) continue;
      seen.add(`${field}\u0000${ref.id}`);
      named.push({ field, dataType: ref.dataType, id: ref.id });
    }
  }
  return named;
}

/** The record as the platform stores it: nulls dropped (at any depth), so it validates against the served schema. */
export function withoutNulls(record: Record<string, unknown>): Record<string, unknown> {
  return dropNulls(record) as Record<string, unknown>;
}

/**
 * The record as the platform stores and serves it: nulls dropped and every date in the form its served schema
 * uses (business dates `YYYY-MM-DDTHH:mm:ss`, instants UTC with `Z`), however it was written, so that served
 * records keep one form and date filters, which compare text, order them correctly.
 */
export function asStored(model: Pick<WriteModel, 'schema'>, record: Record<string, unknown>): Record<string, unknown> {
  return storedDates(model.schema, withoutNulls(record)) as Record<string, unknown>;
}

/** Problems with a value against a schema, one item per problem naming its path (`results.3.amount`). */
export function schemaProblems(schema: TSchema, value: unknown, validatorName: string): ValidationItem[] {
  const validate = validatorOf(schema);
  return validate(value) ? [] : validationItems((validate.errors ?? []).map(withoutNullChoice), 'body', validatorName);
}

function validatorOf(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(forAjv(schema));
    compiled.set(schema, validate);
  }
  return validate;
}

type Json = Record<string, unknown>;

/**
 * The schema as ajv best reports on it. As TypeBox types, an optional field is "its type or null" and an enum
 * a union of literals; ajv would report every branch of such a union that failed (`must be null`, `must be
 * "Draft"`, ...). As a type list and an `enum`, a wrong value gets one item: `must be a number or null`,
 * `must be one of: ...`.
 */
function forAjv(schema: TSchema): Json {
  const node = withoutNull(schema);
  const nullable = node !== schema;
  const { anyOf: _anyOf, properties: _properties, items: _items, const: _const, ...out } = JSON.parse(JSON.stringify(node)) as Json;
  const values = enumValues(node);
  if (values) return { ...out, type: nullable ? ['string', 'null'] : 'string', enum: nullable ? [...values, null] : values };
  if (KindGuard.IsUnion(node)) {
    const union = { ...out, anyOf: node.anyOf.map(forAjv) };
    return nullable ? { anyOf: [union, { type: 'null' }] } : union;
  }
  if (KindGuard.IsObject(node)) {
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([name, property]) => [name, forAjv(property)]));
  }
  if (KindGuard.IsArray(node)) out.items = forAjv(node.items);
  if (nullable && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/** A nullable enum lists null among its values; the message should name only the real ones. */
function withoutNullChoice(error: ErrorObject): ErrorObject {
  if (error.keyword !== 'enum') return error;
  const allowed = (error.params as { allowedValues: unknown[] }).allowedValues.filter((v) => v !== null);
  return { ...error, params: { ...error.params, allowedValues: allowed } };
}

function* idsAt(value: unknown, path: readonly string[], at: string[]): Generator<[string, string]> {
  if (path.length === 0) {
    if (typeof value === 'string' && value !== '') yield [at.join('.'), value];
    return;
  }
  const [step, ...rest] = path;
  if (step === '*') {
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* idsAt(value[i], rest, [...at, String(i)]);
  } else if (isObject(value) && Object.hasOwn(value, step)) {
    yield* idsAt(value[step], rest, [...at, step]);
  }
}

function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, dropNulls(v)]),
  );
}

function storedDates(schema: TSchema, value: unknown): unknown {
  const node = withoutNull(schema);
  if (typeof value === 'string' && node.format === 'date-time') {
    const style = node['x-date-style'] === 'local' ? 'local' : 'instant';
    return normalizeDateValue(value, style)?.replace(/\.000Z$/, 'Z') ?? value;
  }
  if (Array.isArray(value) && KindGuard.IsArray(node)) return value.map((v) => storedDates(node.items, v));
  if (isObject(value) && KindGuard.IsObject(node)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, Object.hasOwn(node.properties, k) ? storedDates(node.properties[k], v) : v]),
    );
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
