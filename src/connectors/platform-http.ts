import { setTimeout as sleep } from 'node:timers/promises';
import http from 'node:http';
import https from 'node:https';
import { outboundAgent, refusedHost } from '../lib/outbound-guard.js';
import { ConnectorError } from './connector-error.js';
import { politely, type Politeness } from './politeness.js';
import type { TokenSource } from './connector.js';

/** How a connector reaches one platform account. */
export interface PlatformEndpoint {
  /** The platform's name, in every error message (`hledger at http://… did not answer`). */
  platform: string;
  /** Base address; request paths are appended to it. */
  baseUrl: string;
  /** HTTP Basic credentials (e.g. a proxy in front of the platform). */
  basicAuth?: { username: string; password: string };
  /** Loopback, private and link-local addresses allowed (`CONNECTORS_ALLOW_PRIVATE=true`). */
  allowPrivate: boolean;
  signal?: AbortSignal;
  /** Per attempt, in ms (default 15 s). */
  timeoutMs?: number;
  /** Attempts for a network failure or a 5xx (default 3), with backoff between them. */
  attempts?: number;
  /** Backoff before the second attempt, doubled each time, in ms (default 500). */
  backoffMs?: number;
  /** The header saying how long to wait after a 429 (default `retry-after`). */
  retryAfterHeader?: string;
  /** Limits per platform account (see politeness.ts); none when absent. */
  politeness?: Politeness;
  /** What identifies the platform account the limits apply to, beside the platform and its address (e.g. a Xero tenant). */
  account?: string;
  /** An OAuth2 connection's access token, sent as a Bearer token; a 401 refreshes it once and sends the request again. */
  tokens?: TokenSource;
  /** Headers every request carries (e.g. `xero-tenant-id`, an API version). */
  headers?: Readonly<Record<string, string>>;
  /** Query parameters every request carries, unless its path names them (e.g. QuickBooks' `minorversion`). */
  query?: Readonly<Record<string, string>>;
  /** Told of every answer's headers (a platform saying how much of its limits is left). */
  onHeaders?: (headers: http.IncomingHttpHeaders) => void;
  /** Waits, or refuses, before each request (a platform's declared limits: remaining-limits.ts). */
  beforeRequest?: () => Promise<void>;
  /**
   * Whether a 403 is `unauthorized` like a 401 (default true). False for a platform whose 403 means that these
   * credentials may not read this one resource while the connection itself is fine (a Stripe restricted key missing
   * one permission): the 403 is then returned, for the connector to turn into an error of that read alone.
   */
  forbiddenIsUnauthorized?: boolean;
}

/** What one request sends beside its method and path. */
export interface RequestOptions {
  /** Headers of this request only (e.g. `If-Modified-Since`, `Idempotency-Key`). */
  headers?: Readonly<Record<string, string>>;
  /** A form body (`application/x-www-form-urlencoded`) instead of JSON. */
  form?: URLSearchParams;
  /** Whether the request may be sent again after a failure (default: only GET); a write with an idempotency key may. */
  retry?: boolean;
}

