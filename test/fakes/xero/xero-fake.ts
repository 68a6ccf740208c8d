import http from 'node:http';
import { checkTokenAnswer, FakeVendor } from '../fake-vendor.js';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { openApiVendorContract, type VendorContract } from '../../contracts/openapi-vendor.js';
import { msDate, msOf, XeroTenant, XeroValidation, type XeroRecord } from './xero-tenant.js';
import { balanceSheet, profitAndLoss } from './xero-reports.js';

/**
 * A stateful stand-in for Xero: its identity service (authorize, token, revocation), `/connections`, and the
 * Accounting API of several organisations, each a XeroTenant. It keeps Xero's rules that a connector must live
 * with: tokens that expire and rotate, PKCE, the tenant header, paging, `If-Modified-Since`, deleted records
 * returned only to a changed-since read, limits per tenant (5 in flight, 60 a window, 5,000 a day) with the
 * remaining-limit headers and 429 + `Retry-After`, and idempotency keys on writes.
 *
 * Every JSON answer is checked against Xero's own OpenAPI documents (test/contracts/xero/, MIT) as it is sent;
 * what does not conform is kept in `violations`, which each test expects to be empty.
 */

let accountingContract: VendorContract | undefined;
let identityContract: VendorContract | undefined;
const accounting = () => (accountingContract ??= openApiVendorContract('Xero Accounting API', 'xero/xero-accounting.yaml'));
const identity = () => (identityContract ??= openApiVendorContract('Xero Identity API', 'xero/xero-identity.yaml'));

export interface XeroLimits {
  concurrent: number;
  perWindow: number;
  perDay: number;
  windowMs: number;
}

interface Consent {
  tenants: XeroTenant[];
  revoked: boolean;
}

interface AccessToken {
  consent: Consent;
  expires: number;
}

/** A fault the next matching API requests answer instead of their data. */
export interface Fault {
  status: 401 | 429 | 500 | 503;
  count: number;
  retryAfterSeconds?: number;
  path?: RegExp;
  /** Only requests with this method (e.g. `PUT`, a write). */
  method?: string;
  /** The request is carried out first and its answer lost (a write made, then a 5xx): what an idempotency key is for. */
  afterProcessing?: boolean;
}

export interface RequestLog {
  method: string;
  path: string;
  /** The query string, as sent. */
  query: string;
  /** Which of Xero's limits a 429 was for (`X-Rate-Limit-Problem`). */
  problem?: string;
  tenantId?: string;
  ifModifiedSince?: string;
  page?: number;
  status: number;
  /** When it arrived (ms since the epoch). */
  at: number;
  /** The `X-MinLimit-Remaining` it was answered with. */
  minLimitRemaining?: number;
}

export class XeroFake extends FakeVendor {
  readonly clientId = `fake-client-${randomBytes(4).toString('hex')}`;
  readonly clientSecret = randomBytes(16).toString('base64url');
  readonly tenants = new Map<string, XeroTenant>();
  readonly requests: RequestLog[] = [];
  /** Grants the token endpoint answered, by type. */
  readonly grants: { type: string; status: number }[] = [];
  /** What the next consent gives: granted (to these tenants; all when unset) or refused. */
  consent: { grant: boolean; tenants?: XeroTenant[] } = { grant: true };
  limits: XeroLimits = { concurrent: 5, perWindow: 60, perDay: 5000, windowMs: 60_000 };
  tokenTtlSeconds = 1800;
  /** How long the token endpoint takes (a slow one makes concurrent refreshes overlap). */
  tokenDelayMs = 0;
  /** How long each API answer takes (so requests in flight overlap and are counted). */
  latencyMs = 2;
  /** The largest number of requests one tenant had in flight, and in one window. */
  readonly peaks = new Map<string, { inFlight: number; inWindow: number }>();
  /** Time the fake spent answering API requests (its own work, the contract check included), in ms. */
  busyMs = 0;
  /** Every secret the fake handed out (codes, access and refresh tokens), for tests that look for them where they must not be. */
  readonly issued = new Set<string>();
  /** Changes a JSON answer before it is sent (a test of the contract check itself). */
  tamper?: (path: string, body: XeroRecord) => void;

  private readonly codes = new Map<string, { redirectUri: string; challenge: string; consent: Consent }>();
  private readonly accessTokens = new Map<string, AccessToken>();
  private readonly refreshTokens = new Map<string, Consent>();
  private readonly faults: Fault[] = [];
  private readonly usage = new Map<string, { inFlight: number; window: number[]; day: number }>();

