import codatOperations from './codat-operations.json' with { type: 'json' };

/**
 * Which operation a request is, by Codat's operationIds (docs/emulator.md, "Operation ids"). Codat's OpenAPI files name
 * one operation differently (the Lending file's `list-accounting-invoices` is the Accounting API's invoices list), so a
 * fault rule or a journal query may use any of them; the journal reports the canonical one: the Platform file's, else
 * Lending's, Banking's, Commerce's, Sync-Payables', Sync-Commerce's; else Ledgerport's own (its route's operationId).
 * The table (codat-operations.json) is made from Codat's files by scripts/codat-operations.mjs.
 */

type Api = 'platform' | 'lending' | 'banking' | 'commerce' | 'syncPayables' | 'syncCommerce';
const CANONICAL_ORDER: readonly Api[] = ['platform', 'lending', 'banking', 'commerce', 'syncPayables', 'syncCommerce'];

interface CodatOperation {
  method: string;
  path: string;
  ids: Partial<Record<Api, string>>;
}

/** One route's names: the id the journal reports, and every id that names it. */
export interface OperationNames {
  canonical: string;
  aliases: ReadonlySet<string>;
}

/** A path template without its parameters' names, so `{companyId}` and `:companyId` meet: `/companies/{}`. */
export const shapeOf = (template: string) => template.replace(/\{[^}]+\}/g, '{}').replace(/:[A-Za-z0-9_]+/g, '{}');

/** Fastify's `/companies/:companyId` as an OpenAPI template, `/companies/{companyId}`. */
export const templateOf = (routeUrl: string) => routeUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const CODAT = new Map<string, CodatOperation>((codatOperations as CodatOperation[]).map((op) => [`${op.method} ${shapeOf(op.path)}`, op]));

export interface OperationCatalogue {
  /** Notes a route of the service (its own operationId, if any); `onRoute` calls it for every route. */
  addRoute(method: string, routeUrl: string, ownId: string | undefined): void;
  /** Whether a method and path template (either parameter style) is a route of the service, the emulator's aside. */
  serves(method: string, template: string): boolean;
  /** The names of a route, by its method and Fastify url. */
  namesOf(method: string, routeUrl: string): OperationNames;
  /** Whether `id` names an operation the service serves (by Codat's name for it, or its own), the emulator's aside. */
  knows(id: string): boolean;
  /** The canonical ids of the served operations `id` names (several when Codat's files give one name to several). */
  canonicalsOf(id: string): string[];
}

export function operationCatalogue(): OperationCatalogue {
  /** Every route the service serves, the emulator's own aside, by method and shape: its own operationId, if any. */
  const routes = new Map<string, string | undefined>();
  const names = new Map<string, OperationNames>();
  /** The names of every served route, made at the first question (all routes are known by then). */
  let served: OperationNames[] | undefined;

  function namesOf(method: string, routeUrl: string): OperationNames {
    const key = `${method} ${shapeOf(routeUrl)}`;
    let found = names.get(key);
    if (!found) {
      const codat = CODAT.get(key);
      const ownId = routes.get(key);
      const ids = CANONICAL_ORDER.map((api) => codat?.ids[api]).filter((id): id is string => id !== undefined);
      const canonical = ids[0] ?? ownId ?? `${method} ${templateOf(routeUrl)}`;
      found = { canonical, aliases: new Set([...ids, ...(ownId ? [ownId] : []), canonical]) };
      names.set(key, found);
    }
    return found;
  }

  const servedNames = () =>
    (served ??= [...routes.keys()].map((key) => {
      const space = key.indexOf(' ');
      return namesOf(key.slice(0, space), key.slice(space + 1));
    }));

  return {
    addRoute(method, routeUrl, ownId) {
      if (routeUrl.startsWith('/emulator/')) return;
      const key = `${method} ${shapeOf(routeUrl)}`;
      routes.set(key, ownId);
      names.delete(key);
      served = undefined;
    },
    serves: (method, template) => routes.has(`${method} ${shapeOf(template)}`),
    namesOf,
    knows: (id) => servedNames().some((named) => named.aliases.has(id)),
    canonicalsOf(id) {
      const canonical = new Set<string>([id]);
      for (const named of servedNames()) if (named.aliases.has(id)) canonical.add(named.canonical);
      return [...canonical];
    },
  };
}