export interface PlatformResponse {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** One platform account, as politeness counts it: the platform, its address and who signs in (or what the connector says). */
export function accountKey(endpoint: PlatformEndpoint): string {
  return `${endpoint.platform}\u0000${new URL(endpoint.baseUrl).origin}\u0000${endpoint.account ?? endpoint.basicAuth?.username ?? ''}`;
}

/** Checked before any request: the operator decides whether platforms may live on internal addresses. */
export function checkAddress(endpoint: PlatformEndpoint): URL {
  let url: URL;
  try {
    url = new URL(endpoint.baseUrl);
  } catch {
    throw new ConnectorError('invalid', `${endpoint.platform}: ${endpoint.baseUrl} is not an http or https address`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConnectorError('invalid', `${endpoint.platform}: ${endpoint.baseUrl} is not an http or https address`);
  const refused = endpoint.allowPrivate ? undefined : refusedHost(url.hostname);
  if (refused)
    throw new ConnectorError(
      'refused-address',
      `${endpoint.platform}: ${refused}; set CONNECTORS_ALLOW_PRIVATE=true to allow internal addresses`,
    );
  return url;
}

/**
 * One request to a platform, with the taxonomy applied: network failures and 5xx are retried with backoff and
 * then `unavailable`; 401 and 403 are `unauthorized` (a 403 is returned instead when the endpoint says
 * `forbiddenIsUnauthorized: false`); 429 waits for `Retry-After` (at most a minute) and retries.
 * Any other status is returned. Loopback, private and link-local addresses are refused at connect time (every
 * resolved address) unless allowed. Credentials never appear in an error message.
 */
export async function platformRequest(
  endpoint: PlatformEndpoint,
  method: string,
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<PlatformResponse> {
  const base = checkAddress(endpoint);
  // A full address (a `Link` header's next page, the platform's words) is followed only on the platform's own origin,
  // credentials and all; one that is no address at all is the platform not answering what it should.
  if (/^https?:/i.test(path)) {
    const origin = URL.canParse(path) ? new URL(path).origin : undefined;
    if (origin !== base.origin)
      throw new ConnectorError(
        'unavailable',
        `${endpoint.platform} at ${base.origin} pointed to another address (${origin ?? 'not an address'})`,
      );
  }
  // An empty path is the base address itself (a token endpoint), not the base with a slash.
  const url = path === '' ? base : new URL(path.replace(/^\//, ''), base.href.endsWith('/') ? base.href : `${base.href}/`);
  // Appended as they are, leaving the path's own query exactly as the connector wrote it (no re-encoding).
  const extra = Object.entries(endpoint.query ?? {}).filter(([name]) => !url.searchParams.has(name));
  if (extra.length > 0) url.search = `${url.search}${url.search ? '&' : '?'}${new URLSearchParams(extra)}`;
  // Only a read is sent again: a write whose answer was lost may have been made (hledger's `PUT /add` appends).
  const attempts = (options.retry ?? method === 'GET') ? (endpoint.attempts ?? 3) : 1;
  let wait = endpoint.backoffMs ?? 500;
  const where = `${endpoint.platform} at ${base.origin}`;
  let token = endpoint.tokens ? await endpoint.tokens.accessToken() : undefined;
  let refreshed = false;
  for (let attempt = 1; ; attempt++) {
    endpoint.signal?.throwIfAborted();
    // Before every attempt, a retry after a 429 too: an account whose day ran out meanwhile sends nothing more.
    await endpoint.beforeRequest?.();
    let outcome: PlatformResponse | { error: string };
    try {
      const send = () => once(endpoint, method, url, body, options, token);
      outcome = endpoint.politeness ? await politely(accountKey(endpoint), endpoint.politeness, send) : await send();
    } catch (err) {
      if (endpoint.signal?.aborted) throw err;
      outcome = { error: (err as Error).message };
    }
    if ('status' in outcome) {
      endpoint.onHeaders?.(outcome.headers);
      if (outcome.status === 401 && endpoint.tokens && token !== undefined && !refreshed) {
        // The token expired early or was revoked: refreshed once (a revoked consent fails the refresh as unauthorized).
        refreshed = true;
        token = await endpoint.tokens.accessToken(token);
        attempt--;
        continue;
      }
      if (outcome.status === 401 || (outcome.status === 403 && endpoint.forbiddenIsUnauthorized !== false)) {
        throw new ConnectorError('unauthorized', `${where} refused the connection's credentials (HTTP ${outcome.status})`);
      }
      if (outcome.status === 429) {
        const asked = retryAfter(outcome, endpoint.retryAfterHeader) ?? wait;
        // A short wait is waited out within the read; a long one (or a platform still limiting after several
        // waits) hands the sync back to run again when the platform says.
        if (asked <= MAX_WAIT_IN_READ_MS && attempt < attempts + 3) {
          await sleep(asked, undefined, { signal: endpoint.signal });
          continue;
        }
        throw new ConnectorError(
          'rate-limited',
          `${where} is limiting requests (HTTP 429); retrying in ${Math.ceil(asked / 1000)} s`,
          undefined,
          Math.max(asked, 1000),
        );
      }
      if (outcome.status < 500) return outcome;
      outcome = { error: `HTTP ${outcome.status}` };
    }
    if (attempt >= attempts) throw new ConnectorError('unavailable', `${where} did not answer: ${outcome.error}`);
    await sleep(wait, undefined, { signal: endpoint.signal });
    wait *= 2;
  }
}

/** GET a JSON document; anything but 200 with JSON is `unavailable` (the platform is not what it should be). */
export async function platformJson<T>(endpoint: PlatformEndpoint, path: string, options?: RequestOptions): Promise<T> {
  const response = await platformRequest(endpoint, 'GET', path, undefined, options);
  const where = `${endpoint.platform} at ${new URL(endpoint.baseUrl).origin}`;
  if (response.status !== 200) throw new ConnectorError('unavailable', `${where} answered HTTP ${response.status} to GET ${path}`);
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new ConnectorError('unavailable', `${where} answered GET ${path} with something other than JSON`);
  }
}

/** The largest answer a platform may give (a journal of a million postings is far below it). */
const MAX_ANSWER_BYTES = 256 * 2 ** 20;

/** The longest `Retry-After` waited out inside a read; longer ones reschedule the sync. */
const MAX_WAIT_IN_READ_MS = 60_000;

function retryAfter(response: PlatformResponse, header = 'retry-after'): number | undefined {
  const raw = response.headers[header.toLowerCase()];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value) return undefined;
  const seconds = Number(value);
  // eslint-disable-next-line no-restricted-syntax -- real time: a `Retry-After` date is a wait on the platform's clock
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  // At most a day: a platform asking for longer is treated as asking for a day.
  return Number.isFinite(ms) ? Math.min(86_400_000, Math.max(0, ms)) : undefined;
}

function once(
  endpoint: PlatformEndpoint,
  method: string,
  url: URL,
  body: unknown,
  options: RequestOptions,
  token: string | undefined,
): Promise<PlatformResponse> {
  return new Promise((resolve, reject) => {
    const payload = options.form ? options.form.toString() : body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { accept: 'application/json', ...endpoint.headers, ...options.headers };
    if (payload !== undefined) {
      headers['content-type'] = options.form ? 'application/x-www-form-urlencoded' : 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    else if (endpoint.basicAuth)
      headers.authorization = `Basic ${Buffer.from(`${endpoint.basicAuth.username}:${endpoint.basicAuth.password}`).toString('base64')}`;
    const send = url.protocol === 'https:' ? https.request : http.request;
    const request = send(url, { method, headers, agent: outboundAgent(url, endpoint.allowPrivate), signal: endpoint.signal });
    const timeoutMs = endpoint.timeoutMs ?? 15_000;
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    // The whole exchange, not only a silent connection, has a deadline: a platform trickling bytes ends too.
    const deadline = setTimeout(() => request.destroy(new Error(`no complete answer within ${timeoutMs * 4} ms`)), timeoutMs * 4);
    request.on('close', () => clearTimeout(deadline));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) request.destroy(new Error(`an answer over ${MAX_ANSWER_BYTES / 2 ** 20} MB`));
        else chunks.push(chunk);
      });
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: response.headers });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(payload);
  });
}
