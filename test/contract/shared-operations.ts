import { OAS_FILES, oasOperations, type OasFile } from '../helpers/oas.js';

/**
 * The operations Ledgerport and Codat's files both define. An operation is shared when its method and path template
 * match once parameter names are ignored: Ledgerport's `/companies/{companyId}/data/invoices/{recordId}` is
 * Lending's `/companies/{companyId}/data/invoices/{invoiceId}`.
 */

/** Where one of Codat's files defines an operation (its own spelling of the template). */
export interface CodatOperation {
  file: OasFile;
  path: string;
}

export interface SharedOperation {
  method: string;
  /** Ledgerport's template, from its `GET /openapi.json`. */
  template: string;
  /** Ledgerport's path parameter names, in order. */
  pathParams: string[];
  /** Every Codat file that defines the operation: a response must match each of them. */
  codat: CodatOperation[];
  /** Ledgerport's query parameters (name → required). */
  query: Record<string, boolean>;
  /** Whether Ledgerport's operation takes a JSON request body. */
  takesBody: boolean;
}

/** A minimal view of Ledgerport's own OpenAPI document. */
export interface OwnDocument {
  paths: Record<string, Record<string, OwnOperation | undefined>>;
}
interface OwnOperation {
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content?: Record<string, unknown> };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** `/companies/{companyId}` and `/companies/{id}` both become `/companies/{}`. */
export const normalise = (template: string): string => template.replace(/\{[^}]+\}/g, '{}');

export const labelOf = (op: { method: string; template: string }): string => `${op.method} ${op.template}`;

/** Matches every operation of Ledgerport's document against Codat's four files. */
export function sharedOperations(own: OwnDocument, files: readonly OasFile[] = OAS_FILES): SharedOperation[] {
  const codat = new Map<string, CodatOperation[]>();
  for (const file of files) {
    for (const { method, path } of oasOperations(file)) {
      const key = `${method} ${normalise(path)}`;
      codat.set(key, [...(codat.get(key) ?? []), { file, path }]);
    }
  }
  const shared: SharedOperation[] = [];
  for (const [template, item] of Object.entries(own.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const found = codat.get(`${method.toUpperCase()} ${normalise(template)}`);
      if (!found) continue;
      const pathParams = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const query = Object.fromEntries(
        (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.required === true]),
      );
      const takesBody = operation.requestBody?.content?.['application/json'] !== undefined;
      shared.push({ method: method.toUpperCase(), template, pathParams, codat: found, query, takesBody });
    }
  }
  return shared;
}
