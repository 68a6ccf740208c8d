import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';

/**
 * Validators for Codat's published OpenAPI documents, so tests can check that served records and pages have
 * Codat's wire shape. Codat publishes those files without a licence, so they are not in this repository: they are
 * read from `../shared/reference/codat-oas` beside the checkout, or from `CODAT_OAS_DIR`. Where they are absent,
 * the tests that need them skip and print why (`codatOas.skipReason`).
 *
 * The documents are OpenAPI 3.0: `nullable: true` is rewritten into JSON Schema (`type: [T, 'null']`, or an
 * `anyOf` with null beside a `$ref`), formats Ajv does not know (`decimal`, `ISO4217`, ...) are accepted as
 * annotations, and `#/components/schemas/...` references (including ones into `definitions` and `allOf/1`)
 * resolve against the document itself. `Codat-Lending.yaml` is YAML and read with the `yaml` package.
 *
 * `oasValidator` checks against a named component schema; `oasResponseValidator` against what an operation declares
 * for a response status (following `$ref`s to `components/responses`), for contract tests over whole operations.
 */

export type OasFile = 'Codat-Banking.json' | 'Codat-Commerce.json' | 'Codat-Platform.json' | 'Codat-Lending.yaml';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const OAS_DIR = resolve(REPO_ROOT, process.env.CODAT_OAS_DIR || '../shared/reference/codat-oas');
/** Every file the tests read; Lending is YAML (parsed with `yaml`), the rest JSON. */
export const OAS_FILES: readonly OasFile[] = ['Codat-Platform.json', 'Codat-Banking.json', 'Codat-Commerce.json', 'Codat-Lending.yaml'];
const missing = OAS_FILES.filter((file) => !existsSync(resolve(OAS_DIR, file)));

/** Whether Codat's OpenAPI files can be read here, and if not, the reason a test prints when it skips. */
export const codatOas = {
  available: missing.length === 0,
  skipReason:
    missing.length === 0
      ? ''
      : `Codat's OpenAPI files are not at ${OAS_DIR} (missing ${missing.join(', ')}); set CODAT_OAS_DIR to the folder holding them. Skipping the checks against Codat's schemas.`,
};

let reasonPrinted = false;
/**
 * True when Codat's files are here; otherwise prints the skip reason (once per test file) and returns false.
 * With CODAT_OAS_REQUIRED=1 (set by .ci/run, where shared/ is always beside the checkout) absence is a failure, so
 * a CI run cannot pass while checking nothing against Codat's schemas.
 */
export function codatOasOrSkip(): boolean {
  if (!codatOas.available && process.env.CODAT_OAS_REQUIRED === '1') throw new Error(`CODAT_OAS_REQUIRED=1: ${codatOas.skipReason}`);
  if (!codatOas.available && !reasonPrinted) {
    reasonPrinted = true;
    console.warn(`[skipped] ${codatOas.skipReason}`);
  }
  return codatOas.available;
}

type Ajv = InstanceType<typeof Ajv2020.default>;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** OpenAPI 3.0 `nullable` → JSON Schema 2020 null types; everything else is copied. */
function toJsonSchema(node: Json): Json {
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

const idOf = (file: OasFile) => `https://oas.ledgerport.test/${file}`;

/** A parsed OpenAPI document, as Codat publishes it (before the `nullable` rewrite). */
export interface OasDocument {
  paths: { [path: string]: { [key: string]: Json } };
  components: { [key: string]: Json };
  [key: string]: Json | undefined;
}

const documents = new Map<OasFile, OasDocument>();

/**
 * The document of an OAS file, parsed once per test file and shared: corrections (`correctOasDocument`) edit this
 * very object, so they must run before the first validator of the file is compiled.
 */
export function oasDocument(file: OasFile): OasDocument {
  let document = documents.get(file);
  if (document) return document;
  const text = readFileSync(resolve(OAS_DIR, file), 'utf8');
  document = (file.endsWith('.yaml') ? parseYaml(text) : JSON.parse(text)) as OasDocument;
  documents.set(file, document);
  return document;
}

/**
 * Applies a correction to a loaded document (a defect in Codat's own file). Refused once the file's validators
 * are compiled, since a correction made after that would silently not apply to them.
 */
export function correctOasDocument(file: OasFile, correct: (document: OasDocument) => void): void {
  if (instances.has(file)) throw new Error(`${file} is already compiled: apply corrections before the first validator`);
  correct(oasDocument(file));
}

const instances = new Map<OasFile, Ajv>();

function ajvFor(file: OasFile): Ajv {
  let ajv = instances.get(file);
  if (ajv) return ajv;
  const document = oasDocument(file);
  ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  const formats = new Set<string>();
  collectFormats(document.components, formats);
  collectFormats(document.paths, formats);
  // OpenAPI-only or Codat-specific formats (`decimal`, `ISO4217`, `ISO3166 Alpha-3`, ...) are annotations.
  for (const format of formats) if (!ajv.formats[format]) ajv.addFormat(format, true);
  // `paths` too: the Platform document's schemas refer into it (e.g. companyId's schema lives in a request body).
  ajv.addSchema({ $id: idOf(file), components: toJsonSchema(document.components), paths: toJsonSchema(document.paths ?? {}) } as object);
  instances.set(file, ajv);
  return ajv;
}

const validators = new Map<string, ValidateFunction>();

/**
 * A validator for `#/components/schemas/<schemaName>` of an OAS file, e.g. `oasValidator('Codat-Banking.json',
 * 'Transaction')` for one record or `'Transactions'` for a page. Errors are on `validate.errors`.
 */
export function oasValidator(file: OasFile, schemaName: string): ValidateFunction {
  const key = `${file}#${schemaName}`;
  const cached = validators.get(key);
  if (cached) return cached;
  const validate = ajvFor(file).getSchema(`${idOf(file)}#/components/schemas/${schemaName}`);
  if (!validate) throw new Error(`${file} has no schema ${schemaName}`);
  validators.set(key, validate);
  return validate;
}

/** A readable summary of a failed validation (first few errors). */
export function oasErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('; ');
}

