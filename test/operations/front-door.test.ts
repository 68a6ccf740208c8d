import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestServer } from '../helpers/test-server.js';
import { FAVICON_SVG } from '../../src/operations/front-door.routes.js';
import { UNAUTHORIZED_MESSAGE } from '../../src/access/request-guard.js';

/** What a person's browser finds at the server's address: the way to the portal, and one icon on every page. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('the front door', () => {
  it('sends / to the portal, without a key, even to a browser that asks for HTML', async () => {
    for (const accept of ['text/html', '*/*']) {
      const res = await fetch(`${server.url}/`, { redirect: 'manual', headers: { accept } });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/portal');
    }
    // Followed, it ends on the sign-in page.
    const followed = await fetch(`${server.url}/`);
    expect(followed.url).toBe(`${server.url}/portal/sign-in?next=%2Fportal`);
    expect(followed.status).toBe(200);
  });

  it('serves one favicon, and every kind of page links to it', async () => {
    for (const path of ['/favicon.ico', '/favicon.svg']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/svg+xml');
      expect(await res.text()).toBe(FAVICON_SVG);
    }
    const client = await server.newClient();
    const company = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name: 'Icon Ltd' } })).body;
    for (const page of ['/portal/sign-in', '/docs', '/docs/errors', `/link/company/${company.id}`]) {
      const html = await (await fetch(`${server.url}${page}`)).text();
      expect(html, page).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    }
  });

  it("documents the 401's text on /docs/errors", async () => {
    const html = await (await fetch(`${server.url}/docs/errors`)).text();
    expect(html).toContain(UNAUTHORIZED_MESSAGE.replace(/</g, '&lt;').replace(/>/g, '&gt;'));
  });
});
