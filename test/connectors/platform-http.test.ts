import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { platformRequest, type PlatformEndpoint } from '../../src/connectors/platform-http.js';
import { ConnectorError } from '../../src/connectors/connector-error.js';
import { declarePlatform } from '../../src/connectors/platform-declaration.js';
import { HLEDGER } from '../../src/connectors/hledger/platform.js';

/** The transport every live connector shares, against a real HTTP server of the test's own. */
let server: http.Server;
let base: string;
let inFlight = 0;
/** Whether a 429 asks for two minutes (more than a read waits) instead of none. */
let longRetry = false;
let maxInFlight = 0;
const started: number[] = [];
const script = new Map<string, number[]>(); // path -> statuses to answer in turn (then 200)

beforeAll(async () => {
  server = http.createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    started.push(Date.now());
    const queue = script.get(req.url ?? '') ?? [];
    const status = queue.shift() ?? 200;
    setTimeout(() => {
      inFlight--;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (status === 429) headers['retry-after'] = longRetry ? '120' : '0';
      res.writeHead(status, headers).end(JSON.stringify({ path: req.url, auth: req.headers.authorization ?? null }));
    }, 40);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const endpoint = (extra: Partial<PlatformEndpoint> = {}): PlatformEndpoint => ({
  platform: 'Example',
  baseUrl: base,
  allowPrivate: true,
  backoffMs: 10,
  ...extra,
});

describe('platformRequest', () => {
  it('keeps to the account limits: at most maxConcurrent in flight, at most `requests` per window', async () => {
    maxInFlight = 0;
    started.length = 0;
    const politeness = { maxConcurrent: 2, requests: 4, windowMs: 400 };
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => platformRequest(endpoint({ politeness }), 'GET', `/p${i}`)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(maxInFlight).toBe(2);
    // The fifth and sixth waited for the first requests to leave the 400 ms window.
    const sorted = [...started].sort((a, b) => a - b);
    expect(sorted[4] - sorted[0]).toBeGreaterThanOrEqual(390);
  });

  it('retries a 5xx with backoff, then says the platform did not answer', async () => {
    script.set('/flaky', [503, 502]);
    expect((await platformRequest(endpoint(), 'GET', '/flaky')).status).toBe(200);
    script.set('/down', [500, 500, 500]);
    const err = await platformRequest(endpoint(), 'GET', '/down').catch((e) => e);
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err).toMatchObject({ kind: 'unavailable', message: `Example at ${base} did not answer: HTTP 500` });
  });

  it('waits out a 429 and goes on; 401 is unauthorized, and credentials never reach a message', async () => {
    script.set('/busy', [429, 429]);
    expect((await platformRequest(endpoint(), 'GET', '/busy')).status).toBe(200);
    script.set('/later', [429]);
    longRetry = true;
    const limited = await platformRequest(endpoint(), 'GET', '/later').catch((e) => e);
    longRetry = false;
    expect(limited).toMatchObject({
      kind: 'rate-limited',
      retryAfterMs: 120_000,
      message: `Example at ${base} is limiting requests (HTTP 429); retrying in 120 s`,
    });
    script.set('/locked', [401]);
    const err = await platformRequest(endpoint({ basicAuth: { username: 'u', password: 'hunter2' } }), 'GET', '/locked').catch((e) => e);
    expect(err).toMatchObject({ kind: 'unauthorized' });
    expect(err.message).not.toContain('hunter2');
  });

  it('refuses loopback addresses unless allowed', async () => {
    const err = await platformRequest(endpoint({ allowPrivate: false }), 'GET', '/x').catch((e) => e);
    expect(err).toMatchObject({
      kind: 'refused-address',
      message: expect.stringMatching(/127\.0\.0\.1 is a loopback address; set CONNECTORS_ALLOW_PRIVATE=true/),
    });
    const unreachable = await platformRequest({ ...endpoint(), baseUrl: 'http://127.0.0.1:9', attempts: 2 }, 'GET', '/x').catch((e) => e);
    expect(unreachable).toMatchObject({
      kind: 'unavailable',
      message: expect.stringMatching(/^Example at http:\/\/127\.0\.0\.1:9 did not answer: .*ECONNREFUSED/),
    });
  });
});

describe('platform declarations', () => {
  it('accepts the hledger declaration and refuses a broken one, listing every problem', () => {
    expect(declarePlatform(HLEDGER)).toBe(HLEDGER);
    const broken = {
      ...HLEDGER,
      key: 'HLDG',
      transport: { ...HLEDGER.transport, retry: { attempts: 0, backoffMs: 1, retryAfterHeader: 'x' } },
      dataTypes: { invoicez: { cursor: 'none' } },
    };
    expect(() => declarePlatform(broken as never)).toThrow(
      /"HLDG" is invalid:\n {2}\/key: .*\n {2}\/transport\/retry\/attempts: .*\n {2}\/dataTypes\/invoicez: not a data type/,
    );
  });
});