  /** The environment that points Ledgerport's Xero connector here. */
  env(): Record<string, string> {
    return {
      XERO_CLIENT_ID: this.clientId,
      XERO_CLIENT_SECRET: this.clientSecret,
      XERO_AUTHORIZE_URL: `${this.url}/identity/connect/authorize`,
      XERO_TOKEN_URL: `${this.url}/identity/connect/token`,
      XERO_REVOKE_URL: `${this.url}/identity/connect/revocation`,
      XERO_API_URL: `${this.url}/api.xro/2.0`,
      XERO_CONNECTIONS_URL: `${this.url}/connections`,
      XERO_LIMIT_WINDOW_MS: String(this.limits.windowMs),
    };
  }

  addTenant(name: string): XeroTenant {
    const tenant = new XeroTenant(randomUUID(), name);
    this.tenants.set(tenant.tenantId, tenant);
    return tenant;
  }

  inject(fault: Fault): void {
    this.faults.push({ ...fault });
  }

  /** Every access token stops working now (as if they had all reached their 30 minutes). */
  expireTokens(): void {
    for (const token of this.accessTokens.values()) token.expires = 0;
  }

  /** The user disconnects the app in Xero: every token of every consent stops working, refresh tokens included. */
  revokeConsents(): void {
    for (const consent of this.refreshTokens.values()) consent.revoked = true;
  }

  /**
   * Another app of the organisation spends its calls: `left` of this window's remain for the tenant, which Xero's
   * `X-MinLimit-Remaining` says on the next answers though the connector never made those calls.
   */
  leaveInWindow(tenantId: string, left: number): void {
    const usage = this.usage.get(tenantId) ?? { inFlight: 0, window: [], day: 0 };
    this.usage.set(tenantId, usage);
    const now = Date.now();
    usage.window = usage.window.filter((t) => t > now - this.limits.windowMs);
    while (usage.window.length < this.limits.perWindow - left) usage.window.push(now);
  }

  apiRequests(filter: (r: RequestLog) => boolean = () => true): RequestLog[] {
    return this.requests.filter((r) => r.path.startsWith('/api.xro/2.0/') && filter(r));
  }

  private send(
    res: http.ServerResponse,
    status: number,
    body: unknown,
    contract: (status: number, body: XeroRecord) => string | undefined,
    headers: Record<string, string> = {},
  ) {
    const problem = contract(status, body as XeroRecord);
    if (problem) this.violations.push(problem);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const log: RequestLog = { method, path: url.pathname, query: url.search, status: 0, at: Date.now() };
    this.requests.push(log);
    res.on('finish', () => (log.status = res.statusCode));
    if (url.pathname === '/identity/connect/authorize') return this.authorize(url, res);
    if (url.pathname === '/identity/connect/token' && method === 'POST') {
      if (this.tokenDelayMs) await new Promise((resolve) => setTimeout(resolve, this.tokenDelayMs));
      return this.token(req, res, new URLSearchParams(body));
    }
    if (url.pathname === '/identity/connect/revocation' && method === 'POST') {
      const consent = this.refreshTokens.get(new URLSearchParams(body).get('token') ?? '');
      if (consent) consent.revoked = true;
      res.writeHead(200).end();
      return;
    }
    const consent = this.bearer(req);
    if (url.pathname === '/connections') {
      if (!consent) return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      const answer = consent.tenants.map((t) => ({
        id: randomUUID(),
        authEventId: randomUUID(),
        tenantId: t.tenantId,
        tenantType: 'ORGANISATION',
        tenantName: t.name,
        createdDateUtc: '2024-05-01T10:00:00.0000000Z',
        updatedDateUtc: '2024-05-01T10:00:00.0000000Z',
      }));
      return this.send(res, 200, answer, (status, b) => identity().check(method, '/Connections', status, b));
    }
    if (url.pathname.startsWith('/api.xro/2.0/')) return this.api(req, res, url, body, consent, log);
    res.writeHead(404).end();
  }

