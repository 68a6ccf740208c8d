import type { PlatformDeclaration } from './platform-declaration.js';
import type { PlatformEndpoint } from './platform-http.js';
import { remainingLimitHooks } from './remaining-limits.js';

/*
 * The runtime that reads a platform's declaration: where its API answers and which version it is asked for (each
 * overridable by the declared environment variable), and the endpoint every request of a connection goes through
 * (timeouts, retries, `Retry-After`, politeness, the version header or query parameter). A connector adds only what
 * data cannot say: the account it reads, its credentials, a platform's own headers.
 */

/** An operator's address from the environment (or the declared one): trusted, and checked to be http(s). */
export function envUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name]?.trim() || fallback;
  if (!/^https?:\/\//.test(value)) throw new Error(`${name} must be an http or https address, got "${value}"`);
  return value.replace(/\/+$/, '');
}

/** The API's base address of a platform with a fixed one: the declared address, or its environment variable's. */
export function declaredBaseUrl(declaration: PlatformDeclaration, env: NodeJS.ProcessEnv = process.env): string {
  const base = declaration.transport?.baseUrl;
  if (!base || !('fixed' in base))
    throw new Error(`platform ${declaration.key} has no fixed API address (its connection's settings say it)`);
  return base.env ? envUrl(env, base.env, base.fixed) : base.fixed.replace(/\/+$/, '');
}

/** The API's base address of a platform whose connections each name theirs: the declared setting's value. */
export function settingBaseUrl(declaration: PlatformDeclaration, settings: object): string {
  const base = declaration.transport?.baseUrl;
  if (!base || !('setting' in base)) throw new Error(`platform ${declaration.key} has a fixed API address`);
  return String((settings as Record<string, unknown>)[base.setting] ?? '');
}

/** A declared platform's transport settings as an endpoint's. */
export function transportOf(
  declaration: PlatformDeclaration,
): Pick<PlatformEndpoint, 'timeoutMs' | 'attempts' | 'backoffMs' | 'retryAfterHeader' | 'politeness'> {
  const { transport } = declaration;
  if (!transport) throw new Error(`platform ${declaration.key} declares no transport`);
  return {
    timeoutMs: transport.timeoutMs,
    attempts: transport.retry.attempts,
    backoffMs: transport.retry.backoffMs,
    retryAfterHeader: transport.retry.retryAfterHeader,
    politeness: transport.politeness,
  };
}

/** The API version the platform is asked for (the declared one, or its environment variable's), if it names one. */
export function declaredApiVersion(declaration: PlatformDeclaration, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const version = declaration.transport?.apiVersion;
  if (!version) return undefined;
  return (version.env ? env[version.env]?.trim() : undefined) || version.value;
}

/** The declared API version as what a request carries: a header, or a query parameter. */
export function versionParts(declaration: PlatformDeclaration): { headers: Record<string, string>; query: Record<string, string> } {
  const version = declaration.transport?.apiVersion;
  const value = declaredApiVersion(declaration);
  return {
    headers: version?.header && value ? { [version.header]: value } : {},
    query: version?.query && value ? { [version.query]: value } : {},
  };
}

/** What a connection adds to its platform's declared endpoint. */
export type EndpointParts = Partial<Omit<PlatformEndpoint, 'platform'>>;

/**
 * The endpoint of one platform account, from the declaration: the platform's name, its address (declared, or
 * `parts.baseUrl` where a connection's settings hold it), its transport, and the API version in its header or query
 * parameter; `parts` adds the account, its credentials and headers of the platform's own. An address the operator
 * set is trusted (loopback included: a recording proxy or a test's stand-in); one an end user typed is checked
 * unless `parts.allowPrivate` says otherwise.
 */
export function declaredEndpoint(declaration: PlatformDeclaration, parts: EndpointParts = {}): PlatformEndpoint {
  const version = versionParts(declaration);
  const { headers, query, ...rest } = parts;
  const base = declaration.transport?.baseUrl;
  const endpoint: PlatformEndpoint = {
    platform: declaration.name,
    baseUrl: parts.baseUrl ?? declaredBaseUrl(declaration),
    // The operator's address (fixed, or its environment variable) is trusted; an end user's is checked by default.
    allowPrivate: base !== undefined && 'fixed' in base,
    ...transportOf(declaration),
    ...rest,
    headers: { ...version.headers, ...headers },
    query: { ...version.query, ...query },
  };
  // A platform declaring remaining-limit headers has them heeded at each answer and before each request; the others
  // pay nothing for it.
  if (!declaration.transport?.remainingLimits) return endpoint;
  const limits = remainingLimitHooks(declaration, endpoint);
  return {
    ...endpoint,
    onHeaders: (answered) => {
      limits.onHeaders(answered);
      parts.onHeaders?.(answered);
    },
    beforeRequest: async () => {
      await limits.beforeRequest();
      await parts.beforeRequest?.();
    },
  };
}

