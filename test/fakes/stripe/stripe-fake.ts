import http from 'node:http';
import { FakeVendor } from '../fake-vendor.js';
import { randomBytes } from 'node:crypto';
import { openApiVendorContract, type VendorContract } from '../../contracts/openapi-vendor.js';
import { RESOURCES, StripeAccount, type Resource, type StripeObject } from './stripe-account.js';

/**
 * A stateful stand-in for Stripe: the API (`/v1/…`) of several accounts, each a StripeAccount, reached with one of
 * its API keys or, for an account connected to the platform through Stripe Connect, with the platform's secret key
 * and `Stripe-Account`; and Connect's OAuth endpoints (authorize, token, deauthorize). It keeps the rules a connector
 * must live with: lists newest first, `limit` at most 100, `starting_after`, `created[gt|gte|lt|lte]`, `has_more`,
 * events filtered by `types[]`, 401 for an unknown or rolled key, 403 naming the permission a restricted key lacks,
 * 429 with `Retry-After`, and its own clock in `Date`.
 *
 * Every JSON answer of the API is checked against Stripe's own OpenAPI document (test/contracts/stripe/, MIT) as it is
 * sent, errors included (Stripe declares them as `default`); what does not conform is kept in `violations`, which each
 * test expects to be empty. The OAuth endpoints are not in that document: their answers are checked against Stripe
 * Connect's documented token answer.
 */

let contract: VendorContract | undefined;
const stripeApi = () => (contract ??= openApiVendorContract('Stripe API', 'stripe/spec3.yaml'));

/** Stripe Connect's token answer and its OAuth errors (connect.stripe.com is not in the API's OpenAPI document). */
function checkConnectAnswer(status: number, body: StripeObject): string | undefined {
  if (status === 200) {
    const ok =
      typeof body.access_token === 'string' &&
      body.token_type === 'bearer' &&
      typeof body.stripe_user_id === 'string' &&
      typeof body.livemode === 'boolean' &&
      typeof body.scope === 'string';
    return ok ? undefined : `token answer is not Stripe Connect's: ${JSON.stringify(body)}`;
  }
  const errors = ['invalid_request', 'invalid_client', 'invalid_grant', 'unsupported_grant_type', 'invalid_scope'];
  return status === 400 || status === 401
    ? errors.includes(body.error)
      ? undefined
      : `OAuth error is not Stripe Connect's: ${JSON.stringify(body)}`
    : `Connect endpoint answered HTTP ${status}`;
}

/** A fault the next matching API requests answer instead of their data. */
export interface Fault {
  status: 401 | 429 | 500 | 503;
  count: number;
  retryAfterSeconds?: number;
  path?: RegExp;
  /** Only requests of this method (default: any). */
  method?: string;
  /** The request is carried out first and its answer lost: a write made, then a 5xx instead of the object. */
  afterProcessing?: boolean;
}

export interface RequestLog {
  method: string;
  path: string;
  query: URLSearchParams;
  account?: string;
  stripeVersion?: string;
  status: number;
  /** A write's form, decoded. */
  params?: StripeObject;
  idempotencyKey?: string;
}

/** `/v1/customers/{id}`, the id captured. */
const ONE_CUSTOMER = /^\/v1\/customers\/([^/]+)$/;

const LISTS: Record<string, Resource> = Object.fromEntries(RESOURCES.map((r) => [`/v1/${r}`, r]));

export class StripeFake extends FakeVendor {
  /** The platform's Connect application (this server as a Connect platform). */
  readonly clientId = `ca_${randomBytes(8).toString('hex')}`;
  readonly platformSecret = `sk_test_${randomBytes(12).toString('hex')}`;
  readonly accounts = new Map<string, StripeAccount>();
  readonly requests: RequestLog[] = [];
  /** What the next consent does: connect this account, or refuse. */
  consent: { grant: true; account: StripeAccount } | { grant: false } = { grant: false };
  /** Seconds Stripe's clock is ahead of this machine's. */
  clockSkewSeconds = 0;
  /** Changes a JSON answer of the API before it is sent (a test of the contract check itself). */
  tamper?: (path: string, body: StripeObject) => void;

