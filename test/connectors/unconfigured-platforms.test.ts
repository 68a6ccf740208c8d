import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setEnv } from '../helpers/env.js';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';

/**
 * An OAuth platform whose `<P>_CLIENT_ID` is unset is not offered: it is missing from /integrations and from the Link
 * page's choice, and a connection to it is refused. Stripe stays offered (a restricted API key needs no client id).
 */
const OAUTH = [
  { key: 'gbol', name: 'Xero', prefix: 'XERO' },
  { key: 'qhyg', name: 'QuickBooks Online', prefix: 'QBO' },
  { key: 'zsth', name: 'Square', prefix: 'SQUARE' },
];

let server: TestServer;
let client: TestClient;
let restoreEnv: () => void;

beforeAll(async () => {
  // Whatever the environment says, these start unset.
  restoreEnv = setEnv(Object.fromEntries(OAUTH.map((p) => [`${p.prefix}_CLIENT_ID`, ''])));
  server = await startTestServer();
  client = await server.newClient();
});
afterAll(async () => {
  await server?.close();
  restoreEnv?.();
});

const api = (method: string, path: string, body?: unknown) => http(server, method, path, { auth: client.auth, body });

describe('OAuth platforms without a client id', () => {
  it.each(OAUTH)('$name is not offered, nor on the Link page, and cannot be connected', async ({ key, name }) => {
    expect((await api('GET', `/integrations/${key}`)).status).toBe(404);
    const listed = (await api('GET', '/integrations?pageSize=100')).body.results.map((p: { key: string }) => p.key);
    expect(listed).not.toContain(key);
    expect(listed).toContain('exgd');
    const company = (await api('POST', '/companies', { name: `Without ${name}` })).body;
    const refused = await api('POST', `/companies/${company.id}/connections`, { platformKey: key });
    expect(refused.status, refused.text).toBe(400);
    const start = await fetch(`${server.url}/link/company/${company.id}`, { redirect: 'follow' });
    const page = await start.text();
    expect(page).toContain('Stripe');
    expect(page).not.toContain(`value="${key}"`);
  });
});
