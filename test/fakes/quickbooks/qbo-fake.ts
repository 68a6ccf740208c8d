import http from 'node:http';
import { checkTokenAnswer, FakeVendor } from '../fake-vendor.js';
import { randomBytes } from 'node:crypto';
import { qboValidator, type QboValidator } from '../../contracts/quickbooks/xsd-to-json-schema.js';
import { NAME_LISTS, pacific, QboRealm, QboRefusal, QUERY_NAMES, type QboEntity } from './qbo-realm.js';
import { report } from './qbo-reports.js';

/**
 * A stateful stand-in for QuickBooks Online: Intuit's OAuth2 service (authorize, token, revoke) and the v3
 * Accounting API of several companies (realms), each a QboRealm. It keeps the rules a connector must live with:
 * access tokens that expire, refresh tokens that rotate and die with a revoked consent, `realmId` in the redirect,
 * the query language with STARTPOSITION/MAXRESULTS paging and inactive names left out by default, change data
 * capture only 30 days back, SyncToken checks on updates, `requestid` idempotency, and limits per realm (10 in
 * flight, 500 a minute) answered with 429.
 *
 * Every JSON answer of the API is checked against Intuit's own XSD (test/contracts/quickbooks/, converted to JSON
 * Schema) as `IntuitResponse` as it is sent (a report, which has no envelope, as `Report`; see qbo-reports.ts), and
 * every entity the connector writes as the entity it claims to be; what does not conform is kept in `violations`,
 * which each test expects to be empty.
 */

let contract: QboValidator | undefined;
const qbo = () => (contract ??= qboValidator());

export interface QboLimits {
  concurrent: number;
  perWindow: number;
  windowMs: number;
}

interface Consent {
  realm: QboRealm;
  revoked: boolean;
}

/** A fault the next matching API requests answer instead of their data. */
export interface Fault {
  status: 401 | 429 | 500 | 503;
  count: number;
  retryAfterSeconds?: number;
  /** Matched against the path under the company, e.g. `/query`. */
  path?: RegExp;
}

export interface RequestLog {
  method: string;
  path: string;
  realmId?: string;
  /** What the request was: a query (with its text), change data capture, an entity read or a write. */
  kind?: 'query' | 'cdc' | 'read' | 'write' | 'report';
  /** A report's parameters (`start_date`, `end_date`, `summarize_column_by`, `accounting_method`). */
  report?: Record<string, string>;
  query?: string;
  changedSince?: string;
  minorVersion?: string;
  requestId?: string;
  status: number;
}

const SCOPE = 'com.intuit.quickbooks.accounting';

export class QboFake extends FakeVendor {
  readonly clientId = `fake-client-${randomBytes(4).toString('hex')}`;
  readonly clientSecret = randomBytes(16).toString('base64url');
  readonly realms = new Map<string, QboRealm>();
  readonly requests: RequestLog[] = [];
  /** Grants the token endpoint answered, by type. */
  readonly grants: { type: string; status: number }[] = [];
  /** Tokens the revocation endpoint was asked to revoke. */
  readonly revoked: string[] = [];
  /** What the next consent gives: granted (to this realm; the first when unset) or refused. */
  consent: { grant: boolean; realm?: QboRealm } = { grant: true };
  limits: QboLimits = { concurrent: 10, perWindow: 500, windowMs: 60_000 };
  tokenTtlSeconds = 3600;
  /** How long each API answer takes (so requests in flight overlap and are counted). */
  latencyMs = 2;
  /** The largest number of requests one realm had in flight, and in one window. */
  readonly peaks = new Map<string, { inFlight: number; inWindow: number }>();
  /** Changes a JSON answer before it is checked and sent (a test of the contract check itself). */
  tamper?: (path: string, body: QboEntity) => void;
  /** Runs after an entity read is answered (a user editing it in QuickBooks before the connector's write). */
  afterRead?: (realm: QboRealm, entity: string, id: string) => void;
  /** Runs before a query is answered, with its text (a user deleting records while the connector reads the pages). */
  beforeQuery?: (realm: QboRealm, query: string) => void;