  private readonly codes = new Map<string, { account: StripeAccount; scope: string }>();
  /** Accounts connected to the platform, by id; a deauthorised one is removed. */
  private readonly connected = new Map<string, { account: StripeAccount; refreshToken: string; scope: string }>();
  private readonly faults: Fault[] = [];
  /** The first answer to each idempotency key, by account and key. */
  private readonly idempotent = new Map<string, { fingerprint: string; status: number; body: StripeObject }>();

  /** Stripe's clock, in seconds. */
  now(): number {
    return Math.floor(Date.now() / 1000) + this.clockSkewSeconds;
  }

  /** The API's address only: what an API-key connection needs. */
  apiEnv(): Record<string, string> {
    return { STRIPE_API_URL: `${this.url}/v1` };
  }

  /** The whole configuration of a Connect platform pointed here. */
  connectEnv(): Record<string, string> {
    return {
      ...this.apiEnv(),
      STRIPE_CLIENT_ID: this.clientId,
      STRIPE_CLIENT_SECRET: this.platformSecret,
      STRIPE_AUTHORIZE_URL: `${this.url}/oauth/authorize`,
      STRIPE_TOKEN_URL: `${this.url}/oauth/token`,
      STRIPE_REVOKE_URL: `${this.url}/oauth/deauthorize`,
    };
  }

  addAccount(name: string): StripeAccount {
    const account = new StripeAccount(`acct_${randomBytes(8).toString('hex')}`, name, () => this.now());
    this.accounts.set(account.id, account);
    return account;
  }

  /** The merchant disconnects the platform's application in Stripe's Dashboard: its calls on the account answer 401. */
  disconnectFromDashboard(account: StripeAccount): void {
    this.connected.delete(account.id);
  }

  isConnected(account: StripeAccount): boolean {
    return this.connected.has(account.id);
  }

  inject(fault: Fault): void {
    this.faults.push({ ...fault });
  }

  /** The next fault injected for this request, taken (its count goes down), if any. */
  private faultFor(method: string, path: string, afterProcessing: boolean): Fault | undefined {
    const fault = this.faults.find(
      (f) => f.count > 0 && (!f.path || f.path.test(path)) && (!f.method || f.method === method) && !!f.afterProcessing === afterProcessing,
    );
    if (fault) fault.count--;
    return fault;
  }

  apiRequests(filter: (r: RequestLog) => boolean = () => true): RequestLog[] {
    return this.requests.filter((r) => r.path.startsWith('/v1/') && filter(r));
  }

  private send(res: http.ServerResponse, status: number, body: unknown, problem: string | undefined, headers: Record<string, string> = {}) {
    if (problem) this.violations.push(problem);
    res
      .writeHead(status, {
        'content-type': 'application/json',
        date: new Date(this.now() * 1000).toUTCString(),
        'request-id': `req_${randomBytes(7).toString('hex')}`,
        ...headers,
      })
      .end(JSON.stringify(body));
  }

  /** An API answer, checked against the spec for its path and status. */
  private answer(
    res: http.ServerResponse,
    method: string,
    path: string,
    status: number,
    body: StripeObject,
    headers?: Record<string, string>,
  ) {
    this.send(res, status, body, stripeApi().check(method, path, status, body), headers);
  }

  private error(
    res: http.ServerResponse,
    method: string,
    path: string,
    status: number,
    type: string,
    message: string,
    headers?: Record<string, string>,
  ) {
    this.answer(res, method, path, status, { error: { type, message } }, headers);
  }

  /** A restricted key without a permission the request needs: 403, Stripe's message naming it (and masking the key). */
  private lacksPermission(res: http.ServerResponse, method: string, path: string, key: string, account: StripeAccount, permission: string) {
    this.error(
      res,
      method,
      path,
      403,
      'invalid_request_error',
      `The provided key '${key.slice(0, 8)}${'*'.repeat(12)}${key.slice(-4)}' does not have the required permissions for this ` +
        `endpoint on account '${account.id}'. Having the '${permission}' permission would allow this request to continue.`,
    );
  }

