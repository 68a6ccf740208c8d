import { afterAll, describe, expect, it } from 'vitest';
import { hledger } from '../../src/connectors/hledger/index.js';
import { HLEDGER } from '../../src/connectors/hledger/platform.js';
import { platformConnector } from '../../src/connectors/platform-connector.js';
import { XERO } from '../../src/connectors/xero/platform.js';
import { xero } from '../../src/connectors/xero/index.js';
import { withDeclared } from '../helpers/declared.js';
import { companyWithConnection } from '../helpers/sandbox.js';
import { http, startTestServer } from '../helpers/test-server.js';

/*
 * A platform's identity and its way in are read from its declaration: a server started with them changed offers the
 * platform as declared (its key, name, kind, colour and the form the Link page shows), and a declaration the code
 * cannot honour (a way in, a hook) stops the start.
 */

const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

/** A platform's code without what platformConnector adds, to register it again against a changed declaration. */
function codeOf<C extends { info: unknown; declaration: unknown }>(connector: C): Omit<C, 'info' | 'declaration'> {
  const { info: _info, declaration: _declaration, ...code } = connector;
  return code;
}

describe("a platform's declared identity", () => {
  it('offers the platform under the declared key, name, source type and colour, with the declared form on the Link page', async () => {
    const changes = {
      key: 'hldx',
      name: 'Plain-text books',
      sourceType: 'Banking',
      brandColour: '#abcdef',
      'authorization.fields': [
        { name: 'address', label: 'Where the books answer', type: 'text', required: true, hint: 'Ask your bookkeeper' },
        { name: 'secret', label: 'Pass phrase', type: 'password', required: false },
      ],
    };
    await withDeclared(HLEDGER, changes, async () => {
      const server = await startTestServer();
      servers.push(server);
      const client = await server.newClient();
      const offered = await http(server, 'GET', '/integrations/hldx', { auth: client.auth });
      expect(offered.status, offered.text).toBe(200);
      expect(offered.body).toMatchObject({ key: 'hldx', name: 'Plain-text books', sourceType: 'Banking' });
      expect((await http(server, 'GET', '/integrations/hldg', { auth: client.auth })).status).toBe(404);
      const logo = await fetch(offered.body.logoUrl);
      expect(await logo.text()).toContain('fill="#abcdef"');

      const linked = await companyWithConnection(server, client, 'hldx');
      const connection = await http(server, 'GET', `/companies/${linked.companyId}/connections/${linked.connectionId}`, {
        auth: client.auth,
      });
      const page = await (await fetch(connection.body.linkUrl, { redirect: 'follow' })).text();
      expect(page).toMatch(/<input id="field-address" name="address" type="text"[^>]* required/);
      expect(page).toMatch(/<input id="field-secret" name="secret" type="password"/);
      expect(page).not.toMatch(/<input id="field-secret"[^>]* required/);
      expect(page).toContain('Where the books answer');
      expect(page).toContain('Ask your bookkeeper');
      expect(page).not.toContain('name="url"');
    });
  });

  it('stops the start when the declared way in or a declared hook has no code behind it', async () => {
    await withDeclared(HLEDGER, { 'authorization.kind': 'oauth2' }, async () => {
      expect(() => platformConnector(HLEDGER, codeOf(hledger))).toThrow(/authorization: declared oauth2, but the code has no OAuth flow/);
    });
    await withDeclared(XERO, { hooks: { instant: 'Xero times', pageRequest: 'no such language' } }, async () => {
      expect(() => platformConnector(XERO, codeOf(xero))).toThrow(/hooks.pageRequest: declared, but the code registers no such hook/);
    });
    await withDeclared(XERO, { hooks: {} }, async () => {
      expect(() => platformConnector(XERO, codeOf(xero))).toThrow(/hooks.instant: registered by the code, but not declared/);
    });
    // As declared, both register.
    expect(platformConnector(HLEDGER, codeOf(hledger)).info.key).toBe('hldg');
    expect(platformConnector(XERO, codeOf(xero)).info.name).toBe('Xero');
  });
});
