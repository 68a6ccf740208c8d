import type { ValidateFunction } from 'ajv';
import { compileDocument, nodeAt, responseSchemaPointer, type Json, type OasDocument } from './openapi-contract.js';

/**
 * Ledgerport's own `GET /openapi.json` as a strict contract: every response a test receives must be what the
 * document declares for its operation and status, and an object that lists `properties` refuses any other property
 * unless the document says otherwise (`additionalProperties`, `patternProperties` or `unevaluatedProperties` of its
 * own). A field the server sends but the document does not declare is a failure, not a pass.
 */

type Node = { [key: string]: Json };

const isNode = (value: Json | undefined): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Keywords whose value is one schema (or, for `items` in older drafts, a list of them). */
const SUBSCHEMAS = [
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
];

/**
 * Makes one schema strict, in place. A plain object schema that lists `properties` gets `additionalProperties:
 * false`. Where properties come from composition, `additionalProperties` would be wrong (it sees only the
 * `properties` beside it, so `allOf: [{a}, {b}]` with each member closed accepts no object with both a and b), so
 * the composing schema gets `unevaluatedProperties: false` instead, which counts what every applied subschema
 * (`allOf`, the matching `anyOf`/`oneOf` branch, `$ref`) evaluated, and its parts are left open:
 * - `allOf` members are parts of one object: open, their own nested objects strict;
 * - `anyOf`/`oneOf` branches are whole alternatives (TypeBox's `Union`, `T | null`): strict each, unless the
 *   schema lists properties beside them, where they are parts again.
 * A `$ref` target is strict where it is defined, so a `$ref` used as a part (beside other properties) cannot be
 * opened here: that throws rather than checking something other than what the document says.
 */
export function makeStrict(schema: Json, whole = true, at = '#'): void {
  if (Array.isArray(schema)) return schema.forEach((item, i) => makeStrict(item, true, `${at}/${i}`));
  if (!isNode(schema)) return;
  const lists = isNode(schema.properties);
  const partsCompose = lists ? ['allOf', 'anyOf', 'oneOf', '$ref'].some((k) => k in schema) : 'allOf' in schema;
  const saysOtherwise = 'additionalProperties' in schema || 'patternProperties' in schema || 'unevaluatedProperties' in schema;
  if (whole && !saysOtherwise) {
    if (partsCompose) schema.unevaluatedProperties = false;
    else if (lists) schema.additionalProperties = false;
  }
  if (refParts(schema) > 0 && propertySources(schema) > 1)
    throw new Error(`${at}: a $ref used as one part of an object cannot be made strict here; write its properties out`);
  for (const keyword of SCHEMA_MAPS) {
    const map = schema[keyword];
    if (isNode(map)) for (const [name, sub] of Object.entries(map)) makeStrict(sub, true, `${at}/${keyword}/${name}`);
  }
  for (const keyword of SUBSCHEMAS) if (keyword in schema) makeStrict(schema[keyword], true, `${at}/${keyword}`);
  if (Array.isArray(schema.prefixItems)) makeStrict(schema.prefixItems, true, `${at}/prefixItems`);
  if (Array.isArray(schema.allOf)) schema.allOf.forEach((part, i) => makeStrict(part, false, `${at}/allOf/${i}`));
  for (const keyword of ['anyOf', 'oneOf'])
    if (Array.isArray(schema[keyword])) schema[keyword].forEach((branch, i) => makeStrict(branch, !lists, `${at}/${keyword}/${i}`));
}

/** How many `$ref`s are parts of the object: beside listed properties, or members of `allOf`. */
function refParts(schema: Node): number {
  const parts: Json[] = [...(Array.isArray(schema.allOf) ? schema.allOf : [])];
  if (isNode(schema.properties)) {
    parts.push({ $ref: schema.$ref ?? null });
    for (const k of ['anyOf', 'oneOf']) if (Array.isArray(schema[k])) parts.push(...schema[k]);
  }
  return parts.filter((part) => isNode(part) && typeof part.$ref === 'string').length;
}

/** How many parts bring properties to the object: its own list, and each `allOf` member. */
function propertySources(schema: Node): number {
  const own = isNode(schema.properties) ? 1 + ['anyOf', 'oneOf', '$ref'].filter((k) => k in schema).length : 0;
  return own + (Array.isArray(schema.allOf) ? schema.allOf.length : 0);
}

/** Every response body schema of a document: the operations' and `components.responses`'. */
function responseSchemas(document: OasDocument): { at: string; schema: Json }[] {
  const found: { at: string; schema: Json }[] = [];
  const ofResponses = (responses: Json | undefined, at: string) => {
    if (!isNode(responses)) return;
    for (const [status, response] of Object.entries(responses)) {
      if (!isNode(response) || !isNode(response.content)) continue;
      for (const [type, media] of Object.entries(response.content))
        if (isNode(media) && media.schema !== undefined) found.push({ at: `${at}/${status} ${type}`, schema: media.schema });
    }
  };
  for (const [path, item] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(item)) if (isNode(operation)) ofResponses(operation.responses, `${method} ${path}`);
  ofResponses(document.components.responses, 'components/responses');
  return found;
}