  private authorize(url: URL, res: http.ServerResponse): void {
    const redirect = url.searchParams.get('redirect_uri') ?? '';
    if (url.searchParams.get('client_id') !== this.clientId || !redirect || url.searchParams.get('response_type') !== 'code') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('unauthorized_client');
      return;
    }
    const back = new URL(redirect);
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    if (!this.consent.grant) back.searchParams.set('error', 'access_denied');
    else {
      const code = randomBytes(16).toString('hex');
      this.codes.set(code, {
        redirectUri: redirect,
        challenge: url.searchParams.get('code_challenge') ?? '',
        consent: { tenants: this.consent.tenants ?? [...this.tenants.values()], revoked: false },
      });
      back.searchParams.set('code', code);
      this.issued.add(code);
      back.searchParams.set('scope', url.searchParams.get('scope') ?? '');
    }
    res.writeHead(302, { location: back.toString() }).end();
  }

  private token(req: http.IncomingMessage, res: http.ServerResponse, form: URLSearchParams): void {
    const type = form.get('grant_type') ?? '';
    const answer = (status: number, body: XeroRecord) => {
      this.grants.push({ type, status });
      this.send(res, status, body, checkTokenAnswer);
    };
    const expected = `Basic ${Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return answer(400, { error: 'invalid_client' });
    let consent: Consent | undefined;
    if (type === 'authorization_code') {
      const grant = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (
        !grant ||
        grant.redirectUri !== form.get('redirect_uri') ||
        (grant.challenge && createHash('sha256').update(verifier).digest('base64url') !== grant.challenge)
      )
        return answer(400, { error: 'invalid_grant' });
      consent = grant.consent;
    } else if (type === 'refresh_token') {
      const old = form.get('refresh_token') ?? '';
      consent = this.refreshTokens.get(old);
      // Xero rotates: a refresh token is used once.
      this.refreshTokens.delete(old);
      if (!consent || consent.revoked) return answer(400, { error: 'invalid_grant' });
    } else return answer(400, { error: 'unsupported_grant_type' });
    const access = randomBytes(24).toString('base64url');
    const refresh = randomBytes(24).toString('base64url');
    this.issued.add(access).add(refresh);
    this.accessTokens.set(access, { consent, expires: Date.now() + this.tokenTtlSeconds * 1000 });
    this.refreshTokens.set(refresh, consent);
    answer(200, {
      id_token: 'eyJhbGciOiJub25lIn0.e30.',
      access_token: access,
      expires_in: this.tokenTtlSeconds,
      token_type: 'Bearer',
      refresh_token: refresh,
      scope: 'openid offline_access accounting.transactions',
    });
  }

  /** The consent behind a live Bearer token, or undefined (missing, unknown, expired or revoked). */
  private bearer(req: http.IncomingMessage): Consent | undefined {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const found = token ? this.accessTokens.get(token) : undefined;
    if (!found || found.expires <= Date.now() || found.consent.revoked) return undefined;
    return found.consent;
  }

  private async api(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    body: string,
    consent: Consent | undefined,
    log: RequestLog,
  ) {
    const path = url.pathname.slice('/api.xro/2.0'.length);
    const method = req.method ?? 'GET';
    const check = (status: number, b: XeroRecord) => accounting().check(method, path, status, b);
    const unauthorised = { Type: null, Title: 'Unauthorized', Status: 401, Detail: 'AuthenticationUnsuccessful', Instance: randomUUID() };
    if (!consent) return this.send(res, 401, unauthorised, () => undefined, { 'www-authenticate': 'Bearer error="invalid_token"' });
    const tenantId = String(req.headers['xero-tenant-id'] ?? '');
    log.tenantId = tenantId;
    log.ifModifiedSince = req.headers['if-modified-since'] as string | undefined;
    log.page = url.searchParams.has('page') ? Number(url.searchParams.get('page')) : undefined;
    const tenant = consent.tenants.find((t) => t.tenantId === tenantId);
    if (!tenant)
      return this.send(res, 403, { Type: null, Title: 'Forbidden', Status: 403, Detail: 'AuthorizationUnsuccessful' }, () => undefined);

    // Xero's limits per tenant, counted as Xero counts them: every request, whether or not it is answered.
    const usage = this.usage.get(tenantId) ?? { inFlight: 0, window: [], day: 0 };
    this.usage.set(tenantId, usage);
    const now = Date.now();
    usage.window = usage.window.filter((t) => t > now - this.limits.windowMs);
    const limited = (problem: string, retryAfter: number) => {
      log.problem = problem;
      this.send(res, 429, { Title: 'Too Many Requests', Status: 429, Detail: `Rate limit exceeded: ${problem}` }, () => undefined, {
        'retry-after': String(retryAfter),
        'x-rate-limit-problem': problem,
      });
    };
    if (usage.inFlight >= this.limits.concurrent) return limited('concurrent', 1);
    if (usage.window.length >= this.limits.perWindow)
      return limited('minute', Math.max(1, Math.ceil((usage.window[0] + this.limits.windowMs - now) / 1000)));
    if (usage.day >= this.limits.perDay) return limited('day', 86_400);
    usage.inFlight++;
    usage.window.push(now);
    usage.day++;
    const peak = this.peaks.get(tenantId) ?? { inFlight: 0, inWindow: 0 };
    peak.inFlight = Math.max(peak.inFlight, usage.inFlight);
    peak.inWindow = Math.max(peak.inWindow, usage.window.length);
    this.peaks.set(tenantId, peak);
    try {
      if (this.latencyMs) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
      log.minLimitRemaining = this.limits.perWindow - usage.window.length;
      const limitHeaders = {
        'x-daylimit-remaining': String(this.limits.perDay - usage.day),
        'x-minlimit-remaining': String(this.limits.perWindow - usage.window.length),
        'x-appminlimit-remaining': '9999',
      };
      const fault = this.faults.find((f) => f.count > 0 && (!f.path || f.path.test(path)) && (!f.method || f.method === method));
      if (fault?.afterProcessing) {
        fault.count--;
        this.route(tenant, method, path, url.searchParams, req.headers, body);
        return this.send(res, fault.status, { Title: 'Service Unavailable', Status: fault.status }, () => undefined, limitHeaders);
      }
      if (fault) {
        fault.count--;
        if (fault.status === 429) return limited('minute', fault.retryAfterSeconds ?? 1);
        if (fault.status === 401) return this.send(res, 401, unauthorised, () => undefined);
        return this.send(res, fault.status, { Title: 'Service Unavailable', Status: fault.status }, () => undefined, limitHeaders);
      }
      const began = performance.now();
      const answer = this.route(tenant, method, path, url.searchParams, req.headers, body);
      // Xero's clock is the tenant's: every change it has made is at or before the answer's time.
      const result =
        answer.status === 200
          ? { Id: randomUUID(), Status: 'OK', ProviderName: 'Ledgerport tests', DateTimeUTC: msDate(tenant.now()), ...answer.body }
          : answer.body;
      this.tamper?.(path, result);
      this.send(res, answer.status, result, check, limitHeaders);
      this.busyMs += performance.now() - began;
    } finally {
      usage.inFlight--;
    }
  }

  private route(
    tenant: XeroTenant,
    method: string,
    path: string,
    query: URLSearchParams,
    headers: http.IncomingHttpHeaders,
    body: string,
  ): { status: number; body: XeroRecord } {
    const [, resource, id] = /^\/(\w+)(?:\/([^/]+))?$/.exec(path) ?? [];
    const collections: Record<string, string> = {
      Invoices: 'InvoiceID',
      Contacts: 'ContactID',
      Accounts: 'AccountID',
      Payments: 'PaymentID',
      CreditNotes: 'CreditNoteID',
      Items: 'ItemID',
      TaxRates: 'TaxType',
      TrackingCategories: 'TrackingCategoryID',
      BankTransactions: 'BankTransactionID',
    };
    if (method === 'GET' && resource === 'Organisation') return { status: 200, body: { Organisations: [tenant.organisation] } };
    if (method === 'GET' && resource === 'Journals') return { status: 200, body: { Journals: this.journals(tenant, query, headers) } };
    if (method === 'GET' && resource === 'Reports') return this.report(tenant, id, query);
    if (!resource || !collections[resource]) return { status: 404, body: { Title: 'Not Found', Status: 404 } };
    if (method === 'GET') return { status: 200, body: this.list(tenant, resource, id, query, headers) };
    // Writes: a repeated Idempotency-Key answers what the first write answered, and changes nothing.
    const key = headers['idempotency-key'] as string | undefined;
    const remembered = key ? tenant.idempotent.get(key) : undefined;
    if (remembered) return remembered as { status: number; body: XeroRecord };
    const answer = this.write(tenant, method, resource, id, JSON.parse(body || '{}') as XeroRecord);
    if (key) tenant.idempotent.set(key, answer);
    return answer;
  }

  /** `/Journals?offset=n`: up to 100 journals numbered above n (and created since If-Modified-Since), in number order. */
  private journals(tenant: XeroTenant, query: URLSearchParams, headers: http.IncomingHttpHeaders): XeroRecord[] {
    const offset = Number(query.get('offset') ?? 0);
    const since = headers['if-modified-since'] ? Date.parse(`${String(headers['if-modified-since'])}Z`) : undefined;
    return tenant.ledger.journals
      .filter((j) => j.JournalNumber > offset && (since === undefined || msOf(j.CreatedDateUTC) > since))
      .slice(0, 100);
  }

  private report(tenant: XeroTenant, name: string | undefined, query: URLSearchParams): { status: number; body: XeroRecord } {
    const accounts = [...tenant.collection('Accounts').values()];
    const periods = Math.min(11, Number(query.get('periods') ?? 0));
    if (query.has('periods') && query.get('timeframe') !== 'MONTH') throw new Error('the fake reports only monthly periods');
    const today = new Date(tenant.now()).toISOString().slice(0, 10);
    if (name === 'BalanceSheet') {
      return { status: 200, body: balanceSheet(tenant.ledger, accounts, tenant.name, query.get('date') ?? today, periods, tenant.now()) };
    }
    if (name === 'ProfitAndLoss') {
      return {
        status: 200,
        body: profitAndLoss(tenant.ledger, accounts, tenant.name, query.get('toDate') ?? today, periods, tenant.now()),
      };
    }
    return { status: 404, body: { Title: 'Not Found', Status: 404 } };
  }

  private list(
    tenant: XeroTenant,
    resource: string,
    id: string | undefined,
    query: URLSearchParams,
    headers: http.IncomingHttpHeaders,
  ): XeroRecord {
    let records = [...tenant.collection(resource).values()];
    if (id) {
      const found = tenant.collection(resource).get(id);
      return { [resource]: found ? [found] : [] };
    }
    const since = headers['if-modified-since'] ? Date.parse(`${String(headers['if-modified-since'])}Z`) : undefined;
    // Deleted records are answered only to a read of what changed since a time (as Xero does).
    // Xero ignores the header where its records keep no time of change (tax rates): every one is answered.
    if (since !== undefined)
      records = records.filter((r) => (r.UpdatedDateUTC === undefined ? r.Status !== 'DELETED' : msOf(r.UpdatedDateUTC) > since));
    else records = records.filter((r) => r.Status !== 'DELETED');
    if (query.get('includeArchived') !== 'true') records = records.filter((r) => r.ContactStatus !== 'ARCHIVED');
    const where = query.get('where');
    if (where) {
      const clause = /^(\w+)=="([^"]*)"$/.exec(where);
      if (!clause) throw new Error(`the fake understands only Field=="value" filters, not ${where}`);
      records = records.filter((r) => String(r[clause[1]]) === clause[2]);
    }
    const order = /^(\w+) ASC$/.exec(query.get('order') ?? '');
    if (order) {
      const field = order[1];
      const key = (r: XeroRecord) => (field.endsWith('UTC') ? String(msOf(r[field])).padStart(16, '0') : String(r[field]));
      // Each record's key once, not once per comparison: the fake must not be what a 20,000-record read waits on.
      records = records
        .map((r) => ({ k: key(r), r }))
        .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
        .map((e) => e.r);
    }
    if (!query.has('page')) return { [resource]: records };
    const page = Number(query.get('page'));
    const pageSize = Math.min(1000, Number(query.get('pageSize') ?? 100));
    return {
      pagination: { page, pageSize, pageCount: Math.ceil(records.length / pageSize), itemCount: records.length },
      [resource]: records.slice((page - 1) * pageSize, page * pageSize),
    };
  }

  private write(
    tenant: XeroTenant,
    method: string,
    resource: string,
    id: string | undefined,
    body: XeroRecord,
  ): { status: number; body: XeroRecord } {
    const inputs: XeroRecord[] = Array.isArray(body[resource]) ? body[resource] : [body];
    try {
      const saved = inputs.map((input) => {
        const existingId = id ?? input[`${resource.slice(0, -1)}ID`];
        const existing = existingId ? tenant.collection(resource).get(existingId) : undefined;
        if (existingId && !existing) throw new XeroValidation([`${resource.slice(0, -1)} not found`], input);
        if (existing && method === 'PUT') throw new XeroValidation(['PUT creates; use POST to update'], input);
        if (resource === 'Invoices') return tenant.createInvoice(input, existing);
        if (resource === 'Contacts') return tenant.saveContact(input, existing);
        if (resource === 'Payments' && !existing) return tenant.createPayment(input);
        throw new XeroValidation([`the fake does not write ${resource}`], input);
      });
      return { status: 200, body: { [resource]: saved } };
    } catch (err) {
      if (!(err instanceof XeroValidation)) throw err;
      return {
        status: 400,
        body: {
          ErrorNumber: 10,
          Type: 'ValidationException',
          Message: 'A validation exception occurred',
          Elements: [{ ...err.element, ValidationErrors: err.messages.map((Message) => ({ Message })) }],
        },
      };
    }
  }
}

export async function startXeroFake(): Promise<XeroFake> {
  return new XeroFake().start();
}
