import type { ReadContext } from '../connector.js';
import { ConnectorError } from '../connector-error.js';
import { oauthConfig } from '../oauth/oauth-client.js';
import { platformRequest, type PlatformEndpoint, type RequestOptions } from '../platform-http.js';
import { declaredEndpoint, declaredPages, pageTarget } from '../platform-runtime.js';
import { STRIPE } from './platform.js';

/** What a Stripe connection keeps beside its credentials: the account it reads. */
export interface StripeSettings {
  accountId: string;
  accountName?: string;
  livemode: boolean;
}

/**
 * A connection's credentials: an API key typed into the form, or, linked through Stripe Connect, the connected
 * account (`stripeUserId`) with the tokens Stripe handed over (kept, not used: see `endpointOf`).
 */
export type StripeCredentials = { apiKey: string } | { stripeUserId: string; accessToken: string; refreshToken?: string };

// Stripe's objects are open-ended JSON; the mappings read what they use and ignore the rest (hence any).
export type StripeObject = Record<string, any>;

/** A list answer: `{object: "list", data, has_more, url}`. */
export interface StripeList {
  object: 'list';
  data: StripeObject[];
  has_more: boolean;
}

/** Stripe's limits in test mode are a quarter of live mode's. */
const TEST_MODE_REQUESTS_PER_SECOND = 25;

/**
 * The endpoint of one Stripe account. An API key authenticates as itself. A Connect connection authenticates with
 * the platform's own secret key and names the connected account in `Stripe-Account`, as Stripe recommends (the
 * OAuth access token is a legacy per-account key): the platform's key can be rotated without relinking anyone, and a
 * deauthorised account answers 401 at once. The key travels in a header only; no error message carries it.
 */
export function endpointOf(
  settings: Partial<StripeSettings>,
  credentials: Record<string, unknown> | null,
  signal?: AbortSignal,
): PlatformEndpoint {
  const headers: Record<string, string> = {};
  if (typeof credentials?.apiKey === 'string' && credentials.apiKey !== '') {
    headers.authorization = `Bearer ${credentials.apiKey}`;
  } else if (typeof credentials?.stripeUserId === 'string') {
    const connect = oauthConfig(STRIPE);
    if (!connect) throw new ConnectorError('unauthorized', 'Stripe Connect is not configured on this server (STRIPE_CLIENT_ID)');
    headers.authorization = `Bearer ${connect.clientSecret}`;
    headers['stripe-account'] = credentials.stripeUserId;
  } else throw new ConnectorError('unauthorized', 'the Stripe connection holds no API key; link it again');
  const politeness = STRIPE.transport.politeness;
  return declaredEndpoint(STRIPE, {
    signal,
    politeness: settings.livemode === false ? { ...politeness, requests: TEST_MODE_REQUESTS_PER_SECOND } : politeness,
    account: settings.accountId ?? '',
    headers,
    // A 403 is a restricted key without one permission (the key itself works: an unknown or rolled key is a 401), so
    // it fails the read that needed the permission, not the connection (see stripeGet).
    forbiddenIsUnauthorized: false,
  });
}

export function readEndpoint(ctx: Pick<ReadContext, 'settings' | 'credentials' | 'signal'>): PlatformEndpoint {
  return endpointOf(ctx.settings as Partial<StripeSettings>, ctx.credentials, ctx.signal);
}

/** An answer with Stripe's clock: the `Date` of the response, in seconds since the epoch (undefined without one). */
export interface Answer<T> {
  body: T;
  stripeTime?: number;
}

/** Stripe's error envelope: `{ error: { type, code?, message? } }`. */
interface StripeErrorAnswer {
  error?: { type?: string; code?: string; message?: string; param?: string };
}

/** Stripe's own words for a refusal: its error's code (or type), message and the parameter it is about. */
export function stripeErrorText(body: unknown): string {
  const error = (body as StripeErrorAnswer | null)?.error;
  const words = [error?.code ?? error?.type, error?.message].filter(Boolean).join(': ');
  return error?.param ? `${words} (parameter ${error.param})` : words;
}

/**
 * A 403: the restricted key lacks the permission a read needs (Stripe's message names it, e.g. `rak_charge_read`).
 * `unavailable`, so the sync of that data type fails (`FetchError`) and the connection stays Linked.
 */
export class StripeForbidden extends ConnectorError {
  constructor(
    readonly path: string,
    readonly stripeMessage: string,
  ) {
    super(
      'unavailable',
      `Stripe refused GET /v1/${path}: the API key lacks a permission it needs (HTTP 403${stripeMessage ? `: ${stripeMessage}` : ''})`,
    );
    this.name = 'StripeForbidden';
  }
}

/**
 * One GET: the JSON answer on 200 with Stripe's clock; a 403 is StripeForbidden; any other status is `unavailable`
 * with Stripe's own words (401, 429 and 5xx are platformRequest's). Stripe masks keys in its messages.
 */
export async function stripeGet<T>(endpoint: PlatformEndpoint, path: string, options?: RequestOptions): Promise<Answer<T>> {
  const response = await platformRequest(endpoint, 'GET', path, undefined, options);
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    parsed = null;
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw new ConnectorError(
      'unavailable',
      `Stripe answered GET ${pathOnly(path)} with something other than a JSON object (HTTP ${response.status})`,
    );
  if (response.status !== 200) {
    const error = (parsed as StripeErrorAnswer | null)?.error;
    if (response.status === 403) throw new StripeForbidden(pathOnly(path), typeof error?.message === 'string' ? error.message : '');
    const why = stripeErrorText(parsed);
    throw new ConnectorError('unavailable', `Stripe answered HTTP ${response.status} to GET ${pathOnly(path)}${why ? ` (${why})` : ''}`);
  }
  const date = Date.parse(String(response.headers.date ?? ''));
  return { body: parsed as T, stripeTime: Number.isFinite(date) ? Math.floor(date / 1000) : undefined };
}

function pathOnly(path: string): string {
  return path.split('?')[0];
}

/**
 * Every page of a list, newest first as Stripe orders them, each asked `starting_after` the last object of the page
 * before. Objects are ordered by creation, which never changes, so a change made while the pages are read moves
 * nothing; an object created meanwhile lands before the first page and is the next read's (its cursor is the time
 * this read began).
 */
export async function* listPages(
  endpoint: PlatformEndpoint,
  resource: string,
  params: Record<string, string | readonly string[]> = {},
): AsyncIterable<Answer<StripeObject[]>> {
  // Paged as the declaration says (`starting_after` the last id, while `has_more`).
  for await (const page of declaredPages<StripeObject, Answer<StripeList>>(
    STRIPE,
    (request) => stripeGet<StripeList>(endpoint, pageTarget(request)),
    resource,
    { params },
  ))
    yield { body: page.records, stripeTime: page.answer.stripeTime };
}

/** Every object of a list (the small lists read whole: prices). */
export async function listAll(endpoint: PlatformEndpoint, resource: string, params?: Record<string, string>): Promise<StripeObject[]> {
  const out: StripeObject[] = [];
  for await (const page of listPages(endpoint, resource, params)) out.push(...page.body);
  return out;
}

/** Seconds since the epoch as ISO-8601 UTC (`2024-05-01T10:00:00Z`). */
export function stripeInstant(seconds: unknown): string | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds)
    ? new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')
    : undefined;
}

/** Seconds since the epoch as Codat's local date-time (Stripe's times are UTC: `2024-05-01T10:00:00`). */
export function stripeLocal(seconds: unknown): string | undefined {
  return stripeInstant(seconds)?.slice(0, 19);
}
