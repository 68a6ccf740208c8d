import http from 'node:http';
import { FakeVendor } from '../fake-vendor.js';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiVendorContract, type VendorContract } from '../../contracts/openapi-vendor.js';
import { SquareMerchant, type SquareObject } from './square-merchant.js';

/**
 * A stateful stand-in for Square: its OAuth endpoints (authorize page, token, revoke) and the parts of the Connect
 * API (v2) the connector reads, for several merchants (sellers). It keeps Square's rules that a connector must live
 * with: tokens that expire (`expires_at`), the pinned `Square-Version`, opaque cursors that only continue the very
 * query that made them, lists of payments and refunds that reach back a year unless asked, the main location's
 * payments unless a location is named, orders searched by at most 10 locations with a sort that must match the
 * time filter, deleted catalog objects answered only when asked for, customers that vanish when deleted, and a clock
 * of its own that is not the test's.
 *
 * Every JSON answer is checked against Square's own OpenAPI document (test/contracts/square/, Apache-2.0) as it is
 * sent: by its path and status where the document declares one, and an error answer against the document's Error
 * object. What does not conform is kept in `violations`, which each test expects to be empty.
 */

let contract: VendorContract | undefined;
const squareContract = () =>
  (contract ??= openApiVendorContract('Square API', 'square/square.json', {
    correct(document) {
      // The document refers to CatalogModifierToggleOverrideType (catalog modifier overrides) without defining it;
      // its descriptions name the values `YES`, `NO` and `NOT_SET`, defined here so the catalog's schemas compile.
      const schemas = (document as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;
      schemas.CatalogModifierToggleOverrideType ??= { type: 'string', enum: ['YES', 'NO', 'NOT_SET'] };
    },
  }));

const CONTRACT_FILE = fileURLToPath(new URL('../../contracts/square/square.json', import.meta.url));
let errorEnums:
  | { categories: Set<string>; codes: Set<string>; version: string; createCustomerFields: Set<string>; updateCustomerFields: Set<string> }
  | undefined;
/** The Error object's categories and codes, and the API version, as Square's document declares them. */
function contractFacts() {
  if (!errorEnums) {
    const document = JSON.parse(readFileSync(CONTRACT_FILE, 'utf8'));
    const schemas = document.components.schemas;
    errorEnums = {
      categories: new Set(schemas.ErrorCategory.enum),
      codes: new Set(schemas.ErrorCode.enum),
      version: document.components.securitySchemes.oauth2['x-additional-headers'][0].schema.default,
      createCustomerFields: new Set(Object.keys(schemas.CreateCustomerRequest.properties)),
      updateCustomerFields: new Set(Object.keys(schemas.UpdateCustomerRequest.properties)),
    };
  }
  return errorEnums;
}

/** An error answer as Square's document describes its Error object (it declares only the 200 of each operation). */
function checkErrorAnswer(path: string, status: number, body: SquareObject): string | undefined {
  const { categories, codes } = contractFacts();
  const errors = Array.isArray(body.errors) ? body.errors : [];
  const wrong = errors.filter((e: SquareObject) => !categories.has(e.category) || !codes.has(e.code));
  if (errors.length === 0 || wrong.length > 0) return `Square API ${path} ${status}: not Square's Error object: ${JSON.stringify(body)}`;
  return undefined;
}

const squareError = (category: string, code: string, detail: string, field?: string) => ({
  errors: [{ category, code, detail, ...(field ? { field } : {}) }],
});

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
  /** The query string, as sent. */
  query: string;
  /** A POST's JSON body. */
  body?: SquareObject;
  merchantId?: string;
  status: number;
}

interface Consent {
  merchant: SquareMerchant;
  revoked: boolean;
  /** The permissions the seller granted (the authorize page's `scope`). */
  scopes: string[];
}

/** What an opaque cursor remembers: where the page ended (its last key, and how many objects were answered), and the query it continues. */
interface CursorState {
  after: string;
  offset: number;
  query: string;
}

