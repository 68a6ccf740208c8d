import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { registerConnector } from '../../src/connectors/registry.js';
import { ConnectorError } from '../../src/connectors/connector-error.js';
import { declarePlatform } from '../../src/connectors/platform-declaration.js';
import { platformConnector } from '../../src/connectors/platform-connector.js';
import { accountingSandbox } from '../../src/connectors/sandbox/accounting/index.js';
import { createCredentialsStore } from '../../src/connections/credentials.store.js';
import { loadSecretKeys } from '../../src/secrets/secret-keys.js';
import { oauthTokenSource } from '../../src/connections/oauth-tokens.js';
import { http as api, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { companyWithConnection } from '../helpers/sandbox.js';

/**
 * The OAuth2 plumbing every OAuth platform shares (state, PKCE, the one callback, the outcomes), with a platform
 * of the test's own and a small authorization server standing in for the vendor's.
 */
let vendor: http.Server;
let vendorUrl: string;
/** What the vendor's consent page does: grant, or refuse as a user pressing "Deny" would. */
let consent: 'grant' | 'deny' = 'grant';
const issued = new Map<string, { challenge: string; redirectUri: string }>();
/** Tokens the vendor was asked to revoke. */
const revoked: string[] = [];
/** How many organisations the consent covers; several: the end user picks one on a Link page. */
let organisations = 1;
/** Refresh grants the vendor answered, and what it answers them with. */
let refreshes = 0;
let refreshAnswer: 'rotate' | 'invalid_grant' | 'down' = 'rotate';
let configured = true;

const declaration = declarePlatform({
  key: 'toau',
  name: 'OAuth Books',
  sourceType: 'Banking',
  brandColour: '#123456',
  authorization: { kind: 'oauth2' },
  dataTypes: {},
});
const platform = platformConnector(declaration, {
  oauth2: {
    authorizeUrl: ({ state, redirectUri, codeChallenge }) =>
      `${vendorUrl}/authorize?${new URLSearchParams({ state, redirect_uri: redirectUri, code_challenge: codeChallenge, code_challenge_method: 'S256' })}`,
    async exchange({ code, redirectUri, codeVerifier }) {
      const res = await fetch(`${vendorUrl}/token`, {
        method: 'POST',
        body: new URLSearchParams({ code, redirect_uri: redirectUri, code_verifier: codeVerifier }),
      });
      if (res.status !== 200) throw new ConnectorError('unauthorized', `OAuth Books refused the code (HTTP ${res.status})`);
      const tokens = (await res.json()) as Record<string, unknown>;
      const credentials = { ...tokens, accessToken: String(tokens.access_token) };
      if (organisations === 1) return { settings: { tenant: 'acme' }, credentials };
      const choices = Array.from({ length: organisations }, (_, i) => ({
        id: `org-${i + 1}`,
        name: `Org ${i + 1}`,
        settings: { tenant: `org-${i + 1}` },
      }));
      return { choices, credentials };
    },
    async refresh({ credentials }) {
      const res = await fetch(`${vendorUrl}/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(credentials.refreshToken) }),
      });
      if (res.status === 400) throw new ConnectorError('unauthorized', 'OAuth Books refused the refresh token (invalid_grant)');
      if (res.status !== 200) throw new ConnectorError('unavailable', `OAuth Books did not refresh (HTTP ${res.status})`);
      const tokens = (await res.json()) as { access_token: string; refresh_token: string; expires_in: number };
      return {
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token,
        expiresAt: new Date(Date.now() + tokens.expires_in * 1000).toISOString(),
      };
    },
    configured: () => configured,
  },
  async revoke({ credentials }) {
    const res = await fetch(`${vendorUrl}/revoke`, {
      method: 'POST',
      body: new URLSearchParams({ token: String(credentials.refresh_token) }),
    });
    if (res.status !== 200) throw new ConnectorError('unavailable', `OAuth Books did not revoke (HTTP ${res.status})`);
  },
  dataTypes: new Map(),
});
void accountingSandbox;
registerConnector(platform);

let server: TestServer;
let client: TestClient;

beforeAll(async () => {
  vendor = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://vendor');
    if (url.pathname === '/authorize') {
      const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
      redirect.searchParams.set('state', url.searchParams.get('state') ?? '');
      if (consent === 'deny') redirect.searchParams.set('error', 'access_denied');
      else {
        const code = `code-${issued.size + 1}`;
        issued.set(code, {
          challenge: url.searchParams.get('code_challenge') ?? '',
          redirectUri: url.searchParams.get('redirect_uri') ?? '',
        });
        redirect.searchParams.set('code', code);
      }
      res.writeHead(302, { location: redirect.toString() }).end();
      return;
    }
    if (url.pathname === '/revoke' && req.method === 'POST') {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        revoked.push(new URLSearchParams(body).get('token') ?? '');
        res.writeHead(200).end();
      });
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        if (form.get('grant_type') === 'refresh_token') {
          refreshes++;
          if (refreshAnswer === 'down') return void res.writeHead(503).end();
          if (refreshAnswer === 'invalid_grant')
            return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
          // Slow enough that callers asking at once overlap.
          setTimeout(
            () =>
              res
                .writeHead(200, { 'content-type': 'application/json' })
                .end(JSON.stringify({ access_token: `at-${refreshes}`, refresh_token: `rt-${refreshes}`, expires_in: 1800 })),
            100,
          );
          return;
        }
        const grant = issued.get(form.get('code') ?? '');
        issued.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const ok =
          grant &&
          grant.redirectUri === form.get('redirect_uri') &&
          createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
        if (!ok) return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: 'at-secret', refresh_token: 'rt-secret', expires_in: 1800 }));
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => vendor.listen(0, '127.0.0.1', resolve));
  vendorUrl = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;
  server = await startTestServer();
  client = await server.newClient();
});
afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => vendor.close(resolve));
});

async function linkUrlOf(companyId: string, connectionId: string): Promise<string> {
  return (await api(server, 'GET', `/companies/${companyId}/connections/${connectionId}`, { auth: client.auth })).body.linkUrl;
}

describe('OAuth2 link flow', () => {
  it("follows the linkUrl to the platform's consent and back, linking with no page to click through", async () => {
    const { companyId, connectionId } = await companyWithConnection(server, client, 'toau');
    const first = await fetch(await linkUrlOf(companyId, connectionId), { redirect: 'manual' });
    expect(first.status).toBe(303);
    const consentUrl = new URL(first.headers.get('location') ?? '');
    expect(consentUrl.origin).toBe(vendorUrl);
    expect(consentUrl.searchParams.get('redirect_uri')).toBe(`${server.url}/link/oauth/callback`);
    expect(consentUrl.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // A client that follows redirects ends on the finish page, linked.
    const end = await fetch(consentUrl, { redirect: 'follow' });
    expect(end.status).toBe(200);
    expect(await end.text()).toContain('OAuth Books is now connected');
    const connection = (await api(server, 'GET', `/companies/${companyId}/connections/${connectionId}`, { auth: client.auth })).body;
    expect(connection.status).toBe('Linked');
    expect(JSON.stringify(connection)).not.toMatch(/at-secret|rt-secret/);
    // The tokens are kept, sealed.
    const keys = loadSecretKeys(server.databaseUrl);
    expect(await createCredentialsStore(keys).load(server.store.db, client.clientId, connectionId)).toEqual({
      access_token: 'at-secret',
      refresh_token: 'rt-secret',
      expires_in: 1800,
      accessToken: 'at-secret',
    });
    // The state was used up: the same redirect again is refused.
    const callback = new URL(`${server.url}/link/oauth/callback`);
    callback.searchParams.set('state', consentUrl.searchParams.get('state') ?? '');
    callback.searchParams.set('code', 'code-1');
    expect((await fetch(callback)).status).toBe(400);
  });

  it('refused consent and a forged state leave the connection PendingAuth', async () => {
    const { companyId, connectionId } = await companyWithConnection(server, client, 'toau');
    consent = 'deny';
    try {
      const end = await fetch(await linkUrlOf(companyId, connectionId), { redirect: 'follow' });
      expect(await end.text()).toContain('You cancelled connecting OAuth Books');
    } finally {
      consent = 'grant';
    }
    const forged = await fetch(`${server.url}/link/oauth/callback?state=forged&code=code-x`);
    expect(forged.status).toBe(400);
    expect((await api(server, 'GET', `/companies/${companyId}/connections/${connectionId}`, { auth: client.auth })).body.status).toBe(
      'PendingAuth',
    );
  });

  it("revokes the platform's tokens when the connection, or its company, is deleted", async () => {
    for (const via of ['connection', 'company'] as const) {
      const { companyId, connectionId } = await companyWithConnection(server, client, 'toau');
      await fetch(await linkUrlOf(companyId, connectionId), { redirect: 'follow' });
      revoked.length = 0;
      const path = via === 'connection' ? `/companies/${companyId}/connections/${connectionId}` : `/companies/${companyId}`;
      expect((await api(server, 'DELETE', path, { auth: client.auth })).status).toBeLessThan(300);
      expect(revoked, via).toEqual(['rt-secret']);
      expect(
        await server.store.db
          .selectFrom('connection_credentials')
          .select('connection_id')
          .where('connection_id', '=', connectionId)
          .execute(),
      ).toEqual([]);
    }
  });

  it('still deletes a connection whose credentials no configured key opens (nothing to revoke with)', async () => {
    const { companyId, connectionId } = await companyWithConnection(server, client, 'toau');
    await fetch(await linkUrlOf(companyId, connectionId), { redirect: 'follow' });
    // As if LEDGERPORT_SECRET_KEY had been replaced without rotating: the sealed value names a key this server lacks.
    const row = await server.store.db
      .selectFrom('connection_credentials')
      .select('sealed')
      .where('connection_id', '=', connectionId)
      .executeTakeFirstOrThrow();
    const parts = row.sealed.split('.');
    parts[1] = '00000000';
    await server.store.db
      .updateTable('connection_credentials')
      .set({ sealed: parts.join('.') })
      .where('connection_id', '=', connectionId)
      .execute();
    revoked.length = 0;
    const res = await api(server, 'DELETE', `/companies/${companyId}/connections/${connectionId}`, { auth: client.auth });
    expect(res.status, res.text).toBe(200);
    expect(revoked).toEqual([]);
    expect(
      await server.store.db
        .selectFrom('connection_credentials')
        .select('connection_id')
        .where('connection_id', '=', connectionId)
        .execute(),
    ).toEqual([]);
  });
});

describe('OAuth2 consent covering several organisations', () => {
  it('lets the end user pick one on a Link page, and links the connection to it', async () => {
    const { companyId, connectionId } = await companyWithConnection(server, client, 'toau');
    organisations = 3;
    let page: Response;
    try {
      page = await fetch(await linkUrlOf(companyId, connectionId), { redirect: 'follow' });
    } finally {
      organisations = 1;
    }
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Choose an organisation');
    for (const name of ['Org 1', 'Org 2', 'Org 3']) expect(html).toContain(name);
    expect(html).not.toMatch(/at-secret|rt-secret/);
    const choice = /name="choice" value="([^"]+)"/.exec(html)?.[1] ?? '';
    const action = new URL(page.url).pathname;
    // A choice not offered is refused with the page again; the pick links the connection to that organisation.
    const wrong = await fetch(`${server.url}${action}`, {
      method: 'POST',
      body: new URLSearchParams({ choice, organisation: 'org-9', action: 'connect' }),
      redirect: 'manual',
    });
    expect(wrong.status).toBe(400);
    const end = await fetch(`${server.url}${action}`, {
      method: 'POST',
      body: new URLSearchParams({ choice, organisation: 'org-2', action: 'connect' }),
      redirect: 'follow',
    });
    expect(await end.text()).toContain('OAuth Books is now connected');
    const row = await server.store.db
      .selectFrom('connections')
      .select(['status', 'settings'])
      .where('id', '=', connectionId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('Linked');
    expect(JSON.parse(row.settings ?? '{}')).toEqual({ tenant: 'org-2' });
    // The choice is used up.
    const again = await fetch(`${server.url}${action}?choice=${encodeURIComponent(choice)}`);
    expect(again.status).toBe(404);
  });
});

describe('OAuth2 token refresh', () => {
  async function linked() {
    const { companyId, connectionId } = await companyWithConnection(server, client, 'toau');
    await fetch(await linkUrlOf(companyId, connectionId), { redirect: 'follow' });
    const credentials = createCredentialsStore(loadSecretKeys(server.databaseUrl));
    const source = oauthTokenSource(
      { db: server.store.db, credentials, allowPrivate: true },
      { clientId: client.clientId, connectionId },
      platform.oauth2!,
    );
    // As if the token had been issued half an hour ago.
    await server.store.db
      .transaction()
      .execute((trx) =>
        credentials.save(
          trx,
          client.clientId,
          { companyId, connectionId },
          { accessToken: 'at-old', refreshToken: 'rt-old', expiresAt: new Date(Date.now() + 60_000).toISOString() },
          new Date().toISOString(),
        ),
      );
    return { connectionId, credentials, source };
  }

  it('refreshes a token near its expiry once for callers asking at once, and saves the rotated token before use', async () => {
    const { connectionId, credentials, source } = await linked();
    const before = refreshes;
    const tokens = await Promise.all(Array.from({ length: 10 }, () => source.accessToken()));
    expect(refreshes - before).toBe(1);
    expect(new Set(tokens)).toEqual(new Set([`at-${refreshes}`]));
    const saved = await credentials.load(server.store.db, client.clientId, connectionId);
    expect(saved).toMatchObject({ accessToken: `at-${refreshes}`, refreshToken: `rt-${refreshes}` });
    // A fresh token is handed out as it is; one the platform refused is refreshed (once, however many saw it refused).
    expect(await source.accessToken()).toBe(`at-${refreshes}`);
    expect(refreshes - before).toBe(1);
    const refused = `at-${refreshes}`;
    const after = await Promise.all([source.accessToken(refused), source.accessToken(refused)]);
    expect(refreshes - before).toBe(2);
    expect(after).toEqual([`at-${refreshes}`, `at-${refreshes}`]);
  });

  it('cools down after a refresh the platform did not answer, and reports invalid_grant as unauthorized', async () => {
    const { source } = await linked();
    refreshAnswer = 'down';
    try {
      const before = refreshes;
      await expect(source.accessToken()).rejects.toMatchObject({ kind: 'unavailable' });
      // Within the cooldown the platform is not asked again.
      await expect(source.accessToken()).rejects.toMatchObject({
        kind: 'unavailable',
        message: expect.stringMatching(/next attempt is after/),
      });
      expect(refreshes - before).toBe(1);
    } finally {
      refreshAnswer = 'rotate';
    }
    const revokedOne = await linked();
    refreshAnswer = 'invalid_grant';
    try {
      await expect(revokedOne.source.accessToken()).rejects.toMatchObject({ kind: 'unauthorized' });
    } finally {
      refreshAnswer = 'rotate';
    }
  });
});

describe('an OAuth2 platform without a client id', () => {
  it('is missing from /integrations and cannot be connected', async () => {
    configured = false;
    const other = await startTestServer();
    try {
      const otherClient = await other.newClient();
      expect((await api(other, 'GET', '/integrations/toau', { auth: otherClient.auth })).status).toBe(404);
      const company = await api(other, 'POST', '/companies', { auth: otherClient.auth, body: { name: 'Hidden' } });
      const res = await api(other, 'POST', `/companies/${company.body.id}/connections`, {
        auth: otherClient.auth,
        body: { platformKey: 'toau' },
      });
      expect(res.status).toBe(400);
      const page = await fetch(`${other.url}/link/company/${company.body.id}`);
      expect(await page.text()).not.toContain('OAuth Books');
    } finally {
      configured = true;
      await other.close();
    }
  });
});
