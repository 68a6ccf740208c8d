import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { registerConnector } from '../../src/connectors/registry.js';
import { ConnectorError } from '../../src/connectors/connector-error.js';
import type { Connector } from '../../src/connectors/connector.js';
import { accountingSandbox } from '../../src/connectors/sandbox/accounting/index.js';
import { createCredentialsStore } from '../../src/connections/credentials.store.js';
import { loadSecretKeys } from '../../src/secrets/secret-keys.js';
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

const platform: Connector = {
  info: { key: 'toau', name: 'OAuth Books', sourceType: 'Banking', dataTypes: [], brandColour: '#123456' },
  authorization: { kind: 'oauth2' },
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
      return { settings: { tenant: 'acme' }, credentials: tokens };
    },
  },
  async revoke({ credentials }) {
    const res = await fetch(`${vendorUrl}/revoke`, {
      method: 'POST',
      body: new URLSearchParams({ token: String(credentials.refresh_token) }),
    });
    if (res.status !== 200) throw new ConnectorError('unavailable', `OAuth Books did not revoke (HTTP ${res.status})`);
  },
  dataTypes: new Map(),
};
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