export class SquareFake extends FakeVendor {
  readonly clientId = `sq0idp-${randomBytes(8).toString('hex')}`;
  readonly clientSecret = `sq0csp-${randomBytes(16).toString('base64url')}`;
  readonly merchants = new Map<string, SquareMerchant>();
  readonly requests: RequestLog[] = [];
  /** Grants the token endpoint answered, by type. */
  readonly grants: { type: string; status: number }[] = [];
  /** Revocations asked of `/oauth2/revoke`, by how the application authenticated. */
  readonly revocations: { authorization: string; body: SquareObject; status: number }[] = [];
  /** What the next consent gives: granted (to this merchant; the first when unset) or refused. */
  consent: { grant: boolean; merchant?: SquareMerchant } = { grant: true };
  /** Square's access tokens last 30 days. */
  tokenTtlMs = 30 * 86_400_000;
  /** The most objects one page holds, whatever `limit` asks (Square's limits are advisory). */
  maxPageSize = 100;
  /**
   * Square's clock against the test's: two hours behind, so a connector that took its cursor from its own clock
   * would ask for changes after they were made, and miss them.
   */
  clockSkewMs = -2 * 3_600_000;
  /** Changes a JSON answer before it is sent (a test of the contract check itself). */
  tamper?: (path: string, body: SquareObject) => void;
  /** Told after each API answer is sent (a test changing data between two pages of a read). */
  afterAnswer?: (log: RequestLog) => void;
  /**
   * Cursors that continue at a position (the number of objects answered so far) rather than after the last key
   * answered. Square's cursors are opaque and it does not say which they are: a connector must not skip a record
   * either way where it can help it.
   */
  positionalCursors = false;

  /** Every secret the fake handed out (codes, access and refresh tokens), for tests that look for them where they must not be. */
  readonly issued = new Set<string>();
  private readonly codes = new Map<string, { redirectUri: string; challenge: string; consent: Consent }>();
  private readonly accessTokens = new Map<string, { consent: Consent; expires: number }>();
  private readonly refreshTokens = new Map<string, { consent: Consent; pkce: boolean }>();
  private readonly cursors = new Map<string, CursorState>();
  private readonly faults: Fault[] = [];
  /** The customer each `idempotency_key` created, with the request that first used it. */
  private readonly idempotent = new Map<string, { request: string; customerId: string }>();

  /** Square's now (ms). */
  now = (): number => Date.now() + this.clockSkewMs;

  /** The environment that points Ledgerport's Square connector here. */
  env(): Record<string, string> {
    return {
      SQUARE_CLIENT_ID: this.clientId,
      SQUARE_CLIENT_SECRET: this.clientSecret,
      SQUARE_AUTHORIZE_URL: `${this.url}/oauth2/authorize`,
      SQUARE_TOKEN_URL: `${this.url}/oauth2/token`,
      SQUARE_REVOKE_URL: `${this.url}/oauth2/revoke`,
      SQUARE_API_URL: `${this.url}/v2`,
    };
  }

  addMerchant(businessName: string): SquareMerchant {
    const merchant = new SquareMerchant(businessName, this.now);
    this.merchants.set(merchant.id, merchant);
    return merchant;
  }

  inject(fault: Fault): void {
    this.faults.push({ ...fault });
  }

  /** Every access token stops working now (as if their 30 days had passed before the connector saw it coming). */
  expireTokens(): void {
    for (const token of this.accessTokens.values()) token.expires = 0;
  }

  /** Every consent loses a permission, as if granted before the application asked for it; answers how to give it back. */
  withdrawScope(scope: string): () => void {
    const consents = new Set([...this.refreshTokens.values(), ...this.accessTokens.values()].map(({ consent }) => consent));
    const had = [...consents].filter((c) => c.scopes.includes(scope));
    for (const consent of had) consent.scopes = consent.scopes.filter((s) => s !== scope);
    return () => {
      for (const consent of had) consent.scopes.push(scope);
    };
  }

