import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type HttpResult, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { rawRequest, type RawResponse } from '../helpers/raw-http.js';
import { MAX_JSON_DEPTH } from '../../src/http/json-limits.js';

/**
 * What is refused before a route runs (the HTTP parser, the router, the body parser, Node's own checks) answers in
 * the same error body as everything else, and hostile nesting or paging values are 400s, never 500s or numbers.
 */

let server: TestServer;
let client: TestClient;

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient();
});
afterAll(() => server.close());

/** A raw answer in the shape `expectErrorBody` checks. */
function asResult(res: RawResponse): HttpResult {
  const headers = new Headers(res.headers);
  return { status: res.status, headers, text: res.body, body: res.body ? JSON.parse(res.body) : undefined };
}

const host = () => new URL(server.url).host;

describe('malformed HTTP and oversized requests', () => {
  it.each([
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n'],
    ['a header without a colon', `GET /companies HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n`],
    ['a bad Content-Length', `POST /companies HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`],
    [
      'both Content-Length and chunked',
      `POST /companies HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    [
      'a bad chunk size',
      `POST /companies HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ],
    ['an HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['a control character in a header value', `GET /companies HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n`],
  ])('%s answers 400 in the error body', async (_name, request) => {
    const res = await rawRequest(server.url, request);
    expect(res.timedOut).toBe(false);
    expectErrorBody(asResult(res), 400, { error: /^BadRequestException: The request is not well-formed HTTP\/1\.1/ });
  });

  it('an HTTP/1.1 request without Host answers 400 in the error body; HTTP/1.0 needs none', async () => {
    const res = await rawRequest(server.url, `GET /companies HTTP/1.1\r\nAuthorization: ${client.auth}\r\nConnection: close\r\n\r\n`);
    const body = expectErrorBody(asResult(res), 400, { validation: true });
    expect(body.validation.errors[0].itemId).toBe('Host');
    const old = await rawRequest(server.url, `GET /companies HTTP/1.0\r\nAuthorization: ${client.auth}\r\n\r\n`);
    expect(old.status).toBe(200);
  });

  it('headers over 16 KB answer 431 in the error body', async () => {
    const res = await rawRequest(server.url, `GET /companies HTTP/1.1\r\nHost: ${host()}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectErrorBody(asResult(res), 431, { error: /^RequestHeaderFieldsTooLargeException/ });
  });

  it("a path segment over the router's limit answers 414 in the error body", async () => {
    const res = await http(server, 'GET', `/companies/${'a'.repeat(500)}`, { auth: client.auth });
    expectErrorBody(res, 414, { error: /^UriTooLongException/ });
  });

  it('a malformed percent-encoding in the path answers 400 in the error body', async () => {
    const res = await rawRequest(server.url, `GET /companies/%E0%A4%A HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`);
    const body = expectErrorBody(asResult(res), 400, { validation: true });
    expect(body.validation.errors[0].itemId).toBe('path');
  });

  it('CONNECT answers 405 in the error body', async () => {
    const res = await rawRequest(server.url, `CONNECT ${host()} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`);
    expectErrorBody(asResult(res), 405, { error: /^MethodNotAllowedException: CONNECT/ });
  });

  it('an Expect header other than 100-continue answers 417 in the error body', async () => {
    const res = await rawRequest(server.url, `GET /companies HTTP/1.1\r\nHost: ${host()}\r\nExpect: teapot\r\n\r\n`);
    expectErrorBody(asResult(res), 417);
  });

  it('a body over the limit answers 413 in the error body', async () => {
    const res = await http(server, 'POST', '/companies', {
      auth: client.auth,
      rawBody: `{"name":"${'a'.repeat(6 * 1024 * 1024)}"}`,
      headers: { 'content-type': 'application/json' },
    });
    expectErrorBody(res, 413);
  });

  it.each([
    ['a body over the limit', 'POST /companies', true, 413],
    ['a bad URL', 'PUT /companies/%FF/connections/x/authorization', true, 400],
    ['no API key', 'POST /companies', false, 401],
    ['a path segment over the limit', `POST /companies/${'a'.repeat(300)}/connections`, true, 414],
  ])(
    'a client that sends its whole body before reading still gets the answer to %s (no reset in its place)',
    async (_name, line, withKey, status) => {
      const body = Buffer.alloc(12 * 1024 * 1024, 'a');
      const key = withKey ? `Authorization: ${client.auth}\r\n` : '';
      const head = `${line} HTTP/1.1\r\nHost: ${host()}\r\n${key}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
      const answers = await Promise.all(Array.from({ length: 6 }, () => rawRequest(server.url, Buffer.concat([Buffer.from(head), body]))));
      for (const res of answers) expectErrorBody(asResult(res), status as number, { validation: status === 400 });
    },
  );
});

describe('nesting limits', () => {
  it.each([
    ['arrays', (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`],
    ['objects', (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`],
  ])('JSON %s nested 10,000 deep answer 400 naming the limit, on every operation with a body', async (_kind, nest) => {
    for (const [method, path] of [
      ['POST', '/companies'],
      ['PUT', '/profile'],
      ['POST', '/apiKeys'],
      ['POST', '/webhooks'],
    ] as const) {
      const res = await http(server, method, path, {
        auth: client.auth,
        rawBody: nest(10_000),
        headers: { 'content-type': 'application/json' },
      });
      const body = expectErrorBody(res, 400, { validation: true });
      expect(body.validation.errors[0]).toMatchObject({ itemId: 'body', validatorName: 'JsonParser' });
      expect(body.validation.errors[0].message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    }
  });

  it('nesting up to the limit is parsed (and judged by the schema), brackets inside strings do not count', async () => {
    const deep = `{"name":"Acme","tags":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`;
    const res = await http(server, 'POST', '/companies', {
      auth: client.auth,
      rawBody: deep,
      headers: { 'content-type': 'application/json' },
    });
    const body = expectErrorBody(res, 400, { validation: true });
    expect(body.validation.errors[0].itemId).toBe('tags');
    const inString = await http(server, 'POST', '/companies', {
      auth: client.auth,
      body: { name: `Acme ${'['.repeat(200)}`, description: '\\"{{{{' },
    });
    expect(inString.status, inString.text).toBe(200);
  });

  it('query groups nested past the limit answer 400 naming the limit', async () => {
    const query = `${'{'.repeat(40)}name=a${'}'.repeat(40)}`;
    const res = await http(server, 'GET', `/companies?query=${encodeURIComponent(query)}`, { auth: client.auth });
    const body = expectErrorBody(res, 400, { validation: true });
    expect(body.validation.errors[0].itemId).toBe('query');
    expect(body.validation.errors[0].message).toMatch(/nest.*32/);
  });
});

describe('paging values are decimal int32 only', () => {
  it.each(['Infinity', '1e309', '0x10', '1e3', '+1', ' 1', '01', '1.0', '-0x1', '2147483648', '99999999999999999999', '', 'NaN', '１'])(
    'page=%j answers 400 naming page',
    async (value) => {
      for (const name of ['page', 'pageSize']) {
        const res = await http(server, 'GET', `/companies?${name}=${encodeURIComponent(value)}`, { auth: client.auth });
        const body = expectErrorBody(res, 400, { validation: true });
        expect(body.validation.errors.map((e: { itemId: string }) => e.itemId)).toEqual([name]);
      }
    },
  );

  it('the largest int32 page is a 200 with no results; a page past the end too', async () => {
    for (const page of ['2147483647', '999']) {
      const res = await http(server, 'GET', `/companies?page=${page}&pageSize=5000`, { auth: client.auth });
      expect(res.status, res.text).toBe(200);
      expect(res.body.results).toEqual([]);
      expect(res.body.pageNumber).toBe(Number(page));
    }
  });

  it('other integer parameters take the same rule', async () => {
    const res = await http(server, 'GET', '/companies?page=0x2&pageSize=1e2', { auth: client.auth });
    const body = expectErrorBody(res, 400, { validation: true });
    expect(body.validation.errors.map((e: { itemId: string }) => e.itemId).sort()).toEqual(['page', 'pageSize']);
  });
});

describe('slow clients', () => {
  // The production limits are 10 s for headers and 30 s in all (HTTP_TIMEOUTS); the same code runs with shorter ones.
  let slow: TestServer;
  beforeAll(async () => {
    slow = await startTestServer({ httpTimeouts: { headersMs: 1_000, requestMs: 2_000, checkEveryMs: 200 } });
  });
  afterAll(() => slow.close());

  it('a client that never finishes its headers is answered 408 in the error body and cut off', async () => {
    const res = await rawRequest(slow.url, `GET /companies HTTP/1.1\r\nHost: x\r\nX-Slow: `, 5_000);
    expect(res.timedOut).toBe(false);
    expectErrorBody(asResult(res), 408, {
      error: 'RequestTimeoutException: The request did not arrive in time (headers within 1 s, the whole request within 2 s).',
    });
  });

  it('a client that never finishes its body is answered 408 in the error body and cut off', async () => {
    const slowClient = await slow.newClient();
    const head = `POST /companies HTTP/1.1\r\nHost: x\r\nAuthorization: ${slowClient.auth}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`;
    const res = await rawRequest(slow.url, head, 5_000);
    expect(res.timedOut).toBe(false);
    expectErrorBody(asResult(res), 408, { error: /^RequestTimeoutException/ });
    expect((await http(slow, 'GET', '/companies', { auth: slowClient.auth })).body.totalResults).toBe(0);
  });
});

describe('connections reset mid-answer', () => {
  it.each([
    ['CONNECT', (h: string) => `CONNECT ${h} HTTP/1.1\r\nHost: ${h}\r\n\r\n`],
    ['malformed HTTP', () => 'GARBAGE\r\n\r\n'],
    ['an unknown Expect', (h: string) => `GET /companies HTTP/1.1\r\nHost: ${h}\r\nExpect: x\r\n\r\n`],
  ])('%s followed at once by a reset leaves the server up', async (_name, request) => {
    for (let i = 0; i < 20; i++) {
      const socket = connect({ host: '127.0.0.1', port: Number(new URL(server.url).port) });
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(request(host()));
      socket.resetAndDestroy();
    }
    await new Promise((r) => setTimeout(r, 200));
    expect((await http(server, 'GET', '/healthz')).status).toBe(200);
  });
});
