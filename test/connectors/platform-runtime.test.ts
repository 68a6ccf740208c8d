import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { platformJson, platformRequest } from '../../src/connectors/platform-http.js';
import { declarePlatform, type PlatformDeclaration, type PlatformHooks } from '../../src/connectors/platform-declaration.js';
import {
  declaredCursor,
  declaredBaseUrl,
  declaredCursorField,
  declaredEndpoint,
  declaredPages,
  pageTarget,
  type PageRequest,
  settingBaseUrl,
} from '../../src/connectors/platform-runtime.js';
import { oauthCodeFlow, oauthConfig, revokeToken } from '../../src/connectors/oauth/oauth-client.js';
import { withDeclared } from '../helpers/declared.js';
import { setEnv } from '../helpers/env.js';

/*
 * The runtime reads each field of a platform's declaration when it is used: a declaration of the test's own, against
 * an HTTP server of the test's own that logs what it is asked and answers as each case says. (Each live platform's
 * suite changes its own declaration's fields against its vendor's fake: test/connectors/<platform>/.)
 */

interface Asked {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
let server: http.Server;
let base: string;
const asked: Asked[] = [];
let inFlight = 0;
let maxInFlight = 0;
/** How the next answers go: a status, headers, a delay. */
let answer: (n: number, url: URL) => { status: number; headers?: Record<string, string>; delayMs?: number; body?: unknown } = () => ({
  status: 200,
});

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      asked.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const { status, headers, delayMs, body: sent } = answer(asked.length, new URL(req.url ?? '/', base));
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(sent ?? { ok: true }));
      }, delayMs ?? 5);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A clean log, once the server has answered everything (a request the client gave up on is still answered). */
async function fresh(): Promise<void> {
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  asked.length = 0;
  maxInFlight = 0;
  answer = () => ({ status: 200 });
}

/** A declaration of the test's own: an API on the test's server (overridable by EXAMPLE_API_URL), OAuth2 beside it. */
function example(): PlatformDeclaration {
  return declarePlatform({
    key: 'exmp',
    name: 'Example',
    sourceType: 'Accounting',
    brandColour: '#123456',
    authorization: { kind: 'oauth2' },
    transport: {
      baseUrl: { fixed: 'http://127.0.0.1:9/v1', env: 'EXAMPLE_API_URL' },
      apiVersion: { value: '2024-01', header: 'example-version', env: 'EXAMPLE_VERSION' },
      timeoutMs: 5_000,
      retry: { attempts: 3, backoffMs: 0, retryAfterHeader: 'retry-after' },
      politeness: { maxConcurrent: 4, requests: 100, windowMs: 1_000 },
      remainingLimits: [{ header: 'x-day-left', scope: 'day' }],
      paging: { style: 'cursor', pageSize: 50 },
    },
    oauth2: {
      env: 'EXAMPLE',
      authorizeUrl: 'http://127.0.0.1:9/authorize',
      tokenUrl: 'http://127.0.0.1:9/token',
      scope: 'read',
      pkce: true,
      clientAuthentication: 'basic',
      authorizeParams: { prompt: 'consent' },
      more: { TENANTS_URL: 'http://127.0.0.1:9/tenants' },
    },
    dataTypes: { invoices: { features: ['Get'], cursor: { field: 'updated' } }, customers: { features: ['Get'], cursor: 'none' } },
  });
}