  protected handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const log: RequestLog = { method, path: url.pathname, query: url.searchParams, status: 0 };
    this.requests.push(log);
    res.on('finish', () => (log.status = res.statusCode));
    if (url.pathname === '/oauth/authorize' && method === 'GET') return this.authorize(url, res);
    if (url.pathname === '/oauth/token' && method === 'POST') return this.token(new URLSearchParams(body), res);
    if (url.pathname === '/oauth/deauthorize' && method === 'POST') return this.deauthorize(req, new URLSearchParams(body), res);
    if (url.pathname.startsWith('/v1/')) return this.api(req, res, url, log, body);
    res.writeHead(404).end();
  }

  private authorize(url: URL, res: http.ServerResponse): void {
    const redirect = url.searchParams.get('redirect_uri') ?? '';
    if (url.searchParams.get('client_id') !== this.clientId || !redirect || url.searchParams.get('response_type') !== 'code') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_request');
      return;
    }
    const back = new URL(redirect);
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    if (!this.consent.grant) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user denied your request');
    } else {
      const code = `ac_${randomBytes(12).toString('hex')}`;
      this.codes.set(code, { account: this.consent.account, scope: url.searchParams.get('scope') ?? 'read_only' });
      back.searchParams.set('code', code);
      back.searchParams.set('scope', url.searchParams.get('scope') ?? '');
    }
    res.writeHead(302, { location: back.toString() }).end();
  }

  private token(form: URLSearchParams, res: http.ServerResponse): void {
    const answer = (status: number, body: StripeObject) => this.send(res, status, body, checkConnectAnswer(status, body));
    if (form.get('client_secret') !== this.platformSecret)
      return answer(401, { error: 'invalid_client', error_description: 'No such API key' });
    let grant: { account: StripeAccount; scope: string } | undefined;
    const type = form.get('grant_type');
    if (type === 'authorization_code') {
      grant = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
    } else if (type === 'refresh_token') {
      grant = [...this.connected.values()].find((c) => c.refreshToken === form.get('refresh_token'));
    } else return answer(400, { error: 'unsupported_grant_type', error_description: `Unsupported grant type: ${type}` });
    if (!grant) return answer(400, { error: 'invalid_grant', error_description: 'Authorization code does not exist' });
    const { account, scope } = grant;
    const refreshToken = `rt_${randomBytes(12).toString('hex')}`;
    this.connected.set(account.id, { account, refreshToken, scope });
    answer(200, {
      access_token: `sk_test_${randomBytes(12).toString('hex')}`,
      livemode: account.livemode,
      refresh_token: refreshToken,
      token_type: 'bearer',
      stripe_publishable_key: `pk_test_${randomBytes(12).toString('hex')}`,
      stripe_user_id: account.id,
      scope,
    });
  }

  private deauthorize(req: http.IncomingMessage, form: URLSearchParams, res: http.ServerResponse): void {
    const secret = Buffer.from(/^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '', 'base64')
      .toString()
      .split(':')[0];
    if (secret !== this.platformSecret || form.get('client_id') !== this.clientId)
      return this.send(res, 401, { error: 'invalid_client', error_description: 'No such application' }, undefined);
    const id = form.get('stripe_user_id') ?? '';
    if (!this.connected.delete(id)) return this.send(res, 400, { error: 'invalid_client', error_description: 'not connected' }, undefined);
    this.send(res, 200, { stripe_user_id: id }, undefined);
  }

  /** The account a request reads: its own key's, or a connected account named by the platform's key. */
  private accountOf(req: http.IncomingMessage): StripeAccount | undefined {
    const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!key) return undefined;
    const onBehalf = req.headers['stripe-account'] as string | undefined;
    if (key === this.platformSecret) return onBehalf ? this.connected.get(onBehalf)?.account : undefined;
    const own = [...this.accounts.values()].find((a) => a.keys.has(key));
    return own && (!onBehalf || onBehalf === own.id) ? own : undefined;
  }

  private api(req: http.IncomingMessage, res: http.ServerResponse, url: URL, log: RequestLog, raw: string): void {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    log.stripeVersion = req.headers['stripe-version'] as string | undefined;
    if (method === 'POST') log.idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    const account = this.accountOf(req);
    log.account = account?.id;
    const onBehalf = req.headers['stripe-account'] as string | undefined;
    if (!account)
      return this.error(
        res,
        method,
        path,
        401,
        'invalid_request_error',
        onBehalf
          ? `The provided key 'sk_test_********' does not have access to account '${onBehalf}' (or that account does not exist). Application access may have been revoked.`
          : 'Invalid API Key provided: rk_test_********',
        { 'www-authenticate': 'Bearer realm="Stripe"' },
      );
    // A restricted key without the permission a path needs: 403, Stripe's message naming the permission.
    const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const missing = account.missingPermission(key, path);
    if (missing) return this.lacksPermission(res, method, path, key, account, missing);
    const fault = this.faultFor(method, path, false);
    if (fault) {
      if (fault.status === 429)
        return this.error(res, method, path, 429, 'invalid_request_error', 'Too many requests hit the API too quickly.', {
          'retry-after': String(fault.retryAfterSeconds ?? 1),
        });
      if (fault.status === 401) return this.error(res, method, path, 401, 'invalid_request_error', 'Expired API Key provided');
      return this.error(res, method, path, fault.status, 'api_error', 'Something went wrong on Stripe’s end.');
    }
    if (method !== 'GET') return this.write(req, res, account, key, method, path, raw, log);
    let body: StripeObject;
    if (path === '/v1/account') body = account.account();
    else if (path === '/v1/balance') body = account.balance();
    else if (path === '/v1/events') {
      const types = url.searchParams.getAll('types[]');
      const events = account.eventList().filter((e) => types.length === 0 || types.includes(e.type));
      const page = this.page(events, url, path);
      if ('error' in page) return this.error(res, method, path, 400, 'invalid_request_error', page.error);
      body = page;
    } else if (ONE_CUSTOMER.test(path)) {
      // A deleted customer is still answered, as Stripe answers it: its id and `deleted: true`.
      const id = ONE_CUSTOMER.exec(path)![1];
      const customer = account.get('customers', id);
      if (customer) body = customer;
      else if (account.wasDeleted(id)) body = { id, object: 'customer', deleted: true };
      else
        return this.answer(res, method, path, 404, {
          error: { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: `No such customer: '${id}'` },
        });
    } else if (LISTS[path]) {
      const page = this.page(account.all(LISTS[path]), url, path);
      if ('error' in page) return this.error(res, method, path, 400, 'invalid_request_error', page.error);
      body = page;
    } else return this.error(res, method, path, 404, 'invalid_request_error', `Unrecognized request URL (GET: ${path})`);
    this.tamper?.(path, body);
    this.answer(res, method, path, 200, body);
  }

  /**
   * A write: customers created (`POST /v1/customers`), updated (`POST /v1/customers/{id}`) and deleted. The form is
   * checked against the operation's request body in Stripe's document: a parameter it does not declare is refused as
   * Stripe refuses it (400 `parameter_unknown`), and is a violation, since the connector must never send one. A
   * POST with an `Idempotency-Key` already used answers what the first answered; with other parameters, 400. A
   * DELETE takes no key (Stripe ignores it): sent again, it answers 404.
   */
  private write(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    account: StripeAccount,
    key: string,
    method: string,
    path: string,
    raw: string,
    log: RequestLog,
  ): void {
    const params = decodeForm(raw);
    log.params = params;
    const idempotencyKey = method === 'POST' ? (req.headers['idempotency-key'] as string | undefined) : undefined;
    const fingerprint = `${method} ${path} ${raw}`;
    const replay = idempotencyKey ? this.idempotent.get(`${account.id} ${idempotencyKey}`) : undefined;
    if (replay) {
      if (replay.fingerprint !== fingerprint)
        return this.error(
          res,
          method,
          path,
          400,
          'idempotency_error',
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
        );
      return this.answer(res, method, path, replay.status, replay.body, { 'idempotent-replayed': 'true' });
    }
    const problem = stripeApi().checkRequest(method, path, method === 'DELETE' && raw === '' ? undefined : params);
    if (problem) {
      this.violations.push(problem);
      return this.error(res, method, path, 400, 'invalid_request_error', `Invalid request: ${problem}`);
    }
    if (key === this.platformSecret && this.connected.get(account.id)?.scope !== 'read_write')
      return this.error(
        res,
        method,
        path,
        403,
        'invalid_request_error',
        `This application does not have the required permissions for this endpoint on account '${account.id}'. Having the 'read_write' scope would allow this request to continue.`,
      );
    if (account.readOnlyKey(key)) return this.lacksPermission(res, method, path, key, account, 'rak_customer_write');
    const one = ONE_CUSTOMER.exec(path);
    let status = 200;
    let body: StripeObject;
    if (method === 'POST' && path === '/v1/customers') body = account.createCustomerFromApi(params);
    else if (one && !account.get('customers', one[1]))
      return this.answer(res, method, path, 404, {
        error: { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: `No such customer: '${one[1]}'` },
      });
    else if (method === 'POST' && one) body = account.updateCustomerFromApi(one[1], params);
    else if (method === 'DELETE' && one) {
      account.deleteCustomer(one[1]);
      body = { id: one[1], object: 'customer', deleted: true };
    } else {
      status = 404;
      body = { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` } };
    }
    if (idempotencyKey) this.idempotent.set(`${account.id} ${idempotencyKey}`, { fingerprint, status, body: structuredClone(body) });
    const lost = this.faultFor(method, path, true);
    if (lost) return this.error(res, method, path, lost.status, 'api_error', 'Something went wrong on Stripe’s end.');
    this.answer(res, method, path, status, body);
  }

  /** One page of a list: `created[…]` filters, then `limit` objects after `starting_after`. */
  private page(objects: StripeObject[], url: URL, path: string): StripeObject | { error: string } {
    const q = url.searchParams;
    const limit = Number(q.get('limit') ?? 10);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return { error: 'Invalid limit: must be between 1 and 100' };
    const bound = (op: string) => (q.has(`created[${op}]`) ? Number(q.get(`created[${op}]`)) : undefined);
    const [gt, gte, lt, lte] = ['gt', 'gte', 'lt', 'lte'].map(bound);
    let list = objects.filter(
      (o) =>
        (gt === undefined || o.created > gt) &&
        (gte === undefined || o.created >= gte) &&
        (lt === undefined || o.created < lt) &&
        (lte === undefined || o.created <= lte),
    );
    const after = q.get('starting_after');
    if (after) {
      const at = list.findIndex((o) => o.id === after);
      if (at < 0) return { error: `No such object: '${after}'` };
      list = list.slice(at + 1);
    }
    return { object: 'list', data: list.slice(0, limit), has_more: list.length > limit, url: path };
  }
}

/**
 * A form body as Stripe reads it: `address[line1]=x` is `{address: {line1: 'x'}}`, `expand[]=a` appends to a list,
 * and every value is a string (an empty one unsets a field).
 */
export function decodeForm(raw: string): StripeObject {
  const out: StripeObject = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    const keys = name.split('[').map((k) => k.replace(/\]$/, ''));
    let at: StripeObject = out;
    keys.forEach((k, i) => {
      const last = i === keys.length - 1;
      if (last) {
        if (k === '' && Array.isArray(at)) at.push(value);
        else at[k] = value;
      } else {
        at[k] ??= keys[i + 1] === '' ? [] : {};
        at = at[k];
      }
    });
  }
  return out;
}

export async function startStripeFake(): Promise<StripeFake> {
  // The account's schema pulls in most of the document: compiled here, not inside a link's first request.
  stripeApi().prepare('GET', '/v1/account', 200);
  return new StripeFake().start();
}
