import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { expectErrorBody } from '../helpers/error-body.js';

/**
 * The portal's sessions over plain HTTP: sign-in turns an API key into a cookie, every page needs the session,
 * every form its CSRF token, and a revoked key ends its sessions. (The browser test drives the pages themselves.)
 */

let server: TestServer;
let client: TestClient;

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient({ name: 'Portal client' });
});
afterAll(async () => server?.close());

/** A browser's cookie jar, reduced to what the portal sets. */
class Browser {
  cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  async request(
    method: string,
    path: string,
    options: { form?: Record<string, string | string[]>; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (options.form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(options.form)) for (const one of [v].flat()) params.append(k, one);
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(`${this.base}${path}`, { method, headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair.split('=');
      if (/Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const json = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined;
    return { status: res.status, headers: res.headers, text, body: json };
  }

  /** The CSRF token of the first form on a page. */
  static csrfOf(html: string): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(html);
    if (!m) throw new Error('no CSRF field on the page');
    return m[1];
  }

  async signIn(apiKey: string) {
    const form = await this.request('GET', '/portal/sign-in');
    expect(form.status).toBe(200);
    return this.request('POST', '/portal/sign-in', { form: { _csrf: Browser.csrfOf(form.text), apiKey, next: '/portal/companies' } });
  }
}

describe('Portal sessions', () => {
  it('redirects every page to sign-in without a session, and refuses JSON and forms with 403', async () => {
    const b = new Browser(server.url);
    for (const path of ['/portal', '/portal/companies', '/portal/webhooks', '/portal/settings', '/portal/keys', '/portal/companies/x']) {
      const res = await b.request('GET', path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get('location'), path).toMatch(/^\/portal\/(sign-in|companies)/);
    }
    const page = await b.request('GET', '/portal/companies?search=a');
    expect(page.headers.get('location')).toBe(`/portal/sign-in?next=${encodeURIComponent('/portal/companies?search=a')}`);

    // JSON (chart data) without a session: the error body.
    const json = await http(server, 'GET', '/portal/api/usage');
    expectErrorBody(json, 403, { error: /no live session/ });
    // A form without a session: a page, not a redirect that would lose what was sent.
    const form = await b.request('POST', '/portal/companies', { form: { name: 'Nope' } });
    expect(form.status).toBe(403);
    expect(form.headers.get('content-type')).toMatch(/^text\/html/);
    expect(form.text).toContain('no live session');
    // And an API key is no portal session.
    const withKey = await http(server, 'GET', '/portal/api/usage', { auth: client.auth });
    expect(withKey.status).toBe(403);
  });

  it('signs in with an API key: an HttpOnly, SameSite=Strict cookie that is not the key', async () => {
    const b = new Browser(server.url);
    const form = await b.request('GET', '/portal/sign-in');
    const res = await b.request('POST', '/portal/sign-in', { form: { _csrf: Browser.csrfOf(form.text), apiKey: client.apiKey } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/portal/companies');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('lp_portal_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Path=\/portal/);
    expect(cookie).not.toContain(client.apiKey);
    const rows = await server.store.db.selectFrom('portal_sessions').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(client.apiKey);
    const page = await b.request('GET', '/portal/companies');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Portal client');
    expect(page.text).not.toContain(client.apiKey);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('refuses a wrong key, and a sign-in form posted without its CSRF cookie', async () => {
    const b = new Browser(server.url);
    const wrong = await b.signIn('not-a-key');
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('That API key is not valid.');
    const forged = await new Browser(server.url).request('POST', '/portal/sign-in', { form: { _csrf: 'forged', apiKey: client.apiKey } });
    expect(forged.status).toBe(403);
    expect(forged.text).toMatch(/CSRF/);
  });

  it('refuses a form with a wrong or missing CSRF token: a page for HTML, the error body for JSON', async () => {
    const b = new Browser(server.url);
    expect((await b.signIn(client.apiKey)).status).toBe(303);
    const page = await b.request('GET', '/portal/companies');
    const csrf = Browser.csrfOf(page.text);

    const missing = await b.request('POST', '/portal/companies', { form: { name: 'No token' } });
    expect(missing.status).toBe(403);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    expect(missing.text).toMatch(/CSRF token mismatch/);

    const wrong = await b.request('POST', '/portal/companies', { form: { name: 'Wrong token', _csrf: `${csrf}x` } });
    expect(wrong.status).toBe(403);

    const json = await b.request('POST', '/portal/companies', {
      form: { name: 'Wrong token', _csrf: 'nope' },
      headers: { accept: 'application/json' },
    });
    expectErrorBody({ ...json, body: json.body }, 403, { error: /CSRF token mismatch/ });

    // Nothing was created by the refused forms; the right token creates.
    const list = await http(server, 'GET', '/companies', { auth: client.auth });
    expect(list.body.results.map((c: { name: string }) => c.name)).not.toContain('Wrong token');
    const ok = await b.request('POST', '/portal/companies', { form: { name: 'Right token', _csrf: csrf } });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toMatch(/^\/portal\/companies\/[0-9a-f-]{36}\?done=created$/);
  });

  it('refuses every form of the portal without its CSRF token, before it acts', async () => {
    const b = new Browser(server.url);
    expect((await b.signIn(client.apiKey)).status).toBe(303);
    const companyId = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Kept Ltd' } })).body.id;
    const keyId = (await http(server, 'GET', '/apiKeys', { auth: client.auth })).body.results[0].id;
    const id = '00000000-0000-4000-8000-000000000000';
    const forms = [
      '/portal/companies',
      `/portal/companies/${companyId}/delete`,
      `/portal/companies/${companyId}/connections`,
      `/portal/companies/${companyId}/connections/${id}/unlink`,
      `/portal/companies/${companyId}/sync`,
      '/portal/webhooks',
      `/portal/webhooks/${id}/disable`,
      `/portal/webhooks/${id}/enable`,
      `/portal/webhooks/${id}/delete`,
      `/portal/webhooks/${id}/deliveries/${id}/replay`,
      '/portal/settings/profile',
      '/portal/settings/sync',
      '/portal/keys',
      `/portal/keys/${keyId}/revoke`,
      '/portal/sign-out',
    ];
    for (const path of forms) {
      const res = await b.request('POST', path, { form: { name: 'Forged', _csrf: 'forged' } });
      expect(res.status, path).toBe(403);
      expect(res.text, path).toMatch(/CSRF token mismatch/);
    }
    // Nothing moved: the company and the key are there, and the session still works.
    expect((await http(server, 'GET', `/companies/${companyId}`, { auth: client.auth })).status).toBe(200);
    expect(
      (await http(server, 'GET', '/companies', { auth: client.auth })).body.results.map((c: { name: string }) => c.name),
    ).not.toContain('Forged');
    expect((await b.request('GET', '/portal/keys')).status).toBe(200);
  });

  it('ends the session when its key is revoked, and on sign-out', async () => {
    const second = await http(server, 'POST', '/apiKeys', { auth: client.auth, body: { name: 'short-lived' } });
    expect(second.status).toBe(201);
    const b = new Browser(server.url);
    expect((await b.signIn(second.body.apiKey)).status).toBe(303);
    expect((await b.request('GET', '/portal/keys')).status).toBe(200);
    expect((await http(server, 'DELETE', `/apiKeys/${second.body.id}`, { auth: client.auth })).status).toBe(204);
    const after = await b.request('GET', '/portal/keys');
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toMatch(/^\/portal\/sign-in/);

    const c = new Browser(server.url);
    await c.signIn(client.apiKey);
    const page = await c.request('GET', '/portal/companies');
    const token = c.cookies.get('lp_portal_session');
    const out = await c.request('POST', '/portal/sign-out', { form: { _csrf: Browser.csrfOf(page.text) } });
    expect(out.status).toBe(303);
    expect(c.cookies.has('lp_portal_session')).toBe(false);
    // The old cookie no longer opens anything, even if kept.
    const replayed = await fetch(`${server.url}/portal/companies`, {
      redirect: 'manual',
      headers: { cookie: `lp_portal_session=${token}` },
    });
    expect(replayed.status).toBe(303);
  });

  it('follows only portal paths after sign-in (no open redirect)', async () => {
    const b = new Browser(server.url);
    const form = await b.request('GET', '/portal/sign-in?next=https://evil.example/');
    expect(form.text).toContain('value="/portal/companies"');
    const res = await b.request('POST', '/portal/sign-in', {
      form: { _csrf: Browser.csrfOf(form.text), apiKey: client.apiKey, next: '//evil.example/' },
    });
    expect(res.headers.get('location')).toBe('/portal/companies');
  });

  it('counts API requests and 429s per hour for the usage chart, not portal requests', async () => {
    const limited = await server.newClient({ name: 'Limited' });
    await server.store.db.updateTable('clients').set({ burst_limit: 1 }).where('id', '=', limited.clientId).execute();
    const answers = await Promise.all(Array.from({ length: 6 }, () => http(server, 'GET', '/companies', { auth: limited.auth })));
    const refused = answers.filter((a) => a.status === 429).length;
    expect(refused).toBeGreaterThan(0);
    const b = new Browser(server.url);
    await b.signIn(limited.apiKey);
    const usage = await b.request('GET', '/portal/api/usage', { headers: { accept: 'application/json' } });
    expect(usage.status).toBe(200);
    expect(usage.body.labels).toHaveLength(48);
    const [requests, refusals] = usage.body.datasets.map((d: { data: number[] }) => d.data.reduce((s, n) => s + n, 0));
    expect(requests).toBe(6);
    expect(refusals).toBe(refused);
  });
});

describe('Portal pages given a parameter twice', () => {
  it('read the first one, as a browser form sends only one, rather than failing', async () => {
    const browser = new Browser(server.url);
    expect((await browser.signIn(client.apiKey)).status).toBe(303);
    const company = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Twice Ltd' } })).body;
    for (const path of [
      '/portal/companies?search=Twice&search=Other&page=1&page=2',
      `/portal/companies/${company.id}/data/invoices?query=status%3DPaid&query=x&orderBy=a&orderBy=b&page=1&page=2`,
      `/portal/companies/${company.id}/financials/profitAndLoss?periodLength=3&periodLength=1&periodsToCompare=2&periodsToCompare=x`,
    ]) {
      const res = await browser.request('GET', path);
      expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
    }
    const signIn = await new Browser(server.url).request(
      'GET',
      '/portal/sign-in?next=%2Fportal%2Fcompanies&next=https%3A%2F%2Fevil.example',
    );
    expect(signIn.status).toBe(200);
    expect(signIn.text).not.toContain('evil.example');
  });
});
