import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import {
  compileDocument,
  fragmentOf,
  responseSchemaPointer,
  validationErrors,
  type Ajv,
  type OasDocument,
} from '../helpers/openapi-contract.js';

/**
 * A vendor's published OpenAPI contract, copied into this folder with its licence, checking what a fake of the
 * vendor's platform answers: each response is matched to the operation its method and path name in the document
 * and validated against the schema the document declares for its status. The fakes call `check` on every
 * response they send, so a test fails when a fake drifts from the vendor's contract.
 */
export interface VendorContract {
  readonly name: string;
  /**
   * Problems with one response, or undefined when it conforms. `path` is relative to the API's base address (the
   * document's server URL), e.g. `/Invoices/{id}` as `/Invoices/8a...`. A path or status the document does not
   * declare is a problem too: the fake answers something the vendor never would.
   */
  check(method: string, path: string, status: number, body: unknown): string | undefined;
  /**
   * Problems with a request the connector sent, or undefined when it conforms: its body (JSON, or a form decoded to
   * nested objects as Stripe's `address[line1]`) validated against the operation's declared request body. A path
   * the document does not declare, or a body it does not take, is a problem too.
   */
  checkRequest(method: string, path: string, body: unknown): string | undefined;
  /**
   * Compiles, before any request, the validator of one declared response. Compiling a large document's first schema
   * is seconds of synchronous work (Stripe's: about 3 s on the 2-core machine) that would otherwise fall inside the
   * fake's first answer, in the test's own process, where it counts against the connector's time-out.
   */
  prepare(method: string, path: string, status: number): void;
}

const HERE = fileURLToPath(new URL('.', import.meta.url));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** A document (YAML or JSON) in this folder, e.g. `xero/xero-accounting.yaml`. */
export function openApiVendorContract(
  name: string,
  file: string,
  options: { correct?: (document: OasDocument) => void } = {},
): VendorContract {
  const text = readFileSync(`${HERE}${file}`, 'utf8');
  const document = (file.endsWith('.json') ? JSON.parse(text) : parseYaml(text)) as OasDocument;
  // A defect of the vendor's own file, corrected in the open (each correction says why where it is made).
  options.correct?.(document);
  let ajv: Ajv | undefined;
  const validators = new Map<string, ValidateFunction>();
  // Templates with fewer parameters first: `/Contacts/{ContactID}/History` before `/Contacts/{ContactID}/{x}`.
  const templates = Object.keys(document.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`, 'i'),
    }))
    .sort((a, b) => a.params - b.params);

  const templateOf = (method: string, path: string) => {
    const lower = method.toLowerCase() as (typeof METHODS)[number];
    return templates.find((t) => t.pattern.test(path) && document.paths[t.template][lower])?.template;
  };
  const validatorAt = (pointer: string): ValidateFunction => {
    let validate = validators.get(pointer);
    if (!validate) {
      ajv ??= compileDocument(`https://contracts.ledgerport.test/${file}`, document);
      validate = ajv.getSchema(`https://contracts.ledgerport.test/${file}#${pointer}`);
      if (!validate) throw new Error(`${file}: cannot compile the schema at #${pointer}`);
      validators.set(pointer, validate);
    }
    return validate;
  };

  return {
    name,
    check(method, path, status, body) {
      const template = templateOf(method, path);
      if (!template) return `${name} declares no operation ${method} ${path}`;
      const declared = responseSchemaPointer(document, method, template, status);
      if (declared.kind === 'undeclared') return `${name} declares no ${status} response for ${method} ${template}`;
      if (declared.kind === 'no-json') return undefined;
      const validate = validatorAt(declared.pointer);
      return validate(body) ? undefined : `${name} ${method} ${template} ${status}: ${validationErrors(validate)}`;
    },
    prepare(method, path, status) {
      const template = templateOf(method, path);
      const declared = template && responseSchemaPointer(document, method, template, status);
      if (!declared || declared.kind !== 'schema') throw new Error(`${name} declares no JSON ${status} response for ${method} ${path}`);
      validatorAt(declared.pointer);
    },
    checkRequest(method, path, body) {
      const template = templateOf(method, path);
      if (!template) return `${name} declares no operation ${method} ${path}`;
      const operation = document.paths[template][method.toLowerCase()] as {
        requestBody?: { content?: Record<string, { schema?: unknown }> };
      };
      const types = Object.keys(operation.requestBody?.content ?? {});
      const type = types.find((t) => t === 'application/json') ?? types.find((t) => t === 'application/x-www-form-urlencoded');
      if (!type || operation.requestBody?.content?.[type].schema === undefined)
        return body === undefined ? undefined : `${name} ${method} ${template} takes no request body`;
      const validate = validatorAt(fragmentOf(['paths', template, method.toLowerCase(), 'requestBody', 'content', type, 'schema']));
      return validate(body ?? {}) ? undefined : `${name} ${method} ${template} request: ${validationErrors(validate)}`;
    },
  };
}
