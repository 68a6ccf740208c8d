import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http as api, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { SIGN_IN_ATTEMPTS_PER_MINUTE } from '../../src/portal/sign-in-limit.js';

/**
 * Guessing keys on the portal's sign-in form, over plain HTTP: every wrong key gets the same answer (no telling an
 * unknown key from a revoked one), and an address past 10 attempts a minute gets the sign-in page with 429, a
 * "try again in N s" and `Retry-After`, while another address still signs in.
 */

let server: TestServer;
let client: TestClient;

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient({ name: 'Limited client' });
});
afterAll(async () => server?.close());

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request from `localAddress` (any 127.x address reaches a server on 127.0.0.1, and is the client's address there). */
function request(
  localAddress: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
  to: TestServer = server,
): Promise<Answer> {
  const url = new URL(path, to.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method, headers, localAddress }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Fetches the sign-in form (its CSRF cookie and field), then posts `apiKey` with it, from `from`. */
async function signIn(from: string, apiKey: string, forwardedFor?: string, to: TestServer = server): Promise<Answer> {
  const forwarded: Record<string, string> = forwardedFor ? { 'x-forwarded-for': forwardedFor } : {};
  const form = await request(from, 'GET', '/portal/sign-in', forwarded, undefined, to);
  expect(form.status).toBe(200);
  const cookie = (form.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1];
  const body = new URLSearchParams({ _csrf: csrf, apiKey, next: '/portal/companies' }).toString();
  return request(from, 'POST', '/portal/sign-in', { ...forwarded, cookie, 'content-type': 'application/x-www-form-urlencoded' }, body, to);
}

/** The page's error notice, as a person reads it. */
const notice = (html: string) => /<div class="notice error" role="alert">([^<]*)<\/div>/.exec(html)?.[1];

describe('Portal sign-in attempts', () => {
  it('answers every wrong key alike, then refuses an address past the limit with 429 and Retry-After', async () => {
    // The limit counts per minute: start well inside one, so that every attempt below falls in the same window.
    while (Date.now() % 60_000 > 40_000) await new Promise((resolve) => setTimeout(resolve, 1000));

    const revoked = (await api(server, 'POST', '/apiKeys', { auth: client.auth, body: { name: 'to revoke' } })).body;
    expect((await api(server, 'DELETE', `/apiKeys/${revoked.id}`, { auth: client.auth })).status).toBe(204);
    // The client's key with its last character changed: one typo away from a real key.
    const typo = `${client.apiKey.slice(0, -1)}${client.apiKey.endsWith('x') ? 'y' : 'x'}`;
    const wrongKeys = ['not-a-key', revoked.apiKey, 'A'.repeat(40), typo];
    const answers: Answer[] = [];
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_MINUTE; i++) answers.push(await signIn('127.0.0.3', wrongKeys[i % wrongKeys.length]));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([401]));
    expect(new Set(answers.map((a) => notice(a.text)))).toEqual(new Set(['That API key is not valid.']));

    // Past the limit, even the right key is not looked at.
    const refused = await signIn('127.0.0.3', client.apiKey);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(retryAfter)).toBe(true);
    expect(notice(refused.text)).toBe(`Too many sign-in attempts from your address; try again in ${retryAfter} s.`);
    expect(refused.text).toContain('name="apiKey"');
    expect((refused.headers['set-cookie'] ?? []).some((c) => c.startsWith('lp_portal_session='))).toBe(false);

    // Another address is counted apart.
    const other = await signIn('127.0.0.4', client.apiKey);
    expect(other.status).toBe(303);
    expect(other.headers.location).toBe('/portal/companies');
  });
});

describe('Portal sign-in attempts behind a reverse proxy', () => {
  it('counts each client address from X-Forwarded-For with TRUST_PROXY, and ignores the header without it', async () => {
    while (Date.now() % 60_000 > 40_000) await new Promise((resolve) => setTimeout(resolve, 1000));
    // One proxy in front (TRUST_PROXY=1): every request arrives from the proxy's address, 127.0.0.5 here.
    const proxied = await startTestServer({ trustProxy: 1 });
    try {
      const proxiedClient = await proxied.newClient();
      for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_MINUTE; i++) {
        expect((await signIn('127.0.0.5', 'not-a-key', '203.0.113.7', proxied)).status).toBe(401);
      }
      expect((await signIn('127.0.0.5', proxiedClient.apiKey, '203.0.113.7', proxied)).status).toBe(429);
      // Another visitor through the same proxy is not locked out with the first.
      expect((await signIn('127.0.0.5', proxiedClient.apiKey, '198.51.100.9', proxied)).status).toBe(303);
    } finally {
      await proxied.close();
    }
    // Without TRUST_PROXY the header is anyone's to write: the connection's address counts.
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_MINUTE; i++) {
      expect((await signIn('127.0.0.6', 'not-a-key', `203.0.113.${i + 10}`)).status).toBe(401);
    }
    expect((await signIn('127.0.0.6', client.apiKey, '198.51.100.10')).status).toBe(429);
  });
});

describe('TRUST_PROXY', () => {
  it('takes a number of proxies or their addresses, and refuses anything else (true included)', async () => {
    const { loadConfig } = await import('../../src/config.js');
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.5,::1,fd00::/8' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.5',
      '::1',
      'fd00::/8',
    ]);
    for (const bad of ['true', '0', '11', 'nginx', '10.0.0.0/8;rm', '999.1.1.1', '10.0.0.0/33', '10.1', 'fd00::/129'])
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY must be the number of proxies in front/);
  });
});

describe('whose attempts count together', () => {
  it('an IPv4 address alone, an IPv6 address with the rest of its /64', async () => {
    const { addressKey } = await import('../../src/portal/sign-in-limit.js');
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });
});
