import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Validators for Codat's published OpenAPI documents, so tests can check that served records and pages have
 * Codat's wire shape. Codat publishes those files without a licence, so they are not in this repository: they are
 * read from `../shared/reference/codat-oas` beside the checkout, or from `CODAT_OAS_DIR`. Where they are absent,
 * the tests that need them skip and print why (`codatOas.skipReason`).
 *
 * The documents are OpenAPI 3.0: `nullable: true` is rewritten into JSON Schema (`type: [T, 'null']`, or an
 * `anyOf` with null beside a `$ref`), formats Ajv does not know (`decimal`, `ISO4217`, ...) are accepted as
 * annotations, and `#/components/schemas/...` references (including ones into `definitions` and `allOf/1`)
 * resolve against the document itself.
 */

export type OasFile = 'Codat-Banking.json' | 'Codat-Commerce.json' | 'Codat-Platform.json';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const OAS_DIR = resolve(REPO_ROOT, process.env.CODAT_OAS_DIR || '../shared/reference/codat-oas');
const OAS_FILES: OasFile[] = ['Codat-Platform.json', 'Codat-Banking.json', 'Codat-Commerce.json'];
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
/** True when Codat's files are here; otherwise prints the skip reason (once per test file) and returns false. */
export function codatOasOrSkip(): boolean {
  if (!codatOas.available && !reasonPrinted) {
    reasonPrinted = true;
    console.warn(`[skipped] ${codatOas.skipReason}`);
  }
  return codatOas.available;
}

type Ajv = InstanceType<typeof Ajv2020.default>;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

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

const instances = new Map<OasFile, Ajv>();

function ajvFor(file: OasFile): Ajv {
  let ajv = instances.get(file);
  if (ajv) return ajv;
  const document = JSON.parse(readFileSync(resolve(OAS_DIR, file), 'utf8')) as { components: Json; paths?: Json };
  ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  const formats = new Set<string>();
  collectFormats(document.components, formats);
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