  /** Every secret the fake handed out (codes, access and refresh tokens), for tests that look for them where they must not be. */
  readonly issued = new Set<string>();
  private readonly codes = new Map<string, { redirectUri: string; consent: Consent }>();
  private readonly accessTokens = new Map<string, { consent: Consent; expires: number }>();
  private readonly refreshTokens = new Map<string, Consent>();
  private readonly faults: Fault[] = [];
  private readonly usage = new Map<string, { inFlight: number; window: number[] }>();

  /** The environment that points Ledgerport's QuickBooks connector here. */
  env(): Record<string, string> {
    return {
      QBO_CLIENT_ID: this.clientId,
      QBO_CLIENT_SECRET: this.clientSecret,
      QBO_AUTHORIZE_URL: `${this.url}/connect/oauth2`,
      QBO_TOKEN_URL: `${this.url}/oauth2/v1/tokens/bearer`,
      QBO_REVOKE_URL: `${this.url}/v2/oauth2/tokens/revoke`,
      QBO_API_URL: `${this.url}/v3`,
      QBO_MINOR_VERSION: '73',
    };
  }

  addRealm(name: string): QboRealm {
    // Realm ids are long decimal numbers.
    const realm = new QboRealm(String(9130350000000000 + this.realms.size * 7919 + Math.floor(Math.random() * 1000)), name);
    this.realms.set(realm.realmId, realm);
    return realm;
  }

  inject(fault: Fault): void {
    this.faults.push({ ...fault });
  }

  /** Every access token stops working now (as if they had all reached their hour). */
  expireTokens(): void {
    for (const token of this.accessTokens.values()) token.expires = 0;
  }

  /** The user disconnects the app in QuickBooks: every token of every consent stops working, refresh tokens included. */
  revokeConsents(): void {
    for (const consent of this.refreshTokens.values()) consent.revoked = true;
  }

  /** The refresh token the token endpoint handed out last. */
  lastRefreshToken(): string {
    return [...this.refreshTokens.keys()].at(-1) ?? '';
  }

  apiRequests(filter: (r: RequestLog) => boolean = () => true): RequestLog[] {
    return this.requests.filter((r) => r.path.startsWith('/v3/') && filter(r));
  }

  /** Sends JSON; `check` is the contract it must meet, or null for the bodies the XSD does not cover (said where). */
  private send(
    res: http.ServerResponse,
    status: number,
    body: QboEntity,
    check: ((status: number, body: QboEntity) => string | undefined) | null,
    headers: Record<string, string> = {},
  ) {
    const problem = check?.(status, body);
    if (problem) this.violations.push(problem);
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', ...headers }).end(JSON.stringify(body));
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const log: RequestLog = { method, path: url.pathname, status: 0 };
    this.requests.push(log);
    res.on('finish', () => (log.status = res.statusCode));
    if (url.pathname === '/connect/oauth2') return this.authorize(url, res);
    if (url.pathname === '/oauth2/v1/tokens/bearer' && method === 'POST') return this.token(req, res, new URLSearchParams(body));
    if (url.pathname === '/v2/oauth2/tokens/revoke' && method === 'POST') return this.revoke(req, res, body);
    const api = /^\/v3\/company\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (api) return this.api(req, res, url, api[1], api[2], body, log);
    res.writeHead(404).end();
  }