/**
 * Business dates are sent without an offset (`2023-03-31T00:00:00`, as Codat sends them) and marked
 * `'x-date-style': 'local'` beside `format: 'date-time'`, whose RFC 3339 form requires one: they are checked as
 * local date-times, the one format the document's own mark gives them. Everything else keeps its format.
 */
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

function markLocalDates(node: Json): void {
  if (Array.isArray(node)) return node.forEach(markLocalDates);
  if (!isNode(node)) return;
  if (node.format === 'date-time' && node['x-date-style'] === 'local') node.format = 'local-date-time';
  for (const [key, value] of Object.entries(node)) if (key !== 'example' && key !== 'examples') markLocalDates(value);
}

/** A copy of the document whose response schemas and component schemas are strict (`makeStrict`). */
export function strictDocument(document: OasDocument): OasDocument {
  const strict = structuredClone(document);
  markLocalDates(strict.components as Json);
  markLocalDates(strict.paths as Json);
  const schemas = strict.components.schemas;
  if (isNode(schemas)) for (const [name, schema] of Object.entries(schemas)) makeStrict(schema, true, `#/components/schemas/${name}`);
  for (const { at, schema } of responseSchemas(strict)) makeStrict(schema, true, at);
  return strict;
}

/**
 * Places in the response schemas (followed through `$ref`s) that accept any property by saying so
 * (`additionalProperties: true` or `{}`), as `<schema or operation> <JSON path>`: strictness cannot reach them, so a
 * test lists them against the few the API means to leave free.
 */
export function openObjects(document: OasDocument): string[] {
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (node: Json | undefined, where: string): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${where}/${i}`));
    if (!isNode(node)) return;
    if (typeof node.$ref === 'string' && !seen.has(node.$ref)) {
      seen.add(node.$ref);
      visit(nodeAt(document, node.$ref).node, node.$ref.replace('#/components/schemas/', ''));
    }
    const extra = node.additionalProperties;
    if (extra === true || (isNode(extra) && Object.keys(extra).length === 0)) found.add(where);
    for (const [key, value] of Object.entries(node))
      if (key !== 'example' && key !== 'examples' && key !== '$ref') visit(value, `${where}/${key}`);
  };
  for (const { at, schema } of responseSchemas(document)) visit(schema, at);
  return [...found].sort();
}

/** The media types an operation's request body declares (none when it declares no body). */
export function requestBodyTypes(document: OasDocument, method: string, path: string): string[] {
  const operation = document.paths[path]?.[method.toLowerCase()];
  if (!isNode(operation)) throw new Error(`/openapi.json has no operation ${method} ${path}`);
  const body = operation.requestBody;
  return isNode(body) && isNode(body.content) ? Object.keys(body.content) : [];
}

/**
 * The distinct problems of a failed validation, with array indexes as `*` (`/results/* must NOT have additional
 * properties {"additionalProperty":"metadata"}` once for a page, not once per record).
 */
export function distinctErrors(validate: ValidateFunction, max = 8): string {
  const seen = new Set<string>();
  for (const e of validate.errors ?? []) {
    // anyOf/oneOf summaries repeat what their branches said.
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') continue;
    seen.add(`${e.instancePath.replace(/\/\d+(?=\/|$)/g, '/*') || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }
  return [...seen].slice(0, max).join('; ');
}

/** What the own document declares for a response status: as `OasResponse`, with the media types of a body that is not JSON. */
export type OwnResponse =
  | { kind: 'schema'; validate: ValidateFunction; pointer: string }
  | { kind: 'no-json'; pointer: string; types: string[] }
  | { kind: 'undeclared' };

export interface OwnContract {
  /** The strict document, as compiled. */
  document: OasDocument;
  /** Like `oasResponseValidator`, against the strict own document; the path is its own template. */
  response(method: string, path: string, status: number): OwnResponse;
}

const OWN_ID = 'https://oas.ledgerport.test/own-openapi.json';

/** Compiles Ledgerport's own document (as served by `GET /openapi.json`) strictly. */
export function ownContract(served: OasDocument): OwnContract {
  const document = strictDocument(served);
  const ajv = compileDocument(OWN_ID, document);
  // compileDocument accepts unknown formats as annotations; this one is checked (schemas compile on first use).
  ajv.addFormat('local-date-time', LOCAL_DATE_TIME);
  const validators = new Map<string, ValidateFunction>();
  return {
    document,
    response(method, path, status) {
      if (!isNode(document.paths[path]?.[method.toLowerCase()])) throw new Error(`/openapi.json has no operation ${method} ${path}`);
      const declared = responseSchemaPointer(document, method, path, status);
      if (declared.kind === 'undeclared') return declared;
      if (declared.kind === 'no-json') {
        // The pointer is the response object itself (its body, if any, is not JSON).
        const response = nodeAt(document, `#${declared.pointer}`).node;
        const types = isNode(response) && isNode(response.content) ? Object.keys(response.content) : [];
        return { ...declared, types };
      }
      let validate = validators.get(declared.pointer);
      if (!validate) {
        validate = ajv.getSchema(`${OWN_ID}#${declared.pointer}`);
        if (!validate) throw new Error(`/openapi.json: cannot compile the schema at #${declared.pointer}`);
        validators.set(declared.pointer, validate);
      }
      return { kind: 'schema', validate, pointer: declared.pointer };
    },
  };
}
