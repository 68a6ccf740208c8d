import { ConnectorError } from './connector-error.js';
import type { HookName, PlatformDeclaration, PlatformHooks } from './platform-declaration.js';
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

/**
 * The hook a declaration names, from the platform's code: undefined where the declaration names none. A hook named and
 * not handed over, or handed over and not named, is a mistake in the platform's code (platformConnector catches it at
 * start for the registered hooks; this catches a caller handing others).
 */
export function declaredHook<N extends HookName>(
  declaration: PlatformDeclaration,
  hooks: PlatformHooks | undefined,
  name: N,
): NonNullable<PlatformHooks[N]> | undefined {
  const named = declaration.hooks?.[name] !== undefined;
  const given = hooks?.[name];
  if (named && !given) throw new Error(`platform ${declaration.key} declares the hook ${name}, but its code hands none`);
  if (!named && given) throw new Error(`platform ${declaration.key} hands a hook ${name} it does not declare`);
  return given as NonNullable<PlatformHooks[N]> | undefined;
}

/** An RFC 3339 / ISO-8601 time as ISO-8601 UTC without milliseconds; undefined when absent or unreadable. */
export function isoInstant(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined;
}

/** How a read follows a data type's declared cursor: the field, and each record's time there. */
export interface DeclaredCursor {
  field: string;
  /** When the record last changed, as ISO-8601 UTC; undefined where it has no readable time there. */
  timeOf(record: Record<string, unknown>): string | undefined;
}

/**
 * The data type's declared cursor, read once when a read starts (not per record): its field, and each record's time
 * there, read with the platform's `instant` hook where it declares one (Xero's `/Date(…)/`), as RFC 3339 otherwise.
 * Undefined where the type is read in full every time.
 */
export function declaredCursor(declaration: PlatformDeclaration, dataType: string, hooks?: PlatformHooks): DeclaredCursor | undefined {
  const field = declaredCursorField(declaration, dataType);
  if (field === undefined) return undefined;
  const instant = declaredHook(declaration, hooks, 'instant') ?? isoInstant;
  return { field, timeOf: (record) => instant(fieldAt(record, field)) };
}

/** A platform's answer to a page's request: its parsed body, its headers (for `link-header`), and what else it keeps. */
export interface PageAnswer {
  body: unknown;
  headers?: Readonly<Record<string, unknown>>;
}

/**
 * One page's request as the pager makes it, for the platform's own call to send: the path (a list's resource, or the
 * full address a `link-header` names), its query parameters, and the body of a search.
 */
export interface PageRequest {
  path: string;
  query: URLSearchParams;
  body?: Readonly<Record<string, unknown>>;
}

/** A page's request as one address (the path and its query), for a platform whose call takes a path. */
export function pageTarget(request: PageRequest): string {
  return request.query.size > 0 ? `${request.path}?${request.query}` : request.path;
}

/** How one list is asked for, beside what the declaration says of every list. */
export interface PagesOptions {
  /** The request's own query parameters, asked again with every page. */
  params?: Readonly<Record<string, string | readonly string[]>>;
  /** A search sent with a body (asked again with every page): the page's cursor goes in it rather than in the query. */
  body?: Readonly<Record<string, unknown>>;
  /** The answer's field holding this list's records, where each list has its own (Xero's `Invoices`). */
  records?: string;
  /** The list comes whole in one answer, unpaged (Xero's reference lists). */
  whole?: boolean;
  /** The field naming a record (`id`): `cursor` with `last-id`, and `start-position`'s overlap. */
  idField?: string;
  /** The platform's hooks (`pageRequest` for `start-position`). */
  hooks?: PlatformHooks;
  /** What the list is, in the platform's words, for a message (`Invoice`). */
  label?: string;
}

/** How many times a `start-position` read steps back before it gives up (records deleted faster than it reads them). */
const MAX_STEP_BACKS = 20;

/**
 * Every page of a list, paged as the declaration's `transport.paging` says, read when each page is asked for:
 * - `none` (one answer); `page-number` (`param` = 1, 2, …; with `pageCount`, the pages the first one counts are asked
 *   ahead, `politeness.maxConcurrent` at a time, and handed on in order); `offset` (`param` = records before the page);
 *   a short or empty page is the last.
 * - `cursor`: `param` = the answer's `next` field, or the last record's id while the answer's `more` field says so; in
 *   the query, or in the body of a search.
 * - `link-header`: the answer's `Link: <…>; rel="next"`.
 * - `start-position`: pages numbered by their first record, asked in the platform's own language (the `pageRequest`
 *   hook). Positions are not stable: a record deleted from a page already read moves every later record up one, and a
 *   read that moved on by whole pages would never see the record pushed back across the boundary (a full read would
 *   then call it deleted). So each page starts `overlap` records before the end of the one before, records already
 *   handed on are dropped, and a page counts only if it holds one of them: then it runs on, without a gap, from what
 *   was read. A page that holds none is read again a stride earlier (back to the first position if need be, where
 *   there is nothing before to miss). This relies only on the order being the same from one page to the next.
 * `get` asks the platform for one page (its own error handling); each page comes with the whole answer.
 */
