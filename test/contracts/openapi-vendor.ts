import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { compileDocument, responseSchemaPointer, validationErrors, type Ajv, type OasDocument } from '../helpers/openapi-contract.js';

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

  return {
    name,
    check(method, path, status, body) {
      const lower = method.toLowerCase() as (typeof METHODS)[number];
      const match = templates.find((t) => t.pattern.test(path) && document.paths[t.template][lower]);
      if (!match) return `${name} declares no operation ${method} ${path}`;
      const declared = responseSchemaPointer(document, method, match.template, status);
      if (declared.kind === 'undeclared') return `${name} declares no ${status} response for ${method} ${match.template}`;
      if (declared.kind === 'no-json') return undefined;
      let validate = validators.get(declared.pointer);
      if (!validate) {
        ajv ??= compileDocument(`https://contracts.ledgerport.test/${file}`, document);
        validate = ajv.getSchema(`https://contracts.ledgerport.test/${file}#${declared.pointer}`);
        if (!validate) throw new Error(`${file}: cannot compile the schema at #${declared.pointer}`);
        validators.set(declared.pointer, validate);
      }
      return validate(body) ? undefined : `${name} ${method} ${match.template} ${status}: ${validationErrors(validate)}`;
    },
  };
}
