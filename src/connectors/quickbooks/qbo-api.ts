import type { ReadContext } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import { oauthConfig, type OAuthPlatformConfig } from '../oauth/oauth-client.js';
import { platformRequest, type PlatformEndpoint } from '../platform-http.js';
import type { PlatformHooks } from '../platform-declaration.js';
import { declaredEndpoint, declaredPages, isoInstant, type PageRequest } from '../platform-runtime.js';
import { QUICKBOOKS } from './platform.js';

/** What a QuickBooks connection keeps beside its tokens: the company (realm) it reads. */
export interface QboSettings {
  realmId: string;
  companyName?: string;
}

// QuickBooks' entities are open-ended JSON; the mappings read what they use and ignore the rest (hence any).
export type QboEntity = Record<string, any>;

/** One QuickBooks company's API: its endpoint (token, limits per realm, the declared minor version on every call). */
export interface QboRealm {
  endpoint: PlatformEndpoint;
}

export function realmOf(ctx: Pick<ReadContext, 'settings' | 'tokens' | 'signal'>): QboRealm {
  const config = oauthConfig(QUICKBOOKS);
  if (!config) throw new ConnectorError('unavailable', 'QuickBooks Online is not configured on this server (QBO_CLIENT_ID)');
  if (!ctx.tokens) throw new ConnectorError('unauthorized', 'the QuickBooks connection holds no tokens; link it again');
  const { realmId } = ctx.settings as unknown as QboSettings;
  if (typeof realmId !== 'string' || realmId === '')
    throw new ConnectorError('unauthorized', 'the QuickBooks connection has no company (realmId); link it again');
  return {
    endpoint: declaredEndpoint(QUICKBOOKS, {
      baseUrl: companyUrl(config, realmId),
      signal: ctx.signal,
      account: realmId,
      tokens: ctx.tokens,
    }),
  };
}

/** The address of one company's API: every path of the Accounting API is under it. */
export function companyUrl(config: OAuthPlatformConfig, realmId: string): string {
  return `${config.apiUrl}/company/${encodeURIComponent(realmId)}`;
}

/** QuickBooks' error envelope: `{ Fault: { Error: [{ Message, Detail, code }], type } }`. */
interface FaultAnswer {
  Fault?: { Error?: { Message?: string; Detail?: string; code?: string }[]; type?: string };
}

/** A Fault QuickBooks answered (HTTP 400 and the like), kept whole so a caller can tell one from another. */
export class QboFault extends Error {
  constructor(
    readonly status: number,
    readonly codes: string[],
    message: string,
  ) {
    super(message);
  }
}

function faultOf(status: number, answer: unknown, what: string): QboFault {
  const errors = (answer as FaultAnswer)?.Fault?.Error ?? [];
  const text = errors.map((e) => [e.Message, e.Detail].filter(Boolean).join(': ')).join('; ');
  return new QboFault(
    status,
    errors.map((e) => String(e.code ?? '')),
    `QuickBooks Online refused ${what} (HTTP ${status}${text ? `: ${text}` : ''})`,
  );
}

/**
 * One call: `path` under the company, with the minor version and `params`; the JSON answer on 200, a QboFault on
 * another 4xx (401, 403, 429 and 5xx are platformRequest's). `retry`: a write may be sent again (it carries a
 * `requestid`, so QuickBooks makes it once).
 */
export async function qboCall<T>(
  realm: QboRealm,
  method: 'GET' | 'POST',
  path: string,
  params: Record<string, string> | URLSearchParams = {},
  body?: unknown,
): Promise<T> {
  const query = new URLSearchParams(params);
  const target = query.size > 0 ? `${path}?${query}` : path;
  const response = await platformRequest(realm.endpoint, method, target, body, { retry: method === 'GET' || query.has('requestid') });
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    throw new ConnectorError(
      'unavailable',
      `QuickBooks Online answered ${method} ${path} with something other than JSON (HTTP ${response.status})`,
    );
  }
  if (response.status !== 200) throw faultOf(response.status, parsed, `${method} ${path}`);
  return parsed as T;
}

/** A read: a Fault is the platform not answering what it should (`unavailable`, with QuickBooks' words). */
export async function qboGet<T>(realm: QboRealm, path: string, params: Record<string, string> | URLSearchParams = {}): Promise<T> {
  try {
    return await qboCall<T>(realm, 'GET', path, params);
  } catch (err) {
    if (err instanceof QboFault) throw new ConnectorError('unavailable', err.message);
    throw err;
  }
}

/** The envelope of every answer: the entity, a query's records, or change data capture's, and QuickBooks' clock. */
export interface IntuitResponse {
  QueryResponse?: Record<string, unknown>;
  CDCResponse?: { QueryResponse?: Record<string, unknown>[] }[];
  time?: string;
  [entity: string]: unknown;
}

/** The most records a query answers (Intuit's cap): a larger declared page size asks for this many. */
export const QUERY_MAX_RESULTS = 1000;

/** The most entities change data capture answers at once: an answer that full may have left some out. */
export const CDC_MAX_ENTITIES = 1000;
/**
 * What the declaration cannot say of QuickBooks: a page of a query is asked in its query language, `STARTPOSITION n
 * MAXRESULTS m` after the entity and its filter, ordered by Id (which never changes, so a record changed while the
 * pages are read keeps its place; ordering by the time of change would move it behind the pages still to read).
 */
export const QBO_HOOKS: PlatformHooks = {
  pageRequest({ position, size }, list) {
    // A larger page than QuickBooks answers would look short, and end the read early: the declaration is wrong.
    if (size > QUERY_MAX_RESULTS) throw new Error(`QuickBooks answers at most ${QUERY_MAX_RESULTS} records a query; ${size} are declared`);
    const where = list.where ? ` WHERE ${list.where}` : '';
    return { query: `SELECT * FROM ${list.entity}${where} ORDERBY Id STARTPOSITION ${position} MAXRESULTS ${size}` };
  },
};

/**
 * Every record of an entity, each once, paged as the declaration says (by start position, each page reading the
 * declared overlap of the one before: see declaredPages). `where` keeps inactive records too for the entities that
 * leave them out by default; `answerName` is where the answer holds the records, when not under the entity's name.
 */
export async function* queryPages(
  realm: QboRealm,
  entity: string,
  options: { where?: string; answerName?: string } = {},
): AsyncIterable<{ records: QboEntity[]; time?: string }> {
  const get = async ({ path, query }: PageRequest) => ({ body: await qboGet<IntuitResponse>(realm, path, query) });
  for await (const page of declaredPages<QboEntity, { body: IntuitResponse }>(QUICKBOOKS, get, 'query', {
    params: { entity, ...(options.where ? { where: options.where } : {}) },
    records: `QueryResponse.${options.answerName ?? entity}`,
    idField: 'Id',
    hooks: QBO_HOOKS,
    label: entity,
  }))
    yield { records: page.records, time: page.answer.body.time };
}

/** A QuickBooks timestamp (`2024-05-02T16:03:10-07:00`) as ISO-8601 UTC; undefined when absent or unreadable. */
export const qboInstant = isoInstant;

/** A QuickBooks business date (`2024-05-01`) as Codat's local date-time. */
export function qboDate(value: unknown): string | undefined {
  return typeof value === 'string' && /^\d{4}-\d\d-\d\d/.test(value) ? `${value.slice(0, 10)}T00:00:00` : undefined;
}