  /** The seller disconnects the application in Square's dashboard: every token of every consent stops working. */
  revokeConsents(): void {
    for (const { consent } of this.refreshTokens.values()) consent.revoked = true;
  }

  /** The next fault injected for this request, taken (its count goes down), if any. */
  private faultFor(method: string, path: string, afterProcessing: boolean): Fault | undefined {
    const fault = this.faults.find(
      (f) => f.count > 0 && (!f.path || f.path.test(path)) && (!f.method || f.method === method) && !!f.afterProcessing === afterProcessing,
    );
    if (fault) fault.count--;
    return fault;
  }

  /**
   * A write's body against Square's document: valid for the operation's request schema, and naming no field the
   * schema does not declare (the document leaves its request objects open, but a field Square does not know is
   * one the connector should not send).
   */
  private checkWriteRequest(method: string, path: string, body: SquareObject): string | undefined {
    const problem = squareContract().checkRequest(method, path, body);
    if (problem) return problem;
    const declared = method === 'POST' ? contractFacts().createCustomerFields : contractFacts().updateCustomerFields;
    const unknown = Object.keys(body).filter((k) => !declared.has(k));
    return unknown.length > 0
      ? `Square API ${method} ${path} request: fields the contract does not declare: ${unknown.join(', ')}`
      : undefined;
  }