/**
 * The field a delta read of the data type starts from (its declared `cursor`), read when the sync runs: undefined where
 * the type is declared to be read in full every time.
 */
export function declaredCursorField(declaration: PlatformDeclaration, dataType: string): string | undefined {
  const cursor = declaration.dataTypes[dataType]?.cursor;
  return cursor && cursor !== 'none' ? cursor.field : undefined;
}

/** A field of a platform record by its declared path (`MetaData.LastUpdatedTime`: a field of a field). */
export function fieldAt(record: Record<string, unknown>, path: string): unknown {
  let value: unknown = record;
  for (const part of path.split('.'))
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}

/** A platform's answer to a page's request: its parsed body, its headers (for `link-header`), and what else it keeps. */
export interface PageAnswer {
  body: unknown;
  headers?: Readonly<Record<string, unknown>>;
}

/**
 * Every page of a list, paged as the declaration's `transport.paging` says, read when each page is asked for:
 * `none` (one answer), `page-number` (`param` = 1, 2, …), `offset` (`param` = records before the page), `cursor`
 * (`param` = the answer's `next` field, or the last record's id while the answer's `more` field says so),
 * `link-header` (the answer's `Link: <…>; rel="next"`). A page shorter than the declared size, or empty, is the last.
 * `get` asks the platform for one page (its own error handling); each page comes with the whole answer.
 * `start-position` is a platform's own (QuickBooks says it inside its query language) and is refused here.
 */
export async function* declaredPages<T extends Record<string, unknown>, A extends PageAnswer>(
  declaration: PlatformDeclaration,
  get: (path: string) => Promise<A>,
  resource: string,
  params: Readonly<Record<string, string | readonly string[]>> = {},
): AsyncIterable<{ records: T[]; answer: A }> {
  const paging = declaration.transport?.paging;
  if (!paging) throw new Error(`platform ${declaration.key} declares no paging`);
  if (paging.style === 'start-position') throw new Error(`platform ${declaration.key} pages in its own query language`);
  const field = (body: unknown, name: string): unknown =>
    body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  const records = (body: unknown): T[] => {
    const list = paging.records ? field(body, paging.records) : body;
    return Array.isArray(list) ? (list as T[]) : [];
  };
  const target = (page: Record<string, string>): string => {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) for (const v of typeof value === 'string' ? [value] : value) query.append(name, v);
    if (paging.style !== 'none' && paging.sizeParam && paging.pageSize) query.set(paging.sizeParam, String(paging.pageSize));
    for (const [name, value] of Object.entries(page)) query.set(name, value);
    return query.size > 0 ? `${resource}?${query}` : resource;
  };
  let path = target({});
  for (let page = 1, before = 0; ; page++) {
    const answer = await get(path);
    const list = records(answer.body);
    yield { records: list, answer };
    if (paging.style === 'none') return;
    if (paging.style === 'link-header') {
      const next = /<([^>]+)>\s*;\s*rel="?next"?/.exec(String(answer.headers?.link ?? ''))?.[1];
      if (!next) return;
      path = next;
      continue;
    }
    if (paging.style === 'cursor') {
      const from = paging.next ?? 'cursor';
      const more = paging.more ? field(answer.body, paging.more) === true : true;
      const cursor = from === 'last-id' ? list.at(-1)?.id : field(answer.body, from);
      if (!more || list.length === 0 || typeof cursor !== 'string' || cursor === '') return;
      path = target({ [paging.param ?? 'cursor']: cursor });
      continue;
    }
    // `page-number` and `offset`: a short or empty page is the last.
    if (list.length === 0 || (paging.pageSize !== undefined && list.length < paging.pageSize)) return;
    before += list.length;
    path =
      paging.style === 'offset'
        ? target({ [paging.param ?? 'offset']: String(before) })
        : target({ [paging.param ?? 'page']: String(page + 1) });
  }
}
