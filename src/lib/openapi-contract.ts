import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * What every OpenAPI 3.0 contract an answer is validated against needs, whoever published it (Codat: the tests'
 * test/helpers/oas.ts and the emulator's EMULATOR_VALIDATE, src/emulator/codat-contract.ts; the platforms' vendors:
 * test/contracts/): the 3.0 → JSON Schema 2020 rewrite, one Ajv per document, and finding the schema an operation
 * declares for a response status.
 */

export type Ajv = InstanceType<typeof Ajv2020.default>;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** OpenAPI 3.0 `nullable` → JSON Schema 2020 null types; everything else is copied. */
export function toJsonSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    // `example(s)` hold instance data, not schemas: keep them out of the rewrite.
    out[key] = key === 'example' || key === 'examples' ? value : toJsonSchema(value);
  }
  if (out.nullable !== true) {
    delete out.nullable;
    return out;
  }
  delete out.nullable;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  if (Array.isArray(out.type)) {
    if (!out.type.includes('null')) out.type = [...out.type, 'null'];
    return out;
  }
  // No type (e.g. a `$ref` with `nullable` beside it): the value is either the schema or null.
  return { anyOf: [out, { type: 'null' }] };
}

function collectFormats(node: Json, into: Set<string>): void {
  if (Array.isArray(node)) node.forEach((n) => collectFormats(n, into));
  else if (node && typeof node === 'object') {
    if (typeof node.format === 'string') into.add(node.format);
    for (const [key, value] of Object.entries(node)) if (key !== 'example' && key !== 'examples') collectFormats(value, into);
  }
}

/** A JSON pointer (RFC 6901) as a URI fragment: `~` and `/` escaped in each segment, then percent-encoded. */
export function fragmentOf(segments: readonly string[]): string {
  return segments.map((segment) => `/${encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');
}

/** The node at a `#/a/b` reference of a document, with the reference's segments. */
export function nodeAt(document: OasDocument, ref: string): { node: Json | undefined; segments: string[] } {
  if (!ref.startsWith('#/')) throw new Error(`only local references are supported, got ${ref}`);
  const segments = ref
    .slice(2)
    .split('/')
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: Json | undefined = document as unknown as Json;
  for (const segment of segments) node = node && typeof node === 'object' && !Array.isArray(node) ? node[segment] : undefined;
  return { node, segments };
}

/** A parsed OpenAPI document, as its publisher wrote it (before the `nullable` rewrite). */
export interface OasDocument {
  paths: { [path: string]: { [key: string]: Json } };
  components: { [key: string]: Json };
  [key: string]: Json | undefined;
}

/**
 * One Ajv holding a whole document under `$id` (its `components` and `paths`, rewritten): schemas are reached by
 * pointer, `${id}#/components/schemas/Invoice`. Formats Ajv does not know (`decimal`, `ISO4217`, `int32`, ...)
 * are accepted as annotations.
 */
export function compileDocument(id: string, document: OasDocument): Ajv {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  const formats = new Set<string>();
  collectFormats(document.components, formats);
  collectFormats(document.paths, formats);
  for (const format of formats) if (!ajv.formats[format]) ajv.addFormat(format, true);
  // `paths` too: some documents' schemas refer into it (e.g. Codat's companyId schema lives in a request body).
  ajv.addSchema({ $id: id, components: toJsonSchema(document.components), paths: toJsonSchema(document.paths ?? {}) } as object);
  return ajv;
}

/**
 * Where an operation's document declares the response body for a status: responses → status (else `default`) →
 * content → application/json (or another JSON type) → schema, following `$ref`s to `components/responses`.
 * `no-json`: declared without a JSON body; `undeclared`: neither the status nor `default` is declared.
 */
export function responseSchemaPointer(
  document: OasDocument,
  method: string,
  path: string,
  status: number,
): { kind: 'schema'; pointer: string } | { kind: 'no-json'; pointer: string } | { kind: 'undeclared' } {
  const operation = document.paths[path]?.[method.toLowerCase()];
  if (!operation || typeof operation !== 'object' || Array.isArray(operation)) throw new Error(`no operation ${method} ${path}`);
  const responses = operation.responses as { [status: string]: Json } | undefined;
  const key = responses?.[String(status)] !== undefined ? String(status) : responses?.default !== undefined ? 'default' : undefined;
  if (!responses || key === undefined) return { kind: 'undeclared' };
  let segments = ['paths', path, method.toLowerCase(), 'responses', key];
  let response: Json | undefined = responses[key];
  // A response may be a reference to `components/responses/...` (which may itself be one).
  for (let hops = 0; response && typeof response === 'object' && !Array.isArray(response) && typeof response.$ref === 'string'; hops++) {
    if (hops > 10) throw new Error(`reference loop at ${segments.join('/')}`);
    ({ node: response, segments } = nodeAt(document, response.$ref));
  }
  const content = response && typeof response === 'object' && !Array.isArray(response) ? response.content : undefined;
  const types = content && typeof content === 'object' && !Array.isArray(content) ? Object.keys(content) : [];
  const jsonType = types.find((type) => type.split(';')[0].trim() === 'application/json') ?? types.find((type) => /[/+]json\b/.test(type));
  const pointer = fragmentOf(jsonType ? [...segments, 'content', jsonType, 'schema'] : segments);
  if (!jsonType || (content as { [type: string]: { schema?: Json } })[jsonType].schema === undefined) return { kind: 'no-json', pointer };
  return { kind: 'schema', pointer };
}

/** A readable summary of a failed validation (first few errors). */
export function validationErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('; ');
}