export async function* declaredPages<T extends Record<string, unknown>, A extends PageAnswer>(
  declaration: PlatformDeclaration,
  get: (request: PageRequest) => Promise<A>,
  resource: string,
  options: PagesOptions = {},
): AsyncIterable<{ records: T[]; answer: A }> {
  const declared = declaration.transport?.paging;
  if (!declared) throw new Error(`platform ${declaration.key} declares no paging`);
  const paging = options.whole ? { style: 'none' as const } : declared;
  const idOf = (record: T) => String(record[options.idField ?? 'id']);
  const what = options.label ? `${declaration.name}'s ${options.label} records` : `${declaration.name}'s records`;
  // The records of a page: a field the platform leaves out when a page is empty (Square's search) is none; anything
  // else that is no list is a platform not answering as declared (an error document, a proxy's page).
  const records = (body: unknown): T[] => {
    const from = options.records ?? declared.records;
    const list = from ? fieldAt(body as Record<string, unknown>, from) : body;
    if (Array.isArray(list)) return list as T[];
    if (from && list === undefined && body !== null && typeof body === 'object' && !Array.isArray(body)) return [];
    throw new ConnectorError('unavailable', `${what} came in an answer without the list (${from ? `no ${from}` : 'not a list'})`);
  };
  const repeats = repeatGuard(declaration, options.idField);
  // A page's request: the list's own parameters and the page size, and the page's (in the body of a search).
  const ask = (page: Record<string, string>): Promise<A> => {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(options.params ?? {}))
      for (const v of typeof value === 'string' ? [value] : value) query.append(name, v);
    const size = paging.style !== 'none' && 'sizeParam' in paging && paging.sizeParam && paging.pageSize;
    if (size) query.set(paging.sizeParam!, String(size));
    if (!options.body) for (const [name, value] of Object.entries(page)) query.set(name, value);
    return get(options.body ? { path: resource, query, body: { ...options.body, ...page } } : { path: resource, query });
  };
  if (paging.style === 'none') {
    const answer = await ask({});
    return yield { records: records(answer.body), answer };
  }
  if (paging.style === 'start-position') {
    // The platform's own language says which page: the hook makes the page's parameters from the list's.
    const pageRequest = declaredHook(declaration, options.hooks, 'pageRequest');
    if (!pageRequest) throw new Error(`platform ${declaration.key} pages by start position without a pageRequest hook`);
    const askAt = (position: number, size: number) => {
      return get({ path: resource, query: new URLSearchParams(pageRequest({ position, size }, stringParams(options.params))) });
    };
    return yield* positionPages(declaration, askAt, records, idOf, what);
  }
  if (paging.style === 'page-number' && paging.pageCount) return yield* pagesAhead(declaration, ask, (body) => repeats(records(body)));
  // A numbered page is asked by its number from the first (a platform may answer a list asked without one unpaged).
  let answer = await ask(paging.style === 'page-number' ? { [paging.param ?? 'page']: '1' } : {});
  for (let page = 1, before = 0; ; page++) {
    // A platform that ignores the declared paging answers the same page again: a mistake to report, not a loop.
    const list = repeats(records(answer.body));
    yield { records: list, answer };
    if (paging.style === 'link-header') {
      const next = /<([^>]+)>\s*;\s*rel="?next"?/.exec(String(answer.headers?.link ?? ''))?.[1];
      if (!next) return;
      answer = await get({ path: next, query: new URLSearchParams() });
      continue;
    }
    if (paging.style === 'cursor') {
      const from = paging.next ?? 'cursor';
      const more = paging.more ? fieldAt(answer.body as Record<string, unknown>, paging.more) === true : true;
      const cursor = from === 'last-id' ? list.at(-1)?.[options.idField ?? 'id'] : fieldAt(answer.body as Record<string, unknown>, from);
      // (A page may come empty with a cursor on: a search that found nothing on it yet.)
      if (!more || typeof cursor !== 'string' || cursor === '') return;
      answer = await ask({ [paging.param ?? 'cursor']: cursor });
      continue;
    }
    // `page-number` and `offset`: a short or empty page is the last.
    if (list.length === 0 || (paging.pageSize !== undefined && list.length < paging.pageSize)) return;
    before += list.length;
    answer = await ask(
      paging.style === 'offset' ? { [paging.param ?? 'offset']: String(before) } : { [paging.param ?? 'page']: String(page + 1) },
    );
  }
}