  private authorize(url: URL, res: http.ServerResponse): void {
    const redirect = url.searchParams.get('redirect_uri') ?? '';
    if (url.searchParams.get('client_id') !== this.clientId || !redirect || url.searchParams.get('response_type') !== 'code') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_client');
      return;
    }
    const back = new URL(redirect);
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    const realm = this.consent.realm ?? [...this.realms.values()][0];
    if (!(url.searchParams.get('scope') ?? '').split(' ').includes(SCOPE)) back.searchParams.set('error', 'invalid_scope');
    else if (!this.consent.grant || !realm) back.searchParams.set('error', 'access_denied');
    else {
      const code = randomBytes(16).toString('hex');
      this.codes.set(code, { redirectUri: redirect, consent: { realm, revoked: false } });
      this.issued.add(code);
      back.searchParams.set('code', code);
      // Intuit names the company the user picked on its consent page.
      back.searchParams.set('realmId', realm.realmId);
    }
    res.writeHead(302, { location: back.toString() }).end();
  }

  private clientAuthenticated(req: http.IncomingMessage): boolean {
    return req.headers.authorization === `Basic ${Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64')}`;
  }

  private token(req: http.IncomingMessage, res: http.ServerResponse, form: URLSearchParams): void {
    const type = form.get('grant_type') ?? '';
    const answer = (status: number, body: QboEntity) => {
      this.grants.push({ type, status });
      this.send(res, status, body, checkTokenAnswer);
    };
    if (!this.clientAuthenticated(req)) return answer(401, { error: 'invalid_client' });
    let consent: Consent | undefined;
    if (type === 'authorization_code') {
      const grant = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      if (!grant || grant.redirectUri !== form.get('redirect_uri')) return answer(400, { error: 'invalid_grant' });
      consent = grant.consent;
    } else if (type === 'refresh_token') {
      const old = form.get('refresh_token') ?? '';
      consent = this.refreshTokens.get(old);
      // Rotated: a refresh token answers once, and the new one replaces it.
      this.refreshTokens.delete(old);
      if (!consent || consent.revoked) return answer(400, { error: 'invalid_grant' });
    } else return answer(400, { error: 'unsupported_grant_type' });
    const access = randomBytes(24).toString('base64url');
    const refresh = `AB${randomBytes(24).toString('base64url')}`;
    this.accessTokens.set(access, { consent, expires: Date.now() + this.tokenTtlSeconds * 1000 });
    this.refreshTokens.set(refresh, consent);
    this.issued.add(access).add(refresh);
    answer(200, {
      token_type: 'bearer',
      access_token: access,
      expires_in: this.tokenTtlSeconds,
      refresh_token: refresh,
      x_refresh_token_expires_in: 8_726_400,
    });
  }

  /** Intuit's revocation: Basic client auth and a JSON body `{ "token": … }` (an access or refresh token). */
  private revoke(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    let token = '';
    try {
      token = String((JSON.parse(body) as QboEntity).token ?? '');
    } catch {
      token = '';
    }
    if (!this.clientAuthenticated(req) || !token || req.headers['content-type'] !== 'application/json') {
      res.writeHead(400).end();
      return;
    }
    this.revoked.push(token);
    const consent = this.refreshTokens.get(token) ?? this.accessTokens.get(token)?.consent;
    if (consent) consent.revoked = true;
    res.writeHead(200).end();
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
    realmId: string,
    rest: string,
    body: string,
    log: RequestLog,
  ): Promise<void> {
    const method = req.method ?? 'GET';
    log.realmId = realmId;
    log.minorVersion = url.searchParams.get('minorversion') ?? undefined;
    const envelope = (status: number, b: QboEntity) => {
      const result = qbo().validate('IntuitResponse', b);
      return result.ok ? undefined : `IntuitResponse for ${method} /${rest} (HTTP ${status}): ${result.errors}`;
    };
    // The API gateway refuses a token before QuickBooks sees the request, in its own camelCase serialisation, which
    // is not the XSD's IntuitResponse (see xsd-to-json-schema.ts): not checked against it.
    const gateway401 = () =>
      this.send(
        res,
        401,
        {
          warnings: null,
          intuitObject: null,
          fault: {
            error: [
              {
                message: 'message=AuthenticationFailed; errorCode=003200; statusCode=401',
                detail: 'Token expired or invalid',
                code: '3200',
                element: null,
              },
            ],
            type: 'AUTHENTICATION',
          },
          time: Date.now(),
        },
        null,
        { 'www-authenticate': 'Bearer realm="Intuit"' },
      );
    const consent = this.bearer(req);
    if (!consent) return gateway401();
    const realm = this.realms.get(realmId);
    if (!realm || consent.realm !== realm) {
      return this.send(
        res,
        403,
        {
          Fault: new QboRefusal(
            '003100',
            'ApplicationAuthorizationFailed',
            'The token does not cover this company',
            403,
            'AuthorizationFault',
          ).fault(),
          time: pacific(Date.now()),
        },
        envelope,
      );
    }
    const time = () => pacific(realm.now());
    const reportContract = (status: number, b: QboEntity) => {
      const result = qbo().validate('Report', b);
      return result.ok ? undefined : `Report for ${method} /${rest} (HTTP ${status}): ${result.errors}`;
    };
    const fault = (status: number, refusal: QboRefusal, headers: Record<string, string> = {}) =>
      this.send(res, status, { Fault: refusal.fault(), time: time() }, envelope, headers);

    // Intuit's limits per realm, counted on every request, answered or not.
    const usage = this.usage.get(realmId) ?? { inFlight: 0, window: [] };
    this.usage.set(realmId, usage);
    const now = Date.now();
    usage.window = usage.window.filter((t) => t > now - this.limits.windowMs);
    const throttled = (seconds: number) =>
      fault(
        429,
        new QboRefusal(
          '003001',
          'message=ThrottleExceeded; errorCode=003001; statusCode=429',
          'The request limit was reached.',
          429,
          'SystemFault',
        ),
        {
          'retry-after': String(seconds),
        },
      );
    if (usage.inFlight >= this.limits.concurrent || usage.window.length >= this.limits.perWindow) return throttled(1);
    usage.inFlight++;
    usage.window.push(now);
    const peak = this.peaks.get(realmId) ?? { inFlight: 0, inWindow: 0 };
    peak.inFlight = Math.max(peak.inFlight, usage.inFlight);
    peak.inWindow = Math.max(peak.inWindow, usage.window.length);
    this.peaks.set(realmId, peak);
    try {
      if (this.latencyMs) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
      const injected = this.faults.find((f) => f.count > 0 && (!f.path || f.path.test(`/${rest}`)));
      if (injected) {
        injected.count--;
        if (injected.status === 429) return throttled(injected.retryAfterSeconds ?? 1);
        if (injected.status === 401) return gateway401();
        return fault(
          injected.status,
          new QboRefusal(
            '10000',
            'An application error has occurred while processing your request',
            'System Failure Error: the fake is failing on purpose',
            injected.status,
            'SystemFault',
          ),
        );
      }
      const answer = this.route(realm, method, rest, url.searchParams, body, log);
      // Reports are the Report type at the top level, with no IntuitResponse envelope (and no `time`).
      const result = answer.report ? answer.body : { ...answer.body, time: time() };
      this.tamper?.(`/${rest}`, result);
      this.send(res, answer.status, result, answer.report ? reportContract : envelope);
      if (answer.read) this.afterRead?.(realm, answer.read.entity, answer.read.id);
    } catch (err) {
      if (!(err instanceof QboRefusal)) throw err;
      fault(err.status, err);
    } finally {
      usage.inFlight--;
    }
  }

  private route(
    realm: QboRealm,
    method: string,
    rest: string,
    params: URLSearchParams,
    body: string,
    log: RequestLog,
  ): { status: number; body: QboEntity; read?: { entity: string; id: string }; report?: boolean } {
    const reportName = /^reports\/(\w+)$/.exec(rest)?.[1];
    if (method === 'GET' && reportName) {
      log.kind = 'report';
      log.report = Object.fromEntries([...params].filter(([k]) => k !== 'minorversion'));
      return { status: 200, body: report(realm, reportName, params, pacific(realm.now())), report: true };
    }
    if (method === 'GET' && rest === 'query') {
      log.kind = 'query';
      log.query = params.get('query') ?? '';
      this.beforeQuery?.(realm, log.query);
      return { status: 200, body: { QueryResponse: this.query(realm, log.query) } };
    }
    if (method === 'GET' && rest === 'cdc') {
      log.kind = 'cdc';
      log.changedSince = params.get('changedSince') ?? '';
      return { status: 200, body: { CDCResponse: [{ QueryResponse: this.cdc(realm, params.get('entities') ?? '', log.changedSince) }] } };
    }
    if (method === 'GET' && rest === `companyinfo/${realm.realmId}`) return { status: 200, body: { CompanyInfo: realm.companyInfo } };
    if (method === 'GET' && rest === 'preferences') return { status: 200, body: { Preferences: realm.preferences } };
    const [resource, id] = rest.split('/');
    const entity = [...realm.entities.keys()].find((e) => e.toLowerCase() === resource);
    if (!entity) throw new QboRefusal('4000', 'Unsupported Operation', `Operation ${method} /${rest} is not supported.`);
    if (method === 'GET' && id) {
      log.kind = 'read';
      const found = realm.table(entity).get(id);
      if (!found)
        throw new QboRefusal('610', 'Object Not Found', `Object Not Found : Something you're trying to use has been made inactive.`);
      return { status: 200, body: { [entity]: found }, read: { entity, id } };
    }
    if (method !== 'POST' || id) throw new QboRefusal('4000', 'Unsupported Operation', `Operation ${method} /${rest} is not supported.`);
    log.kind = 'write';
    log.requestId = params.get('requestid') ?? undefined;
    // A repeated requestid answers what the first write answered, and changes nothing.
    const remembered = log.requestId ? realm.idempotent.get(log.requestId) : undefined;
    if (remembered) return remembered;
    const input = JSON.parse(body || '{}') as QboEntity;
    const sent = qbo().validate(entity, input);
    if (!sent.ok) this.violations.push(`the connector wrote a ${entity} that is not one: ${sent.errors}`);
    try {
      const saved = this.write(realm, entity, input);
      const answer = { status: 200, body: { [entity]: saved } };
      if (log.requestId) realm.idempotent.set(log.requestId, answer);
      return answer;
    } catch (err) {
      if (err instanceof QboRefusal && log.requestId)
        realm.idempotent.set(log.requestId, { status: err.status, body: { Fault: err.fault() } });
      throw err;
    }
  }

  private write(realm: QboRealm, entity: string, input: QboEntity): QboEntity {
    if (entity === 'Invoice') return realm.saveInvoice(input);
    if (entity === 'Bill') return realm.saveBill(input);
    if (entity === 'Customer') return realm.saveCustomer(input);
    throw new QboRefusal('4000', 'Unsupported Operation', `the fake does not write ${entity}`);
  }

  /**
   * The subset of Intuit's query language the connector sends: `SELECT * FROM Entity [WHERE cond [AND cond]…]
   * [ORDERBY field [ASC|DESC]] [STARTPOSITION n] [MAXRESULTS m]`, conditions `field op 'value'` (=, <, >, <=, >=)
   * and `field IN (…)`. Anything else is Intuit's QueryParserError.
   */
  private query(realm: QboRealm, text: string): QboEntity {
    const parsed =
      /^select \* from (\w+)(?: where (.+?))?(?: orderby ([\w.]+)(?: (asc|desc))?)?(?: startposition (\d+))?(?: maxresults (\d+))?$/i.exec(
        text.trim().replace(/\s+/g, ' '),
      );
    const refuse = (why: string) => new QboRefusal('4000', 'Error parsing query', `QueryParserError: ${why}`);
    if (!parsed) throw refuse(`Encountered an unexpected token in "${text}"`);
    const [, name, where, orderBy, direction, start, max] = parsed;
    const entity =
      QUERY_NAMES[name.toLowerCase()] ??
      [...realm.entities.keys()].find((e) => e.toLowerCase() === name.toLowerCase() && !Object.values(QUERY_NAMES).includes(e));
    if (!entity) throw refuse(`Invalid entity ${name}`);
    let records = realm.all(entity);
    const conditions = where ? where.split(/ and /i) : [];
    if (NAME_LISTS.has(entity) && !conditions.some((c) => /^active\b/i.test(c))) records = records.filter((r) => r.Active !== false);
    for (const condition of conditions) {
      const c = /^([\w.]+) ?(=|<=|>=|<|>| in ) ?(.+)$/i.exec(condition.trim());
      if (!c) throw refuse(`Encountered an unexpected condition "${condition}"`);
      const [, field, op, raw] = c;
      const read = (r: QboEntity) => field.split('.').reduce((v: QboEntity | undefined, k) => v?.[k], r);
      const literal = (v: string) => (/^'.*'$/.test(v) ? v.slice(1, -1) : v === 'true' ? true : v === 'false' ? false : Number(v));
      if (op.trim().toLowerCase() === 'in') {
        const values = raw
          .replace(/^\(|\)$/g, '')
          .split(',')
          .map((v) => literal(v.trim()));
        records = records.filter((r) => values.includes((read(r) ?? (field === 'Active' ? true : '')) as string | number | boolean));
        continue;
      }
      const value = literal(raw.trim());
      const timed = /Time$/.test(field);
      const compare = (r: QboEntity): number => {
        const v = read(r);
        if (timed) return Date.parse(String(v)) - Date.parse(String(value));
        return typeof v === 'number' ? v - Number(value) : String(v).localeCompare(String(value));
      };
      const ops: Record<string, (n: number) => boolean> = {
        '=': (n) => n === 0,
        '<': (n) => n < 0,
        '>': (n) => n > 0,
        '<=': (n) => n <= 0,
        '>=': (n) => n >= 0,
      };
      records = records.filter((r) => ops[op](compare(r)));
    }
    if (orderBy) {
      const key = (r: QboEntity) => orderBy.split('.').reduce((v: QboEntity | undefined, k) => v?.[k], r);
      // Ids are numbers in strings: QuickBooks orders them as numbers.
      const numeric = orderBy === 'Id';
      records.sort((a, b) => (numeric ? Number(key(a)) - Number(key(b)) : String(key(a)).localeCompare(String(key(b)))));
      if (direction?.toLowerCase() === 'desc') records.reverse();
    }
    const first = Number(start ?? 1);
    const size = Number(max ?? 100);
    if (size > 1000) throw refuse('MAXRESULTS is at most 1000');
    const page = records.slice(first - 1, first - 1 + size);
    // An empty answer is an empty QueryResponse, as QuickBooks answers it.
    return page.length === 0 ? {} : { [entity]: page, startPosition: first, maxResults: page.length };
  }

  /** Change data capture: what changed (or was deleted) at or after `changedSince`, at most 1000 an entity, 30 days back. */
  private cdc(realm: QboRealm, entities: string, changedSince: string): QboEntity[] {
    const since = Date.parse(changedSince);
    if (!Number.isFinite(since))
      throw new QboRefusal(
        '2010',
        'Request has invalid or unsupported property',
        `Property Name:changedSince specified is unsupported or invalid`,
      );
    if (since < realm.now() - 30 * 86_400_000)
      throw new QboRefusal(
        '2010',
        'Request has invalid or unsupported property',
        'changedSince: the date cannot be more than 30 days in the past',
      );
    return entities.split(',').map((name) => {
      const entity = [...realm.entities.keys()].find((e) => e.toLowerCase() === name.trim().toLowerCase());
      if (!entity)
        throw new QboRefusal('2010', 'Request has invalid or unsupported property', `Property Name:entities ${name} is unsupported`);
      const changed = [...realm.all(entity), ...realm.tombstones.filter((t) => t.entity === entity).map((t) => t.record)].filter(
        (r) => Date.parse(r.MetaData.LastUpdatedTime) >= since,
      );
      changed.sort((a, b) => Date.parse(a.MetaData.LastUpdatedTime) - Date.parse(b.MetaData.LastUpdatedTime));
      const page = changed.slice(0, 1000);
      return page.length === 0 ? {} : { [entity]: page, startPosition: 1, maxResults: page.length, totalCount: page.length };
    });
  }
}

export async function startQboFake(): Promise<QboFake> {
  return new QboFake().start();
}