describe('the declaration runtime', () => {
  it("reads the API's address and version from the declaration, each overridden by its environment variable", async () => {
    await fresh();
    const declaration = example();
    const restore = setEnv({ EXAMPLE_API_URL: `${base}/v1` });
    try {
      await platformJson(declaredEndpoint(declaration, { account: 'a1' }), 'things');
      await withDeclared(declaration, { 'transport.apiVersion': { value: '7', query: 'v' } }, () =>
        platformJson(declaredEndpoint(declaration, { account: 'a1' }), 'things?page=2'),
      );
      const version = setEnv({ EXAMPLE_VERSION: '2025-02' });
      await platformJson(declaredEndpoint(declaration, { account: 'a1' }), 'things').finally(version);
    } finally {
      restore();
    }
    expect(asked.map((a) => [a.url, a.headers['example-version']])).toEqual([
      ['/v1/things', '2024-01'],
      ['/v1/things?page=2&v=7', undefined],
      ['/v1/things', '2025-02'],
    ]);
  });

  it('reads the timeout, the retry attempts and the politeness from the declaration when it calls', async () => {
    await fresh();
    const declaration = example();
    const restore = setEnv({ EXAMPLE_API_URL: base });
    try {
      answer = () => ({ status: 200, delayMs: 400 });
      await withDeclared(declaration, { 'transport.timeoutMs': 100, 'transport.retry.attempts': 1 }, async () => {
        await expect(platformJson(declaredEndpoint(declaration), 'slow')).rejects.toThrow(/no answer within 100 ms/);
      });
      await fresh();
      answer = () => ({ status: 503 });
      await withDeclared(declaration, { 'transport.retry.attempts': 2 }, async () => {
        await expect(platformJson(declaredEndpoint(declaration), 'down')).rejects.toThrow(/did not answer: HTTP 503/);
      });
      expect(asked).toHaveLength(2);
      await fresh();
      answer = () => ({ status: 200, delayMs: 30 });
      await withDeclared(declaration, { 'transport.politeness.maxConcurrent': 1 }, async () => {
        const endpoint = declaredEndpoint(declaration, { account: 'polite' });
        await Promise.all([1, 2, 3].map((n) => platformJson(endpoint, `p${n}`)));
      });
      expect(maxInFlight).toBe(1);
    } finally {
      restore();
    }
  });

  it('heeds a declared remaining-limit header, and not one it does not declare', async () => {
    await fresh();
    const declaration = example();
    const restore = setEnv({ EXAMPLE_API_URL: base });
    try {
      answer = () => ({ status: 200, headers: { 'x-day-left': '0' } });
      await withDeclared(declaration, { 'transport.remainingLimits': [{ header: 'x-other-left', scope: 'day' }] }, async () => {
        const endpoint = declaredEndpoint(declaration, { account: 'spent-undeclared' });
        await platformJson(endpoint, 'one');
        await platformJson(endpoint, 'two');
      });
      expect(asked).toHaveLength(2);
      const endpoint = declaredEndpoint(declaration, { account: 'spent' });
      await platformJson(endpoint, 'one');
      await expect(platformJson(endpoint, 'two')).rejects.toMatchObject({ kind: 'rate-limited' });
      expect(asked).toHaveLength(3);
    } finally {
      restore();
    }
  });

  it("builds the OAuth2 flow from the declaration: addresses, scope, PKCE, authorize parameters, the client's authentication", async () => {
    await fresh();
    const declaration = example();
    const restore = setEnv({ EXAMPLE_CLIENT_ID: 'cid', EXAMPLE_CLIENT_SECRET: 'shh', EXAMPLE_TOKEN_URL: `${base}/token` });
    try {
      const flow = oauthCodeFlow({ declaration, link: async (tokens) => ({ settings: {}, credentials: tokens }) });
      const authorize = new URL(flow.authorizeUrl({ state: 's', redirectUri: 'http://back', codeChallenge: 'cc' }));
      expect(`${authorize.origin}${authorize.pathname}`).toBe('http://127.0.0.1:9/authorize');
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({ scope: 'read', code_challenge: 'cc', prompt: 'consent' });
      expect(oauthConfig(declaration)?.more).toEqual({ TENANTS_URL: 'http://127.0.0.1:9/tenants' });
      await withDeclared(declaration, { 'oauth2.pkce': false, 'oauth2.scope': 'read write' }, async () => {
        const changed = new URL(flow.authorizeUrl({ state: 's', redirectUri: 'http://back', codeChallenge: 'cc' }));
        expect([changed.searchParams.get('scope'), changed.searchParams.has('code_challenge')]).toEqual(['read write', false]);
      });

      answer = () => ({ status: 200, body: { access_token: 'at', refresh_token: 'rt', expires_in: 60 } });
      const exchange = () => flow.exchange({ code: 'c', redirectUri: 'http://back', codeVerifier: 'v', allowPrivate: true, query: {} });
      await exchange();
      await withDeclared(declaration, { 'oauth2.clientAuthentication': 'json-body' }, exchange);
      await withDeclared(declaration, { 'oauth2.clientAuthentication': 'form-secret' }, exchange);
      const [basic, json, form] = asked;
      expect(basic.headers.authorization).toBe(`Basic ${Buffer.from('cid:shh').toString('base64')}`);
      expect(new URLSearchParams(basic.body).get('code_verifier')).toBe('v');
      expect(JSON.parse(json.body)).toMatchObject({ client_id: 'cid', client_secret: 'shh', grant_type: 'authorization_code' });
      expect([form.headers.authorization, new URLSearchParams(form.body).get('client_secret')]).toEqual([undefined, 'shh']);
    } finally {
      restore();
    }
  });

  it('pages a list as declared: page number, offset, a cursor field, the last id while more, a link header', async () => {
    const declaration = example();
    const items = Array.from({ length: 7 }, (_, i) => ({ id: `i${i + 1}` }));
    const restore = setEnv({ EXAMPLE_API_URL: base });
    const get = (request: PageRequest) =>
      platformRequest(declaredEndpoint(declaration), 'GET', pageTarget(request)).then((r) => ({
        body: JSON.parse(r.body),
        headers: r.headers,
      }));
    const read = async (paging: Record<string, unknown>) => {
      asked.length = 0;
      const ids: string[] = [];
      await withDeclared(declaration, { 'transport.paging': paging }, async () => {
        for await (const page of declaredPages(declaration, get, 'items', { params: { kind: 'all' } }))
          ids.push(...page.records.map((r) => String(r.id)));
      });
      return { ids, asked: asked.map((a) => a.url) };
    };
    try {
      // Pages of 3 numbered from 1: the third (one record) is the last.
      answer = (_n, url) => {
        const page = Number(url.searchParams.get('p') ?? 1);
        return { status: 200, body: { rows: items.slice((page - 1) * 3, page * 3) } };
      };
      expect(await read({ style: 'page-number', pageSize: 3, sizeParam: 'n', param: 'p', records: 'rows' })).toEqual({
        ids: items.map((i) => i.id),
        asked: ['/items?kind=all&n=3&p=1', '/items?kind=all&n=3&p=2', '/items?kind=all&n=3&p=3'],
      });
      // By offset, 4 at a time; the answer is the records themselves.
      answer = (_n, url) => {
        const skip = Number(url.searchParams.get('skip') ?? 0);
        return { status: 200, body: items.slice(skip, skip + 4) };
      };
      expect(await read({ style: 'offset', pageSize: 4, sizeParam: 'top', param: 'skip' })).toEqual({
        ids: items.map((i) => i.id),
        asked: ['/items?kind=all&top=4', '/items?kind=all&top=4&skip=4'],
      });
      // An opaque cursor in the answer, until there is none.
      answer = (_n, url) => {
        const at = Number(url.searchParams.get('cursor') ?? 0);
        return { status: 200, body: { data: items.slice(at, at + 5), ...(at + 5 < items.length ? { next_cursor: String(at + 5) } : {}) } };
      };
      expect(await read({ style: 'cursor', next: 'next_cursor', param: 'cursor', records: 'data' })).toEqual({
        ids: items.map((i) => i.id),
        asked: ['/items?kind=all', '/items?kind=all&cursor=5'],
      });
      // After the last id, while the answer says more.
      answer = (_n, url) => {
        const after = url.searchParams.get('after');
        const at = after ? items.findIndex((i) => i.id === after) + 1 : 0;
        return { status: 200, body: { data: items.slice(at, at + 4), has_more: at + 4 < items.length } };
      };
      expect(
        await read({
          style: 'cursor',
          pageSize: 4,
          sizeParam: 'limit',
          next: 'last-id',
          more: 'has_more',
          param: 'after',
          records: 'data',
        }),
      ).toEqual({
        ids: items.map((i) => i.id),
        asked: ['/items?kind=all&limit=4', '/items?kind=all&limit=4&after=i4'],
      });
      // A `Link` header's next page, on the platform's own origin; none, the end.
      answer = (_n, url) => {
        const page = Number(url.searchParams.get('page') ?? 1);
        const headers: Record<string, string> = page < 3 ? { link: `<${base}/items?page=${page + 1}>; rel="next"` } : {};
        return { status: 200, headers, body: items.slice((page - 1) * 3, page * 3) };
      };
      expect(await read({ style: 'link-header' })).toEqual({
        ids: items.map((i) => i.id),
        asked: ['/items?kind=all', '/items?page=2', '/items?page=3'],
      });
      // A platform that ignores the declared paging (the same page again) fails the read rather than looping.
      answer = () => ({ status: 200, body: { rows: items.slice(0, 3) } });
      await expect(read({ style: 'page-number', pageSize: 3, param: 'p', records: 'rows' })).rejects.toMatchObject({
        kind: 'unavailable',
        message: expect.stringMatching(/answered the same page twice: it does not page as declared/),
      });
      // A link to another origin is not followed with the platform's credentials.
      answer = () => ({ status: 200, headers: { link: '<http://127.0.0.2:9/items?page=2>; rel="next"' }, body: items });
      await expect(read({ style: 'link-header' })).rejects.toThrow(/pointed to another address/);
      // Nor one that is no address at all: the read fails as the platform's, not as an error of the service.
      answer = () => ({ status: 200, headers: { link: '<http://[::1/items?page=2>; rel="next"' }, body: items });
      await expect(read({ style: 'link-header' })).rejects.toMatchObject({
        kind: 'unavailable',
        message: expect.stringMatching(/not an address/),
      });
    } finally {
      restore();
    }
  });

  it("reads a data type's cursor field, or none", () => {
    const declaration = example();
    expect([declaredCursorField(declaration, 'invoices'), declaredCursorField(declaration, 'customers')]).toEqual(['updated', undefined]);
  });

  it("reads a record's change time from the declared cursor field, with the declared instant hook or as RFC 3339", async () => {
    const declaration = example();
    // Resolved as a read resolves it, then applied to the record.
    const cursorInstant = (of: PlatformDeclaration, dataType: string, record: Record<string, unknown>, hooks?: PlatformHooks) =>
      declaredCursor(of, dataType, hooks)?.timeOf(record);
    const record = { updated: '2024-05-01T12:00:00+02:00', changed: { at: 1_714_560_000_000 } };
    const epochMs: PlatformHooks = { instant: (value) => (typeof value === 'number' ? new Date(value).toISOString() : undefined) };
    expect(cursorInstant(declaration, 'invoices', record)).toBe('2024-05-01T10:00:00Z');
    expect(cursorInstant(declaration, 'customers', record)).toBeUndefined();
    await withDeclared(
      declaration,
      { 'dataTypes.invoices.cursor': { field: 'changed.at' }, hooks: { instant: 'times in ms' } },
      async () => {
        expect(cursorInstant(declaration, 'invoices', record, epochMs)).toBe('2024-05-01T10:40:00.000Z');
        // A hook the declaration names must be handed; one it does not name is refused.
        expect(() => cursorInstant(declaration, 'invoices', record)).toThrow(/declares the hook instant, but its code hands none/);
      },
    );
    expect(() => cursorInstant(declaration, 'invoices', record, epochMs)).toThrow(/hands a hook instant it does not declare/);
  });

  it('asks the declared address: fixed, its environment variable, or the setting a connection names', async () => {
    await fresh();
    const declaration = example();
    const restore = setEnv({ OTHER_API_URL: `${base}/other` });
    try {
      await withDeclared(declaration, { 'transport.baseUrl': { fixed: `${base}/v2` } }, () =>
        platformJson(declaredEndpoint(declaration), 'things'),
      );
      await withDeclared(declaration, { 'transport.baseUrl.fixed': `${base}/v3`, 'transport.baseUrl.env': 'OTHER_API_URL' }, () =>
        platformJson(declaredEndpoint(declaration), 'things'),
      );
      await withDeclared(declaration, { 'transport.baseUrl': { setting: 'server' } }, async () => {
        expect(() => declaredBaseUrl(declaration)).toThrow(/has no fixed API address/);
        const settings = { url: `${base}/wrong`, server: `${base}/mine` };
        await platformJson(declaredEndpoint(declaration, { baseUrl: settingBaseUrl(declaration, settings), allowPrivate: true }), 'things');
      });
    } finally {
      restore();
    }
    expect(asked.map((a) => a.url)).toEqual(['/v2/things', '/other/things', '/mine/things']);
  });

  it('names the API version in the declared header, read from the declared environment variable', async () => {
    await fresh();
    const declaration = example();
    const restore = setEnv({ EXAMPLE_API_URL: base, OTHER_VERSION: '2030-01' });
    try {
      await withDeclared(declaration, { 'transport.apiVersion.header': 'x-api-version' }, () =>
        platformJson(declaredEndpoint(declaration), 'a'),
      );
      await withDeclared(declaration, { 'transport.apiVersion.env': 'OTHER_VERSION' }, () =>
        platformJson(declaredEndpoint(declaration), 'b'),
      );
    } finally {
      restore();
    }
    expect(asked.map((a) => [a.url, a.headers['x-api-version'], a.headers['example-version']])).toEqual([
      ['/a', '2024-01', undefined],
      ['/b', undefined, '2030-01'],
    ]);
  });

  it("waits the declared backoff between attempts, reads the declared Retry-After header, and keeps the declared window's budget", async () => {
    await fresh();
    const declaration = example();
    const restore = setEnv({ EXAMPLE_API_URL: base });
    const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    try {
      // Two attempts two seconds apart: a moment after the first 503, the second has not been sent.
      answer = () => ({ status: 503 });
      await withDeclared(declaration, { 'transport.retry.backoffMs': 2_000, 'transport.retry.attempts': 2 }, async () => {
        const read = platformJson(declaredEndpoint(declaration, { account: 'backoff' }), 'down');
        const failed = expect(read).rejects.toThrow(/did not answer: HTTP 503/);
        await after(300);
        expect(asked).toHaveLength(1);
        await failed;
      });
      expect(asked).toHaveLength(2);

      // The platform's wait in the declared header: two minutes, too long to wait within a read.
      await fresh();
      answer = () => ({ status: 429, headers: { 'x-wait': '120' } });
      await withDeclared(declaration, { 'transport.retry.retryAfterHeader': 'x-wait' }, async () => {
        await expect(platformJson(declaredEndpoint(declaration, { account: 'waits' }), 'busy')).rejects.toMatchObject({
          kind: 'rate-limited',
          message: expect.stringMatching(/retrying in 120 s/),
        });
      });
      expect(asked).toHaveLength(1);

      // Two requests a two-second window: the third waits for the window.
      await fresh();
      await withDeclared(declaration, { 'transport.politeness.requests': 2, 'transport.politeness.windowMs': 2_000 }, async () => {
        const endpoint = declaredEndpoint(declaration, { account: 'budget' });
        const all = Promise.all([1, 2, 3].map((n) => platformJson(endpoint, `w${n}`)));
        await after(300);
        expect(asked).toHaveLength(2);
        await all;
      });
      expect(asked).toHaveLength(3);
    } finally {
      restore();
    }
  });

  it('asks the pages page 1 counts ahead, as many at once as the declared politeness allows, and hands them on in order', async () => {
    await fresh();
    const declaration = example();
    const items = Array.from({ length: 10 }, (_, i) => ({ id: `i${i + 1}` }));
    const restore = setEnv({ EXAMPLE_API_URL: base });
    const get = (request: PageRequest) =>
      platformJson(declaredEndpoint(declaration, { account: 'ahead' }), pageTarget(request)).then((body) => ({ body }));
    answer = (_n, url) => {
      const page = Number(url.searchParams.get('page') ?? 1);
      return { status: 200, delayMs: 50 * (5 - page), body: { meta: { pages: 4 }, rows: items.slice((page - 1) * 3, page * 3) } };
    };
    const read = async (paging: Record<string, unknown>) => {
      const ids: string[] = [];
      maxInFlight = 0;
      await withDeclared(declaration, { 'transport.paging': paging }, async () => {
        for await (const page of declaredPages(declaration, get, 'items')) ids.push(...page.records.map((r) => String(r.id)));
      });
      return { ids, maxInFlight };
    };
    try {
      const paging = { style: 'page-number', pageSize: 3, sizeParam: 'size', param: 'page', records: 'rows' };
      expect(await read({ ...paging, pageCount: 'meta.pages' })).toEqual({ ids: items.map((i) => i.id), maxInFlight: 3 });
      expect(await read(paging)).toEqual({ ids: items.map((i) => i.id), maxInFlight: 1 });
    } finally {
      restore();
    }
  });

  it('pages by start position in the hook’s language, reading the declared overlap again, and steps back when records moved', async () => {
    await fresh();
    const declaration = example();
    let rows = Array.from({ length: 9 }, (_, i) => ({ Id: String(i + 1) }));
    const restore = setEnv({ EXAMPLE_API_URL: base });
    const get = (request: PageRequest) =>
      platformJson(declaredEndpoint(declaration, { account: 'positions' }), pageTarget(request)).then((body) => ({ body }));
    const hooks: PlatformHooks = { pageRequest: ({ position, size }, list) => ({ q: `FROM ${list.entity} AT ${position} TAKE ${size}` }) };
    answer = (n, url) => {
      const [, at, take] = /AT (\d+) TAKE (\d+)/.exec(url.searchParams.get('q') ?? '')!.map(Number);
      // Once the second page has been asked, the first four records are deleted: the later ones move up four places.
      if (n === 2) rows = rows.slice(4);
      return { status: 200, body: { result: rows.slice(at - 1, at - 1 + take) } };
    };
    const paging = { style: 'start-position', pageSize: 4, overlap: 1, records: 'result' };
    try {
      const ids: string[] = [];
      await withDeclared(declaration, { 'transport.paging': paging, hooks: { pageRequest: 'a query language' } }, async () => {
        for await (const page of declaredPages(declaration, get, 'query', { params: { entity: 'Thing' }, idField: 'Id', hooks }))
          ids.push(...page.records.map((r) => String(r.Id)));
      });
      // Every record still there is read once; the page that found none read before was asked again from further back.
      expect(ids).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
      expect(asked.map((a) => new URL(a.url, base).searchParams.get('q'))).toEqual([
        'FROM Thing AT 1 TAKE 4',
        'FROM Thing AT 4 TAKE 4',
        'FROM Thing AT 1 TAKE 4',
        'FROM Thing AT 4 TAKE 4',
      ]);
      // Without the hook named, start-position paging is no declaration at all.
      expect(() => declarePlatform({ ...declaration, transport: { ...declaration.transport!, paging: paging as never } })).toThrow(
        /start-position pages in the platform's own language: declare hooks.pageRequest/,
      );
    } finally {
      restore();
    }
  });

  it('fails a read, rather than looping or losing records, when the platform does not page or answer as declared', async () => {
    await fresh();
    const declaration = example();
    const rows = Array.from({ length: 4 }, (_, i) => ({ id: `r${i + 1}` }));
    const restore = setEnv({ EXAMPLE_API_URL: base });
    const get = (request: PageRequest) =>
      platformJson(declaredEndpoint(declaration, { account: 'ignores' }), pageTarget(request)).then((body) => ({ body }));
    const read = (paging: Record<string, unknown>, options: Parameters<typeof declaredPages>[3] = {}) =>
      withDeclared(declaration, { 'transport.paging': paging }, async () => {
        const ids: string[] = [];
        for await (const page of declaredPages(declaration, get, 'items', options)) ids.push(...page.records.map((r) => String(r.id)));
        return ids;
      });
    try {
      // Pages counted ahead, each answered with the first page again.
      answer = () => ({ status: 200, body: { meta: { pages: 3 }, rows } });
      await expect(read({ style: 'page-number', pageSize: 4, param: 'page', pageCount: 'meta.pages', records: 'rows' })).rejects.toThrow(
        /answered the same page twice: it does not page as declared/,
      );
      // Start positions ignored: the same full page at every position.
      answer = () => ({ status: 200, body: { rows } });
      const hooks: PlatformHooks = { pageRequest: ({ position, size }) => ({ at: String(position), take: String(size) }) };
      await withDeclared(declaration, { hooks: { pageRequest: 'positions' } }, () =>
        expect(read({ style: 'start-position', pageSize: 4, overlap: 1, records: 'rows' }, { hooks, label: 'Thing' })).rejects.toThrow(
          /answered the same records at every position: it does not page as declared/,
        ),
      );
      // An answer without the list (an error document in its place) is no empty list.
      answer = () => ({ status: 200, body: { error: 'not here' } });
      await expect(read({ style: 'none' })).rejects.toMatchObject({ kind: 'unavailable', message: expect.stringMatching(/not a list/) });
      // A record without an id ends a read after the last id: no `after=undefined`.
      answer = () => ({ status: 200, body: { data: [{ name: 'no id' }], has_more: true } });
      expect(await read({ style: 'cursor', next: 'last-id', more: 'has_more', param: 'after', records: 'data' })).toEqual(['undefined']);
      expect(asked.every((a) => !a.url.includes('after='))).toBe(true);
      // Start positions must overlap, by less than a page.
      for (const overlap of [0, 4])
        expect(() =>
          declarePlatform({
            ...declaration,
            hooks: { pageRequest: 'positions' },
            transport: { ...declaration.transport!, paging: { style: 'start-position', pageSize: 4, overlap } },
          }),
        ).toThrow(/start-position pages overlap by 1 or more, and by less than a page/);
    } finally {
      restore();
    }
  });

  it("reads the OAuth2 client's environment variables, addresses and further settings from the declaration", async () => {
    await fresh();
    const declaration = example();
    const restore = setEnv({ OTHER_CLIENT_ID: 'other', OTHER_CLIENT_SECRET: 'shh' });
    answer = () => ({ status: 200, body: { access_token: 'at', refresh_token: 'rt', expires_in: 60 } });
    try {
      expect(oauthConfig(declaration)).toBeUndefined();
      const changes = {
        'oauth2.env': 'OTHER',
        'oauth2.authorizeUrl': `${base}/consent`,
        'oauth2.tokenUrl': `${base}/grant`,
        'oauth2.revokeUrl': `${base}/revoke`,
        'oauth2.more.TENANTS_URL': `${base}/orgs`,
      };
      await withDeclared(declaration, changes, async () => {
        const config = oauthConfig(declaration);
        expect(config).toMatchObject({ clientId: 'other', tokenUrl: `${base}/grant`, more: { TENANTS_URL: `${base}/orgs` } });
        const flow = oauthCodeFlow({ declaration, link: async (tokens) => ({ settings: {}, credentials: tokens }) });
        expect(new URL(flow.authorizeUrl({ state: 's', redirectUri: 'http://back', codeChallenge: 'cc' })).pathname).toBe('/consent');
        await flow.exchange({ code: 'c', redirectUri: 'http://back', codeVerifier: 'v', allowPrivate: true, query: {} });
        await revokeToken(declaration, 'rt');
      });
    } finally {
      restore();
    }
    expect(asked.map((a) => [a.method, a.url])).toEqual([
      ['POST', '/grant'],
      ['POST', '/revoke'],
    ]);
    expect(asked[0].headers.authorization).toBe(`Basic ${Buffer.from('other:shh').toString('base64')}`);
  });

  it("reads a token endpoint's odd answers as the platform's failure or as no expiry, never as an error of the service", async () => {
    await fresh();
    const declaration = example();
    const restore = setEnv({ EXAMPLE_CLIENT_ID: 'cid', EXAMPLE_CLIENT_SECRET: 'shh', EXAMPLE_TOKEN_URL: `${base}/token` });
    const flow = oauthCodeFlow({ declaration, link: async (tokens) => ({ settings: {}, credentials: tokens }) });
    const exchange = () => flow.exchange({ code: 'c', redirectUri: 'http://back', codeVerifier: 'v', allowPrivate: true, query: {} });
    try {
      answer = () => ({ status: 200, body: null });
      await expect(exchange()).rejects.toMatchObject({ kind: 'unavailable', message: expect.stringMatching(/without a token/) });
      for (const expiry of [{ expires_at: 'soon' }, { expires_in: 1e20 }, { expires_in: 'never' }]) {
        answer = () => ({ status: 200, body: { access_token: 'at', ...expiry } });
        const linked = await exchange();
        expect(linked).toMatchObject({ credentials: { accessToken: 'at' } });
        expect(linked).not.toHaveProperty('credentials.expiresAt');
      }
    } finally {
      restore();
    }
  });
});