/** A list's parameters as one string each (the first of several). */
function stringParams(params: PagesOptions['params']): Record<string, string> {
  return Object.fromEntries(
    Object.entries(params ?? {}).map(([name, value]) => [name, typeof value === 'string' ? value : (value[0] ?? '')]),
  );
}

type Paging = NonNullable<PlatformDeclaration['transport']>['paging'];

/** `page-number` with `pageCount`: page 1 says how many pages there are, and the rest are asked ahead (see declaredPages). */
async function* pagesAhead<T, A extends PageAnswer>(
  declaration: PlatformDeclaration,
  ask: (page: Record<string, string>) => Promise<A>,
  records: (body: unknown) => T[],
): AsyncIterable<{ records: T[]; answer: A }> {
  const paging = declaration.transport!.paging as Paging;
  const param = paging.param ?? 'page';
  const askPage = async (page: number) => {
    const answer = await ask({ [param]: String(page) });
    return { records: records(answer.body), answer };
  };
  const short = (list: unknown[]) => list.length === 0 || (paging.pageSize !== undefined && list.length < paging.pageSize);
  const first = await askPage(1);
  yield first;
  if (short(first.records)) return;
  const counted = Number(fieldAt(first.answer.body as Record<string, unknown>, paging.pageCount!));
  const known = Number.isInteger(counted) ? counted : 1;
  const ahead = declaration.transport!.politeness.maxConcurrent;
  const pending: Promise<Awaited<ReturnType<typeof askPage>>>[] = [];
  const askAhead = (page: number) => {
    const asked = askPage(page);
    // Awaited in turn below; a page failing (or the read being stopped) while an earlier one is awaited is not left
    // as an unhandled rejection, which would end the process.
    asked.catch(() => {});
    return asked;
  };
  let next = 2;
  for (;;) {
    while (next <= known && pending.length < ahead) pending.push(askAhead(next++));
    // Past the pages counted at first (records created since): one at a time until a short page.
    const current = pending.length > 0 ? await pending.shift()! : await askPage(next++);
    yield current;
    if (short(current.records) && pending.length === 0 && next > known) return;
  }
}

/**
 * A read's guard against a platform that ignores the declared paging and answers the same page again (which would
 * read forever): hands each page's records on, in order, and fails the read at a non-empty page identical to the one
 * before it.
 */
function repeatGuard(declaration: PlatformDeclaration, idField = 'id') {
  let last: string | undefined;
  return <T extends Record<string, unknown>>(list: T[]): T[] => {
    const key = list.map((record) => (record[idField] !== undefined ? String(record[idField]) : JSON.stringify(record))).join('\n');
    if (list.length > 0 && key === last)
      throw new ConnectorError('unavailable', `${declaration.name} answered the same page twice: it does not page as declared`);
    last = key;
    return list;
  };
}

/** `start-position`: pages by their first record's position, each read `overlap` records into the one before (see declaredPages). */
async function* positionPages<T, A extends PageAnswer>(
  declaration: PlatformDeclaration,
  ask: (position: number, size: number) => Promise<A>,
  records: (body: unknown) => T[],
  idOf: (record: T) => string,
  what: string,
): AsyncIterable<{ records: T[]; answer: A }> {
  const paging = declaration.transport!.paging as Paging;
  // Checked at load: a page of 2 or more, overlapping the one before by 1 or more and by less than a page.
  const size = paging.pageSize!;
  const stride = size - paging.overlap!;
  const seen = new Set<string>();
  let stepBacks = 0;
  let stale = 0;
  for (let position = 1; ;) {
    const answer = await ask(position, size);
    const list = records(answer.body);
    if (position > 1 && !list.some((record) => seen.has(idOf(record)))) {
      // A gap may lie between this page and what was read: read again from further back.
      if (++stepBacks > MAX_STEP_BACKS) throw new ConnectorError('unavailable', `${what} kept moving while they were read; try again`);
      position = Math.max(1, position - stride);
      continue;
    }
    const fresh = list.filter((record) => !seen.has(idOf(record)));
    for (const record of fresh) seen.add(idOf(record));
    yield { records: fresh, answer };
    if (list.length < size) return;
    // Full pages of records already read, again and again: the platform does not page by the position asked.
    stale = fresh.length === 0 ? stale + 1 : 0;
    if (stale > MAX_STEP_BACKS)
      throw new ConnectorError(
        'unavailable',
        `${declaration.name} answered the same records at every position: it does not page as declared`,
      );
    position += stride;
  }
}