  /**
   * `POST /v2/customers` (a new customer; a repeated `idempotency_key` answers the first request's customer) and
   * `PUT /v2/customers/{id}` (the fields given change; a null one is cleared; the others stay).
   */
  private writeCustomer(
    merchant: SquareMerchant,
    method: string,
    path: string,
    body: SquareObject,
  ): { status: number; body: SquareObject } {
    const customers = merchant.collection('customers');
    const fields = Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'idempotency_key' && k !== 'version'));
    if (method === 'POST') {
      const key = String(body.idempotency_key ?? '');
      const first = key ? this.idempotent.get(`${merchant.id} ${key}`) : undefined;
      if (first) {
        if (first.request !== JSON.stringify(body))
          return {
            status: 400,
            body: squareError(
              'INVALID_REQUEST_ERROR',
              'IDEMPOTENCY_KEY_REUSED',
              'The idempotency key was used for another request',
              'idempotency_key',
            ),
          };
        return { status: 200, body: { customer: customers.get(first.customerId) } };
      }
      if (
        !['given_name', 'family_name', 'company_name', 'email_address', 'phone_number'].some(
          (k) => typeof fields[k] === 'string' && fields[k] !== '',
        )
      )
        return {
          status: 400,
          body: squareError(
            'INVALID_REQUEST_ERROR',
            'BAD_REQUEST',
            'At least one of given_name, family_name, company_name, email_address or phone_number is required',
          ),
        };
      const customer = merchant.addCustomer(fields);
      if (key) this.idempotent.set(`${merchant.id} ${key}`, { request: JSON.stringify(body), customerId: customer.id });
      return { status: 200, body: { customer } };
    }
    const id = /^\/v2\/customers\/([^/]+)$/.exec(path)?.[1];
    if (method !== 'PUT' || !id)
      return { status: 404, body: squareError('INVALID_REQUEST_ERROR', 'NOT_FOUND', `the fake does not serve ${method} ${path}`) };
    if (!customers.has(id))
      return { status: 404, body: squareError('INVALID_REQUEST_ERROR', 'NOT_FOUND', `Customer with ID \`${id}\` not found.`) };
    if (typeof body.version === 'number' && body.version !== customers.get(id)!.version)
      return {
        status: 400,
        body: squareError('INVALID_REQUEST_ERROR', 'CONFLICT', 'The customer was changed since the version given', 'version'),
      };
    // Sparse, as Square's: what is sent changes, null clears it, what is not sent stays; within the address too.
    const before = customers.get(id)!;
    if (fields.address && typeof fields.address === 'object' && before.address)
      fields.address = { ...before.address, ...(fields.address as SquareObject) };
    const customer = merchant.update('customers', id, fields);
    for (const [k, v] of Object.entries(fields)) if (v === null) delete customer[k];
    if (customer.address) for (const [k, v] of Object.entries(customer.address)) if (v === null) delete customer.address[k];
    return { status: 200, body: { customer } };
  }

  apiRequests(filter: (r: RequestLog) => boolean = () => true): RequestLog[] {
    return this.requests.filter((r) => r.path.startsWith('/v2/') && filter(r));
  }

  private send(
    res: http.ServerResponse,
    path: string,
    method: string,
    status: number,
    body: SquareObject,
    headers: Record<string, string> = {},
  ) {
    const problem = status === 200 ? squareContract().check(method, path, status, body) : checkErrorAnswer(path, status, body);
    if (problem) this.violations.push(problem);
    res
      .writeHead(status, { 'content-type': 'application/json', date: new Date(this.now()).toUTCString(), ...headers })
      .end(JSON.stringify(body));
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const log: RequestLog = { method, path: url.pathname, query: url.search, status: 0 };
    this.requests.push(log);
    res.on('finish', () => (log.status = res.statusCode));
    if (url.pathname === '/oauth2/authorize' && method === 'GET') return this.authorize(url, res);
    let body: SquareObject = {};
    if (method === 'POST' || method === 'PUT') {
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        return this.send(
          res,
          url.pathname,
          method,
          400,
          squareError('INVALID_REQUEST_ERROR', 'INVALID_CONTENT_TYPE', 'the body is not JSON'),
        );
      }
      log.body = body;
    }
    if (url.pathname === '/oauth2/token' && method === 'POST') return this.token(res, body);
    if (url.pathname === '/oauth2/revoke' && method === 'POST') return this.revoke(req, res, body);
    if (url.pathname.startsWith('/v2/')) return this.api(req, res, url, method, body, log);
    res.writeHead(404).end();
  }

  private authorize(url: URL, res: http.ServerResponse): void {
    const redirect = url.searchParams.get('redirect_uri') ?? '';
    if (url.searchParams.get('client_id') !== this.clientId || !redirect) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('This application is not registered');
      return;
    }
    const back = new URL(redirect);
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    if (!this.consent.grant) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'user_denied');
    } else {
      const merchant = this.consent.merchant ?? [...this.merchants.values()][0];
      const code = `sq0cgp-${randomBytes(16).toString('hex')}`;
      this.codes.set(code, {
        redirectUri: redirect,
        challenge: url.searchParams.get('code_challenge') ?? '',
        consent: { merchant, revoked: false, scopes: (url.searchParams.get('scope') ?? '').split(' ').filter(Boolean) },
      });
      this.issued.add(code);
      back.searchParams.set('code', code);
      back.searchParams.set('response_type', 'code');
    }
    res.writeHead(302, { location: back.toString() }).end();
  }

  private token(res: http.ServerResponse, body: SquareObject): void {
    const type = String(body.grant_type ?? '');
    const answer = (status: number, answerBody: SquareObject) => {
      this.grants.push({ type, status });
      this.send(res, '/oauth2/token', 'POST', status, answerBody);
    };
    const refused = (detail: string) => answer(401, squareError('AUTHENTICATION_ERROR', 'UNAUTHORIZED', detail));
    if (body.client_id !== this.clientId) return refused('Unknown client_id');
    let consent: Consent;
    let pkce: boolean;
    if (type === 'authorization_code') {
      const grant = this.codes.get(String(body.code ?? ''));
      this.codes.delete(String(body.code ?? ''));
      if (!grant || (body.redirect_uri !== undefined && body.redirect_uri !== grant.redirectUri))
        return refused('Invalid authorization code');
      pkce = grant.challenge !== '';
      // The code flow is authenticated by the secret; the PKCE flow by the verifier of the challenge.
      if (
        pkce &&
        createHash('sha256')
          .update(String(body.code_verifier ?? ''))
          .digest('base64url') !== grant.challenge
      )
        return refused('Invalid code_verifier');
      if (!pkce && body.client_secret !== this.clientSecret) return refused('Invalid client_secret');
      consent = grant.consent;
    } else if (type === 'refresh_token') {
      const old = String(body.refresh_token ?? '');
      const found = this.refreshTokens.get(old);
      if (!found || found.consent.revoked) return refused('Invalid refresh token');
      if (!found.pkce && body.client_secret !== this.clientSecret) return refused('Invalid client_secret');
      // Only the PKCE flow's refresh tokens are single-use.
      if (found.pkce) this.refreshTokens.delete(old);
      consent = found.consent;
      pkce = found.pkce;
    } else return answer(400, squareError('INVALID_REQUEST_ERROR', 'INVALID_VALUE', `grant_type ${type} is not supported`, 'grant_type'));
    const access = `EAAA${randomBytes(30).toString('base64url')}`;
    const expires = this.now() + this.tokenTtlMs;
    this.accessTokens.set(access, { consent, expires });
    // The code flow answers the same refresh token to every refresh.
    let refresh = type === 'refresh_token' && !pkce ? String(body.refresh_token) : `EQAA${randomBytes(30).toString('base64url')}`;
    if (!this.refreshTokens.has(refresh)) this.refreshTokens.set(refresh, { consent, pkce });
    else refresh = String(body.refresh_token);
    this.issued.add(access).add(refresh);
    answer(200, {
      access_token: access,
      token_type: 'bearer',
      expires_at: new Date(expires).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      merchant_id: consent.merchant.id,
      refresh_token: refresh,
      short_lived: false,
      ...(pkce ? { refresh_token_expires_at: new Date(this.now() + 90 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z') } : {}),
    });
  }

  private revoke(req: http.IncomingMessage, res: http.ServerResponse, body: SquareObject): void {
    const authorization = String(req.headers.authorization ?? '');
    const record = (status: number) => this.revocations.push({ authorization: authorization.split(' ')[0], body, status });
    if (authorization !== `Client ${this.clientSecret}` || body.client_id !== this.clientId) {
      record(401);
      return this.send(
        res,
        '/oauth2/revoke',
        'POST',
        401,
        squareError('AUTHENTICATION_ERROR', 'UNAUTHORIZED', 'Invalid client credentials'),
      );
    }
    // An access token names the merchant only while it lasts: an expired one is no token Square knows.
    const token = this.accessTokens.get(String(body.access_token ?? ''));
    const merchantId = body.merchant_id ?? (token && token.expires > this.now() ? token.consent.merchant.id : undefined);
    if (!merchantId) {
      record(404);
      return this.send(res, '/oauth2/revoke', 'POST', 404, squareError('INVALID_REQUEST_ERROR', 'NOT_FOUND', 'No such token'));
    }
    // Square ends every token it gave the application for the merchant.
    for (const { consent } of [...this.refreshTokens.values(), ...this.accessTokens.values()])
      if (consent.merchant.id === merchantId) consent.revoked = true;
    record(200);
    this.send(res, '/oauth2/revoke', 'POST', 200, { success: true });
  }

  private async api(req: http.IncomingMessage, res: http.ServerResponse, url: URL, method: string, body: SquareObject, log: RequestLog) {
    const path = url.pathname;
    const version = req.headers['square-version'];
    if (version !== contractFacts().version)
      this.violations.push(`${method} ${path} sent Square-Version ${String(version)}, not the contract's ${contractFacts().version}`);
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const access = token ? this.accessTokens.get(token) : undefined;
    if (!access || access.consent.revoked)
      return this.send(
        res,
        path,
        method,
        401,
        squareError('AUTHENTICATION_ERROR', access ? 'ACCESS_TOKEN_REVOKED' : 'UNAUTHORIZED', 'This request could not be authorized.'),
      );
    if (access.expires <= this.now())
      return this.send(
        res,
        path,
        method,
        401,
        squareError('AUTHENTICATION_ERROR', 'ACCESS_TOKEN_EXPIRED', 'The access token has expired.'),
      );
    const merchant = access.consent.merchant;
    log.merchantId = merchant.id;
    const fault = this.faultFor(method, path, false);
    if (fault) {
      if (fault.status === 429)
        return this.send(res, path, method, 429, squareError('RATE_LIMIT_ERROR', 'RATE_LIMITED', 'Too many requests'), {
          'retry-after': String(fault.retryAfterSeconds ?? 1),
        });
      if (fault.status === 401)
        return this.send(
          res,
          path,
          method,
          401,
          squareError('AUTHENTICATION_ERROR', 'UNAUTHORIZED', 'This request could not be authorized.'),
        );
      return this.send(
        res,
        path,
        method,
        fault.status,
        squareError('API_ERROR', fault.status === 500 ? 'INTERNAL_SERVER_ERROR' : 'SERVICE_UNAVAILABLE', 'Try again later'),
      );
    }
    const write = method === 'PUT' || (method === 'POST' && path === '/v2/customers');
    if (write) {
      const problem = this.checkWriteRequest(method, path, body);
      if (problem) {
        this.violations.push(problem);
        return this.send(res, path, method, 400, squareError('INVALID_REQUEST_ERROR', 'BAD_REQUEST', problem));
      }
      if (!access.consent.scopes.includes('CUSTOMERS_WRITE'))
        return this.send(
          res,
          path,
          method,
          403,
          squareError(
            'AUTHENTICATION_ERROR',
            'INSUFFICIENT_SCOPES',
            'The merchant has not given your application sufficient permissions to do that. The developer should request the CUSTOMERS_WRITE permission.',
          ),
        );
    }
    const answer = write ? this.writeCustomer(merchant, method, path, body) : this.route(merchant, method, path, url.searchParams, body);
    if (write && answer.status === 200) {
      const lost = this.faultFor(method, path, true);
      if (lost) return this.send(res, path, method, lost.status, squareError('API_ERROR', 'INTERNAL_SERVER_ERROR', 'Try again later'));
    }
    // A copy: a tampered answer must not change the merchant's own data.
    answer.body = structuredClone(answer.body);
    this.tamper?.(path, answer.body);
    this.send(res, path, method, answer.status, answer.body);
    this.afterAnswer?.(log);
  }

  private route(
    merchant: SquareMerchant,
    method: string,
    path: string,
    query: URLSearchParams,
    body: SquareObject,
  ): { status: number; body: SquareObject } {
    const invalid = (detail: string, field?: string) => ({
      status: 400,
      body: squareError('INVALID_REQUEST_ERROR', 'BAD_REQUEST', detail, field),
    });
    try {
      if (method === 'GET' && path === '/v2/locations') return { status: 200, body: { locations: merchant.locations } };
      const merchantPath = /^\/v2\/merchants\/([^/]+)$/.exec(path);
      if (method === 'GET' && merchantPath) {
        if (merchantPath[1] !== 'me' && merchantPath[1] !== merchant.id)
          return { status: 403, body: squareError('AUTHENTICATION_ERROR', 'FORBIDDEN', 'Not this merchant') };
        return { status: 200, body: { merchant: merchant.merchant } };
      }
      if (method === 'POST' && path === '/v2/orders/search') return { status: 200, body: this.searchOrders(merchant, body) };
      if (method === 'GET' && path === '/v2/payments') return { status: 200, body: this.listMoney(merchant, 'payments', query) };
      if (method === 'GET' && path === '/v2/refunds') return { status: 200, body: this.listMoney(merchant, 'refunds', query) };
      if (method === 'POST' && path === '/v2/customers/search') return { status: 200, body: this.searchCustomers(merchant, body) };
      const customerPath = /^\/v2\/customers\/([^/]+)$/.exec(path);
      if (method === 'GET' && customerPath) {
        const customer = merchant.collection('customers').get(customerPath[1]);
        return customer
          ? { status: 200, body: { customer } }
          : { status: 404, body: squareError('INVALID_REQUEST_ERROR', 'NOT_FOUND', `Customer with ID \`${customerPath[1]}\` not found.`) };
      }
      if (method === 'POST' && path === '/v2/catalog/search') return { status: 200, body: this.searchCatalog(merchant, body) };
      return { status: 404, body: squareError('INVALID_REQUEST_ERROR', 'NOT_FOUND', `the fake does not serve ${method} ${path}`) };
    } catch (err) {
      if (err instanceof Invalid) return invalid(err.message, err.field);
      throw err;
    }
  }

  /**
   * One page of `objects` in the order of `key` (ascending unless `descending`), continuing `cursor`. A cursor is the
   * position after the last object answered (Square's are opaque); it continues only the query that made it.
   */
  private page(
    objects: SquareObject[],
    key: (o: SquareObject) => string,
    descending: boolean,
    request: unknown,
    cursor: unknown,
    limit: number,
    collection: string,
  ) {
    const fingerprint = JSON.stringify(request);
    const sorted = [...objects].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    if (descending) sorted.reverse();
    let rest = sorted;
    if (cursor !== undefined && cursor !== null && cursor !== '') {
      const state = this.cursors.get(String(cursor));
      if (!state || state.query !== fingerprint) throw new Invalid('The cursor does not continue this query', 'cursor');
      rest = this.positionalCursors
        ? sorted.slice(state.offset)
        : sorted.filter((o) => (descending ? key(o) < state.after : key(o) > state.after));
    }
    const offset = sorted.length - rest.length;
    const size = Math.min(this.maxPageSize, limit > 0 ? limit : this.maxPageSize);
    const page = rest.slice(0, size);
    const answer: SquareObject = { [collection]: page };
    if (rest.length > size) {
      const next = randomBytes(12).toString('base64url');
      this.cursors.set(next, { after: key(page[page.length - 1]), offset: offset + page.length, query: fingerprint });
      answer.cursor = next;
    }
    return answer;
  }

  private searchOrders(merchant: SquareMerchant, body: SquareObject): SquareObject {
    const { cursor, ...request } = body;
    const locationIds: string[] = Array.isArray(body.location_ids) ? body.location_ids : [];
    if (locationIds.length === 0 || locationIds.length > 10)
      throw new Invalid('Between 1 and 10 location_ids are required', 'location_ids');
    const filter = body.query?.filter ?? {};
    const sort = body.query?.sort ?? { sort_field: 'CREATED_AT' };
    const timeFilters = Object.keys(filter.date_time_filter ?? {});
    if (timeFilters.length > 0 && timeFilters[0].toUpperCase() !== sort.sort_field)
      throw new Invalid('The sort field must match the date_time_filter field', 'query.sort.sort_field');
    const states: string[] | undefined = filter.state_filter?.states;
    const field = String(sort.sort_field).toLowerCase();
    const range = filter.date_time_filter?.[field];
    let orders = [...merchant.collection('orders').values()].filter((o) => locationIds.includes(o.location_id));
    if (states) orders = orders.filter((o) => states.includes(o.state));
    if (range) orders = orders.filter((o) => inRange(o[field], range.start_at, range.end_at));
    const answer = this.page(
      orders,
      (o) => `${o[field] ?? ''}|${o.id}`,
      sort.sort_order !== 'ASC',
      request,
      cursor,
      Number(body.limit ?? 500),
      'orders',
    );
    return answer;
  }

  /** `GET /v2/payments` and `GET /v2/refunds`: a year back by `created_at` unless asked; payments of the main location unless named. */
  private listMoney(merchant: SquareMerchant, collection: 'payments' | 'refunds', query: URLSearchParams): SquareObject {
    const params = Object.fromEntries([...query.entries()].filter(([name]) => name !== 'cursor'));
    const now = this.now();
    const begin = params.begin_time ?? new Date(now - 365 * 86_400_000).toISOString();
    const end = params.end_time ?? new Date(now + 1).toISOString();
    const location = params.location_id ?? (collection === 'payments' ? merchant.merchant.main_location_id : undefined);
    let objects = [...merchant.collection(collection).values()].filter((o) => inRange(o.created_at, begin, end));
    if (location) objects = objects.filter((o) => o.location_id === location);
    if (params.updated_at_begin_time || params.updated_at_end_time)
      objects = objects.filter((o) => inRange(o.updated_at, params.updated_at_begin_time, params.updated_at_end_time));
    const field = (params.sort_field ?? 'CREATED_AT').toLowerCase();
    if (field !== 'created_at' && field !== 'updated_at')
      throw new Invalid(`sort_field ${params.sort_field} is not supported`, 'sort_field');
    return this.page(
      objects,
      (o) => `${o[field]}|${o.id}`,
      params.sort_order !== 'ASC',
      params,
      query.get('cursor') ?? undefined,
      Number(params.limit ?? 100),
      collection,
    );
  }

  private searchCustomers(merchant: SquareMerchant, body: SquareObject): SquareObject {
    const { cursor, ...request } = body;
    const filter = body.query?.filter ?? {};
    let customers = [...merchant.collection('customers').values()];
    for (const field of ['created_at', 'updated_at'])
      if (filter[field]) customers = customers.filter((c) => inRange(c[field], filter[field].start_at, filter[field].end_at));
    const byCreation = body.query?.sort?.field === 'CREATED_AT';
    const key = byCreation
      ? (c: SquareObject) => `${c.created_at}|${c.id}`
      : (c: SquareObject) => `${c.given_name ?? ''} ${c.family_name ?? ''}|${c.id}`;
    const limit = Number(body.limit ?? 100);
    if (limit < 1 || limit > 100) throw new Invalid('limit must be between 1 and 100', 'limit');
    return this.page(customers, key, body.query?.sort?.order === 'DESC', request, cursor, limit, 'customers');
  }

  /** `begin_time` is exclusive; deleted objects only when asked for. Answers the catalog's latest change as `latest_time`. */
  private searchCatalog(merchant: SquareMerchant, body: SquareObject): SquareObject {
    const { cursor, ...request } = body;
    const types: string[] = Array.isArray(body.object_types) ? body.object_types : ['ITEM', 'CATEGORY'];
    let objects = [...merchant.collection('catalog').values()].filter((o) => types.includes(o.type));
    if (body.include_deleted_objects !== true) objects = objects.filter((o) => !o.is_deleted);
    if (body.begin_time) objects = objects.filter((o) => Date.parse(o.updated_at) > Date.parse(body.begin_time));
    const answer = this.page(objects, (o) => `${o.updated_at}|${o.id}`, false, request, cursor, Number(body.limit ?? 100), 'objects');
    const latest = [...merchant.collection('catalog').values()]
      .map((o) => o.updated_at)
      .sort()
      .at(-1);
    if (latest) answer.latest_time = latest;
    return answer;
  }
}

/** A request Square refuses with 400 INVALID_REQUEST_ERROR. */
class Invalid extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Whether an RFC 3339 time is within [start, end) (either bound absent: open). */
function inRange(value: unknown, start: unknown, end: unknown): boolean {
  if (typeof value !== 'string') return false;
  const at = Date.parse(value);
  if (typeof start === 'string' && at < Date.parse(start)) return false;
  if (typeof end === 'string' && at >= Date.parse(end)) return false;
  return true;
}

export async function startSquareFake(): Promise<SquareFake> {
  return new SquareFake().start();
}
