import type { ReadContext } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import { oauthConfig } from '../oauth/oauth-client.js';
import { platformJson, platformRequest, type PlatformEndpoint, type RequestOptions } from '../platform-http.js';
import type { PlatformHooks } from '../platform-declaration.js';
import { declaredEndpoint, declaredPages, pageTarget, type PageRequest } from '../platform-runtime.js';
import { XERO } from './platform.js';

// Xero's records are open-ended JSON; the mappings read what they use and ignore the rest.
export type XeroRecord = Record<string, any>;

/** What a Xero connection keeps beside its tokens: the organisation (tenant) it reads. */
export interface XeroSettings {
  tenantId: string;
  tenantName: string;
}

/** One Xero organisation's API, with the connection's token, Xero's limits and its remaining-limit headers. */
export function tenantEndpoint(ctx: Pick<ReadContext, 'settings' | 'tokens' | 'signal'>): PlatformEndpoint {
  const config = oauthConfig(XERO);
  if (!config) throw new ConnectorError('unavailable', 'Xero is not configured on this server (XERO_CLIENT_ID)');
  if (!ctx.tokens) throw new ConnectorError('unauthorized', 'the Xero connection holds no tokens; link it again');
  const { tenantId } = ctx.settings as unknown as XeroSettings;
  const windowMs = Number(config.more.LIMIT_WINDOW_MS) || 60_000;
  // Xero's limits: its declared remaining-limit headers, over the window Xero counts in (a minute).
  return declaredEndpoint(XERO, {
    signal: ctx.signal,
    politeness: { ...XERO.transport.politeness, windowMs },
    account: tenantId,
    tokens: ctx.tokens,
    headers: { 'xero-tenant-id': tenantId },
  });
}

/** A GET of Xero's JSON answer. */
export async function xeroGet<T>(endpoint: PlatformEndpoint, path: string, options?: RequestOptions): Promise<T> {
  return platformJson<T>(endpoint, path, options);
}

/** A write (PUT creates, POST creates or updates) with Xero's idempotency key, so a retried write is made once. */
export async function xeroWrite<T>(
  endpoint: PlatformEndpoint,
  method: 'PUT' | 'POST',
  path: string,
  body: unknown,
  idempotencyKey: string,
): Promise<T> {
  const response = await platformRequest(endpoint, method, path, body, { headers: { 'idempotency-key': idempotencyKey }, retry: true });
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    throw new ConnectorError('unavailable', `Xero answered ${method} ${path} with something other than JSON (HTTP ${response.status})`);
  }
  if (response.status === 400) throw new ConnectorError('invalid', validationMessage(parsed));
  if (response.status === 404) throw new ConnectorError('invalid', `Xero has no such record (${method} ${path})`);
  if (response.status !== 200) throw new ConnectorError('unavailable', `Xero answered HTTP ${response.status} to ${method} ${path}`);
  return parsed as T;
}

/** Xero's 400: `{ Type: 'ValidationException', Message, Elements: [{ ValidationErrors: [{ Message }] }] }`. */
function validationMessage(answer: unknown): string {
  const body = answer as { Message?: string; Elements?: { ValidationErrors?: { Message?: string }[] }[] };
  const messages = (body.Elements ?? []).flatMap((e) => (e.ValidationErrors ?? []).map((v) => v.Message)).filter(Boolean);
  return messages.length > 0 ? messages.join('; ') : (body.Message ?? 'Xero refused the record');
}

/** `If-Modified-Since` of a full read: every record Xero holds, deleted ones included (see xeroPages). */
export const EVERYTHING_SINCE = '1900-01-01T00:00:00';

/** One page of a collection, with Xero's clock when it answered (`DateTimeUTC`). */
export interface XeroPage<T> {
  records: T[];
  serverTime: string | undefined;
}

/**
 * Every record of a Xero collection changed since `since`, paged as the declaration says (`?page=1,2,…`, page 1
 * counting the pages, the rest asked ahead). The pages hold a set that does not shift under the reader: they are
 * ordered by the record's id (which never changes, so a record changed mid-read keeps its place) and always asked
 * with `If-Modified-Since` (so a record deleted mid-read stays in the answer as DELETED instead of dropping out). A
 * record created mid-read can push the last one of a page onto the next: the reader drops ids it has seen. An unpaged
 * collection (accounts, tax rates) comes whole.
 */
export async function* xeroPages<T extends Record<string, unknown>>(
  endpoint: PlatformEndpoint,
  resource: string,
  collection: string,
  options: { since: string; idField: string; where?: string; includeArchived?: boolean; paged: boolean },
): AsyncIterable<XeroPage<T>> {
  const params: Record<string, string> = {};
  if (options.paged) params.order = `${options.idField} ASC`;
  if (options.where) params.where = options.where;
  if (options.includeArchived) params.includeArchived = 'true';
  const get = async (request: PageRequest) => ({
    body: await xeroGet<Record<string, unknown>>(endpoint, pageTarget(request), { headers: { 'if-modified-since': options.since } }),
  });
  for await (const page of declaredPages<T, { body: Record<string, unknown> }>(XERO, get, resource, {
    params,
    records: collection,
    whole: !options.paged,
    idField: options.idField,
  }))
    yield { records: page.records, serverTime: xeroInstant(page.answer.body.DateTimeUTC) };
}

/** What the declaration cannot say of Xero: its times are written `/Date(1573755038314+0000)/`. */
export const XERO_HOOKS: PlatformHooks = { instant: (value) => xeroInstant(value) };

/** Xero's `/Date(1573755038314+0000)/` (or an ISO string) as ISO-8601 UTC; undefined when absent or unreadable. */
export function xeroInstant(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const wrapped = /^\/Date\((-?\d+)([+-]\d{4})?\)\/$/.exec(value);
  const ms = wrapped ? Number(wrapped[1]) : Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined;
}

/** A Xero business date (`/Date(…)/` at midnight, or `2024-05-01T00:00:00`) as Codat's local date-time. */
export function xeroDate(value: unknown): string | undefined {
  const instant = xeroInstant(value);
  return instant ? `${instant.slice(0, 10)}T00:00:00` : undefined;
}

/** `If-Modified-Since` for a cursor: a second earlier, so a change in the cursor's own second is read again, never missed. */
export function sinceCursor(cursor: string): string {
  return new Date(Date.parse(cursor) - 1000).toISOString().replace(/\.\d{3}Z$/, '');
}