/** A JSON pointer (RFC 6901) as a URI fragment: `~` and `/` escaped in each segment, then percent-encoded. */
function fragmentOf(segments: readonly string[]): string {
  return segments.map((segment) => `/${encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');
}

/** The node at a `#/a/b` reference of a document, with the reference's segments. */
function nodeAt(document: OasDocument, ref: string): { node: Json | undefined; segments: string[] } {
  if (!ref.startsWith('#/')) throw new Error(`only local references are supported, got ${ref}`);
  const segments = ref
    .slice(2)
    .split('/')
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: Json | undefined = document as unknown as Json;
  for (const segment of segments) node = node && typeof node === 'object' && !Array.isArray(node) ? node[segment] : undefined;
  return { node, segments };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

/** Every operation of an OAS file: its method (upper case) and path template as the file spells it. */
export function oasOperations(file: OasFile): { method: string; path: string }[] {
  const operations: { method: string; path: string }[] = [];
  for (const [path, item] of Object.entries(oasDocument(file).paths)) {
    for (const method of HTTP_METHODS) if (item[method]) operations.push({ method: method.toUpperCase(), path });
  }
  return operations;
}

/**
 * What an operation's document says about one response status:
 * - `schema`: the JSON body's schema, as a compiled validator (`pointer` says where it is in the file);
 * - `no-json`: the status is declared without a JSON body (a 204, a PDF, ...), so only the status can be checked;
 * - `undeclared`: the operation declares neither that status nor `default`.
 */
export type OasResponse =
  { kind: 'schema'; validate: ValidateFunction; pointer: string } | { kind: 'no-json'; pointer: string } | { kind: 'undeclared' };

/**
 * The validator of an operation's response body for a status, e.g. `oasResponseValidator('Codat-Lending.yaml',
 * 'GET', '/companies/{companyId}/data/invoices', 200)`: responses → status (else `default`) → content →
 * application/json → schema, following `$ref`s to `components/responses`. The path is the file's own template.
 */
export function oasResponseValidator(file: OasFile, method: string, path: string, status: number): OasResponse {
  const document = oasDocument(file);
  const operation = document.paths[path]?.[method.toLowerCase()];
  if (!operation || typeof operation !== 'object' || Array.isArray(operation))
    throw new Error(`${file} has no operation ${method} ${path}`);
  const responses = operation.responses as { [status: string]: Json } | undefined;
  const key = responses?.[String(status)] !== undefined ? String(status) : responses?.default !== undefined ? 'default' : undefined;
  if (!responses || key === undefined) return { kind: 'undeclared' };
  let segments = ['paths', path, method.toLowerCase(), 'responses', key];
  let response: Json | undefined = responses[key];
  // A response may be a reference to `components/responses/...` (which may itself be one).
  for (let hops = 0; response && typeof response === 'object' && !Array.isArray(response) && typeof response.$ref === 'string'; hops++) {
    if (hops > 10) throw new Error(`${file}: reference loop at ${segments.join('/')}`);
    ({ node: response, segments } = nodeAt(document, response.$ref));
  }
  const content = response && typeof response === 'object' && !Array.isArray(response) ? response.content : undefined;
  const types = content && typeof content === 'object' && !Array.isArray(content) ? Object.keys(content) : [];
  const jsonType = types.find((type) => type.split(';')[0].trim() === 'application/json') ?? types.find((type) => /[/+]json\b/.test(type));
  const pointer = fragmentOf(jsonType ? [...segments, 'content', jsonType, 'schema'] : segments);
  if (!jsonType || (content as { [type: string]: { schema?: Json } })[jsonType].schema === undefined) return { kind: 'no-json', pointer };
  const cacheKey = `${file}#${pointer}`;
  let validate = validators.get(cacheKey);
  if (!validate) {
    validate = ajvFor(file).getSchema(`${idOf(file)}#${pointer}`);
    if (!validate) throw new Error(`${file}: cannot compile the schema at #${pointer}`);
    validators.set(cacheKey, validate);
  }
  return { kind: 'schema', validate, pointer };
}
