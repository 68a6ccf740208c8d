import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { CODAT_FILES } from '../../src/codat-model/codat-oas-files.js';
import { compileDocument, responseSchemaPointer, validationErrors, type Ajv, type OasDocument } from './openapi-contract.js';

export type { Json, OasDocument } from './openapi-contract.js';

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

export type OasFile =
  | 'Codat-Banking.json'
  | 'Codat-Commerce.json'
  | 'Codat-Platform.json'
  | 'Codat-Lending.yaml'
  // Codat's Sync for Commerce file: the one of Codat's files that defines refresh-company-info (`POST …/data/info`).
  // Read only by the test of that operation, which skips where the file is absent.
  | 'Codat-Sync-Commerce-v1.json'
  // Codat's Sync for Payables file: read (with the others) by the check of the emulator's operation table.
  | 'Codat-Sync-Payables-v1.json';

/** Whether one of Codat's files is here (those beyond OAS_FILES are optional: their tests skip without them). */
export function oasFileHere(file: OasFile): boolean {
  return existsSync(resolve(OAS_DIR, file));
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const OAS_DIR = resolve(REPO_ROOT, process.env.CODAT_OAS_DIR || '../shared/reference/codat-oas');
/** Every file the tests read; Lending is YAML (parsed with `yaml`), the rest JSON. */
export const OAS_FILES: readonly OasFile[] = CODAT_FILES;
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

const idOf = (file: OasFile) => `https://oas.ledgerport.test/${file}`;

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
 * Forgets every parsed document and compiled validator. Test files share a worker's modules (vitest.config.ts), so
 * a file that corrects documents starts from fresh ones, and afterwards leaves fresh ones for the next file.
 */
export function resetOasCaches(): void {
  documents.clear();
  instances.clear();
  validators.clear();
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
  ajv = compileDocument(idOf(file), oasDocument(file));
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
export const oasErrors = validationErrors;

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
  if (!oasDocument(file).paths[path]?.[method.toLowerCase()]) throw new Error(`${file} has no operation ${method} ${path}`);
  const declared = responseSchemaPointer(oasDocument(file), method, path, status);
  if (declared.kind !== 'schema') return declared;
  const { pointer } = declared;
  const cacheKey = `${file}#${pointer}`;
  let validate = validators.get(cacheKey);
  if (!validate) {
    validate = ajvFor(file).getSchema(`${idOf(file)}#${pointer}`);
    if (!validate) throw new Error(`${file}: cannot compile the schema at #${pointer}`);
    validators.set(cacheKey, validate);
  }
  return { kind: 'schema', validate, pointer };
}
