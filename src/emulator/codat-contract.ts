import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { compileDocument, responseSchemaPointer, validationErrors, type Ajv, type OasDocument } from '../lib/openapi-contract.js';
import { shapeOf } from './operations.js';
import { CODAT_FILES, OPTIONAL_CODAT_FILES } from '../codat-model/codat-oas-files.js';

/**
 * `EMULATOR_VALIDATE=true` (docs/emulator.md, "Checking answers against Codat's files"): every answer on a path one of
 * Codat's OpenAPI files defines is validated against each file that defines it, the way the contract tests validate
 * (test/contract/codat-contract.test.ts): the JSON body against the schema declared for its status (or `default`); a
 * status the file does not declare against Codat's `ErrorMessage` when it is an error, else it is a violation; a
 * status declared without a JSON body (a 204) by status alone. The files are read where the tests read them.
 */

/** The response header a violation is reported in. */
export const VIOLATION_HEADER = 'Emulator-Contract-Violation';
/** A header stays short: the first problems, cut at this length. */
const HEADER_LIMIT = 2000;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Checks answers against Codat's files in `dir` (all of CODAT_FILES must be there: see missingCodatFiles). */
export function createCodatContract(dir: string) {
  const files = [...CODAT_FILES, ...OPTIONAL_CODAT_FILES.filter((file) => existsSync(resolve(dir, file)))];
  const documents = new Map<string, OasDocument>();
  /** By method and path shape: each file's template of the operation. */
  const operations = new Map<string, { file: string; path: string }[]>();
  for (const file of files) {
    const text = readFileSync(resolve(dir, file), 'utf8');
    const document = (file.endsWith('.yaml') ? parseYaml(text) : JSON.parse(text)) as OasDocument;
    documents.set(file, document);
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const method of HTTP_METHODS) {
        if (!item[method]) continue;
        const key = `${method.toUpperCase()} ${shapeOf(path)}`;
        operations.set(key, [...(operations.get(key) ?? []), { file, path }]);
      }
    }
  }

  // Compiled on first use: a whole file takes a second or more, and most answers need one or two of them.
  const instances = new Map<string, Ajv>();
  const validators = new Map<string, ValidateFunction>();
  const idOf = (file: string) => `https://oas.ledgerport.test/${file}`;
  function validator(file: string, pointer: string): ValidateFunction {
    const key = `${file}#${pointer}`;
    let validate = validators.get(key);
    if (validate) return validate;
    let ajv = instances.get(file);
    if (!ajv) instances.set(file, (ajv = compileDocument(idOf(file), documents.get(file)!)));
    validate = ajv.getSchema(`${idOf(file)}#${pointer}`);
    if (!validate) throw new Error(`${file}: cannot compile the schema at #${pointer}`);
    validators.set(key, validate);
    return validate;
  }

  return {
    /** Whether Codat's files define the operation of this method and route (either parameter style). */
    defines: (method: string, routeUrl: string) => operations.has(`${method} ${shapeOf(routeUrl)}`),

    /**
     * The problems of one answer, one per file that finds any (none: it holds). `body` is the answer's text; a body
     * that is not JSON where a file declares JSON is a problem.
     */
    check(answer: { method: string; routeUrl: string; status: number; contentType: string | undefined; body: string }): string[] {
      const problems: string[] = [];
      const isJson = (answer.contentType ?? '').split(';')[0].trim() === 'application/json';
      let parsed: { value: unknown } | undefined;
      for (const { file, path } of operations.get(`${answer.method} ${shapeOf(answer.routeUrl)}`) ?? []) {
        const declared = responseSchemaPointer(documents.get(file)!, answer.method, path, answer.status);
        let validate: ValidateFunction;
        let where: string;
        if (declared.kind === 'schema') [validate, where] = [validator(file, declared.pointer), `#${declared.pointer}`];
        else if (declared.kind === 'no-json')
          continue; // Declared without a JSON body: the status is all there is.
        else if (answer.status < 400) {
          problems.push(`${file} does not declare ${answer.status} for ${answer.method} ${path}`);
          continue;
        } else [validate, where] = [validator('Codat-Platform.json', '/components/schemas/ErrorMessage'), 'ErrorMessage'];
        if (!isJson) {
          problems.push(
            `${file}: ${answer.status} for ${answer.method} ${path} should be application/json, not ${answer.contentType ?? 'no content type'}`,
          );
          continue;
        }
        try {
          parsed ??= { value: JSON.parse(answer.body) as unknown };
        } catch {
          problems.push(`${file}: the body of ${answer.status} is not JSON`);
          continue;
        }
        if (!validate(parsed.value)) problems.push(`${file} ${where}: ${validationErrors(validate)}`);
      }
      return problems;
    },
  };
}

export type CodatContract = ReturnType<typeof createCodatContract>;

/** The problems as one header value: printable ASCII, at most HEADER_LIMIT characters. */
export function violationHeader(problems: readonly string[]): string {
  const text = problems.join(' | ').replace(/[^\x20-\x7e]/g, '?');
  return text.length > HEADER_LIMIT ? `${text.slice(0, HEADER_LIMIT - 3)}...` : text;
}
