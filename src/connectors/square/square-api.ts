import type { ReadContext } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import { oauthConfig, vendorEndpoint, type OAuthPlatformConfig } from '../oauth/oauth-client.js';
import { platformRequest, type PlatformEndpoint } from '../platform-http.js';
import { declaredEndpoint, declaredPages, isoInstant, type PageRequest } from '../platform-runtime.js';
import { SQUARE } from './platform.js';

/** What a Square connection keeps beside its tokens: the seller (merchant) it reads. */
export interface SquareSettings {
  merchantId: string;
  businessName?: string;
}

// Square's objects are open-ended JSON; the mappings read what they use and ignore the rest (hence any).
export type SquareObject = Record<string, any>;

/** The Connect API with a bearer token: the connection's (kept fresh) or, while linking, the one just granted. */
function apiEndpoint(
  config: OAuthPlatformConfig,
  auth: Pick<PlatformEndpoint, 'tokens' | 'headers' | 'signal' | 'account'>,
): PlatformEndpoint {
  return declaredEndpoint(SQUARE, { baseUrl: config.apiUrl, ...auth });
}

/** One merchant's API, with the connection's token and the politeness budget of that merchant. */
export function merchantEndpoint(ctx: Pick<ReadContext, 'settings' | 'tokens' | 'signal'>): PlatformEndpoint {
  const config = oauthConfig(SQUARE);
  if (!config) throw new ConnectorError('unavailable', 'Square is not configured on this server (SQUARE_CLIENT_ID)');
  if (!ctx.tokens) throw new ConnectorError('unauthorized', 'the Square connection holds no tokens; link it again');
  const { merchantId } = ctx.settings as unknown as SquareSettings;
  if (typeof merchantId !== 'string' || merchantId === '')
    throw new ConnectorError('unauthorized', 'the Square connection has no merchant; link it again');
  return apiEndpoint(config, { tokens: ctx.tokens, signal: ctx.signal, account: merchantId });
}

/** Square's error envelope on every endpoint: `{ errors: [{ category, code, detail, field }] }`. */
interface ErrorsAnswer {
  errors?: { category?: string; code?: string; detail?: string; field?: string }[];
}

/** Square's own words for a refusal: each error's code and detail, and the field it is about. */
export function squareErrorText(body: unknown): string {
  const errors = (body as ErrorsAnswer | null)?.errors;
  return (Array.isArray(errors) ? errors : [])
    .map((e) => `${[e.code, e.detail].filter(Boolean).join(': ')}${e.field ? ` (field ${e.field})` : ''}`)
    .join('; ');
}

/** One answer: its JSON, and Square's clock when it answered (the HTTP `Date` header, as ISO-8601 UTC). */
export interface SquareAnswer {
  body: SquareObject;
  date?: string;
}

/**
 * One call: a GET with `query`, or a POST (Square's searches are POSTs that change nothing, so they are sent again
 * after a failure like a GET). 401, 403, 429 and 5xx are platformRequest's; any other status but 200 is
 * `unavailable` with Square's own words (they never hold a token).
 */
export async function squareCall(
  endpoint: PlatformEndpoint,
  method: 'GET' | 'POST',
  path: string,
  input: { query?: Record<string, string | undefined> | URLSearchParams; body?: unknown } = {},
): Promise<SquareAnswer> {
  const query = new URLSearchParams();
  const given = input.query instanceof URLSearchParams ? input.query.entries() : Object.entries(input.query ?? {});
  for (const [name, value] of given) if (value !== undefined) query.set(name, value);
  const target = query.toString() ? `${path}?${query}` : path;
  const response = await platformRequest(endpoint, method, target, input.body, { retry: true });
  let body: SquareObject;
  try {
    body = JSON.parse(response.body) as SquareObject;
  } catch {
    body = null as unknown as SquareObject;
  }
  if (typeof body !== 'object' || body === null)
    throw new ConnectorError(
      'unavailable',
      `Square answered ${method} /${path} with something other than a JSON object (HTTP ${response.status})`,
    );
  if (response.status !== 200) {
    const text = squareErrorText(body);
    throw new ConnectorError('unavailable', `Square refused ${method} /${path} (HTTP ${response.status}${text ? `: ${text}` : ''})`);
  }
  const header = response.headers.date;
  return { body, date: squareInstant(header ? new Date(header).toISOString() : undefined) };
}

/** One page of a list or search: its objects and Square's clock when it answered. */
export interface SquarePage {
  objects: SquareObject[];
  date?: string;
}

/**
 * Every page of a list (GET, cursor in the query) or a search (POST, cursor in the body), paged as the declaration
 * says, until Square answers no cursor. `collection` names the answer's array (`payments`, `orders`, `objects`). Square
 * asks that each later page repeat the first request exactly, beside the cursor, which the runtime does.
 */
export async function* cursorPages(
  endpoint: PlatformEndpoint,
  method: 'GET' | 'POST',
  path: string,
  collection: string,
  request: Record<string, string | undefined> | Record<string, unknown>,
): AsyncIterable<SquarePage> {
  const get = ({ path: at, query, body }: PageRequest) =>
    body ? squareCall(endpoint, 'POST', at, { body }) : squareCall(endpoint, 'GET', at, { query });
  const params = Object.fromEntries(Object.entries(request).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const pages = declaredPages<SquareObject, Awaited<ReturnType<typeof squareCall>>>(
    SQUARE,
    get,
    path,
    method === 'GET' ? { params, records: collection } : { body: request, records: collection },
  );
  for await (const page of pages) yield { objects: page.records, date: page.answer.date };
}

/** The merchant behind a token (`GET /v2/merchants/me`), asked while linking with the token just granted. */
export async function merchantOf(config: OAuthPlatformConfig, accessToken: string): Promise<SquareObject> {
  const endpoint = apiEndpoint(config, { headers: { authorization: `Bearer ${accessToken}` } });
  const { body } = await squareCall(endpoint, 'GET', 'merchants/me');
  if (!body.merchant?.id) throw new ConnectorError('unavailable', 'Square answered /v2/merchants/me without the merchant');
  return body.merchant as SquareObject;
}

/**
 * Revokes the application's access to the merchant (`POST /oauth2/revoke`): Square authenticates the application by
 * `Authorization: Client <secret>` (not HTTP Basic) and names the access by `merchant_id` (preferred: it does not
 * expire, where the connection's stored access token may have) or by an access token. Square ends every token it
 * gave the application for that merchant.
 */
export async function revokeSquareAccess(
  config: OAuthPlatformConfig,
  access: { merchantId: string } | { accessToken: string },
): Promise<void> {
  if (!config.revokeUrl) return;
  const endpoint = { ...vendorEndpoint('Square', config.revokeUrl), headers: { authorization: `Client ${config.clientSecret}` } };
  const named = 'merchantId' in access ? { merchant_id: access.merchantId } : { access_token: access.accessToken };
  const response = await platformRequest(endpoint, 'POST', '', { client_id: config.clientId, ...named });
  if (response.status >= 300) throw new ConnectorError('unavailable', `Square did not revoke the access (HTTP ${response.status})`);
}

/** A Square timestamp (RFC 3339, `2024-05-01T10:00:00.123Z`) as ISO-8601 UTC to the second; undefined when absent. */
export const squareInstant = isoInstant;

/** Square's time for a request (RFC 3339 with milliseconds). */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString();
}
