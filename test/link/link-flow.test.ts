import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionDoc } from '../../src/connections/connection-doc.js';
import { setMaintenance } from '../../src/access/maintenance.js';
import { http, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { choosePlatform, getConnection, getPage, newCompany, platformKeys, setProfile, submitForm } from './link-helpers.js';

let server: TestServer;
let client: TestClient;
let platforms: Awaited<ReturnType<typeof platformKeys>>;

/** Every reserved placeholder, a custom one, an unknown one and a wrongly-cased one. */
const REDIRECT =
  'https://app.example.com/done/{sourceType}?client={clientId}&company={companyId}&conn={connectionId}' +
  '&int={integrationId}&src={sourceId}&p={platform}&pn={platformName}&code={statusCode}&err={errorMessage}' +
  '&text={statusText}&name={data.company.companyName}&custom={customParam}&missing={nope}&cased={companyid}';

beforeAll(async () => {
  server = await startTestServer();
  client = await server.newClient({ name: 'Link client' });
  platforms = await platformKeys(server, client);
});
afterAll(() => server.close());

function expectHtml(res: { headers: Headers; text: string }) {
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.text).toMatch(/^<!doctype html>/);
  expect(res.text).toContain('<main id="main">');
  expect(res.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
}

describe('hosted Link page', () => {
  it('renders the profile name and logo and the platforms by source type, without an API key', async () => {
    await setProfile(server, client, { name: 'Lendwell', logoUrl: 'https://cdn.example.com/lendwell.png', redirectUrl: '' });
    const company = await newCompany(server, client, 'Bits & Bobs');
    expect(company.redirect).toBe(`${server.url}/link/company/${company.id}`);

    const res = await getPage(company.redirect);
    expect(res.status).toBe(200);
    expectHtml(res);
    expect(res.text).toContain('<p>Lendwell</p>');
    expect(res.text).toContain('<img src="https://cdn.example.com/lendwell.png"');
    expect(res.text).toContain('Bits &amp; Bobs');
    for (const sourceType of ['Accounting', 'Banking', 'Commerce'] as const) {
      expect(res.text).toContain(`<h2 id="group-${sourceType.toLowerCase()}">${sourceType}</h2>`);
      const { key, name } = platforms[sourceType];
      expect(res.text).toContain(`name="platformKey" value="${key}"`);
      expect(res.text).toContain(`src="${server.url}/integrations/${key}/logo.svg"`);
      expect(res.text).toContain(`<span class="name">${name}</span>`);
    }
    expect(res.text.indexOf('group-accounting')).toBeLessThan(res.text.indexOf('group-banking'));
    expect(res.text.indexOf('group-banking')).toBeLessThan(res.text.indexOf('group-commerce'));
    expect(res.text).toContain(`<form method="post" action="/link/company/${company.id}/connections">`);
    // No script of any kind, no inline handlers, no API key.
    expect(res.text).not.toMatch(/<script|\son[a-z]+=/i);
    expect(res.text).not.toContain(client.apiKey);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('creates a connection through the form, reusing the pending one, and carries custom parameters', async () => {
    const company = await newCompany(server, client, 'Form Co');
    const page = await getPage(`${company.redirect}?customParam=abc%20123&otherParam=x`);
    expect(page.text).toContain('<input type="hidden" name="custom.customParam" value="abc 123">');
    expect(page.text).toContain('<input type="hidden" name="custom.otherParam" value="x">');

    const first = await choosePlatform(server, company.id, platforms.Accounting.key, { customParam: 'abc 123' });
    const connection = await getConnection(server, client, company.id, first.connectionId);
    expect(connection).toMatchObject({ status: 'PendingAuth', integrationKey: platforms.Accounting.key, sourceType: 'Accounting' });
    expect(first.startUrl).toBe(`${connection.linkUrl}?customParam=abc+123`);

    const again = await choosePlatform(server, company.id, platforms.Accounting.key);
    expect(again.connectionId).toBe(first.connectionId);
    const list = await http(server, 'GET', `/companies/${company.id}/connections`, { auth: client.auth });
    expect(list.body.results).toHaveLength(1);

    const start = await getPage(first.startUrl);
    expect(start.status).toBe(200);
    expectHtml(start);
    expect(start.text).toContain('<fieldset>\n<legend>Data set size</legend>');
    expect(start.text).toContain(
      '<input type="radio" id="size-small" name="size" value="small" checked><label for="size-small">Small<span class="hint">About 200 invoices (default)</span></label>',
    );
    expect(start.text).toContain('<label for="size-medium">Medium<span class="hint">About 10,000 invoices</span>');
    expect(start.text).toContain('<label for="size-large">Large<span class="hint">About 100,000 invoices</span>');
    expect(start.text).toContain('name="action" value="connect">Connect</button>');
    expect(start.text).toContain('name="action" value="cancel">Cancel</button>');
    expect(start.text).toContain('<input type="hidden" name="custom.customParam" value="abc 123">');

    const bad = await submitForm(`${server.url}/link/company/${company.id}/connections`, { platformKey: 'zzzz' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('role="alert"');
  });

  it('connects: 303 to the redirect URL with every placeholder filled, links the connection and queues syncs', async () => {
    await setProfile(server, client, { name: 'Lendwell', redirectUrl: REDIRECT });
    const company = await newCompany(server, client, "Tom & Jerry's Shop");
    const { startUrl, connectionId } = await choosePlatform(server, company.id, platforms.Accounting.key, { customParam: 'a b&c/é' });
    const res = await submitForm(startUrl, { action: 'connect', size: 'small', 'custom.customParam': 'a b&c/é' });
    expect(res.status).toBe(303);

    const connection = await getConnection(server, client, company.id, connectionId);
    expect(connection.status).toBe('Linked');
    const expected =
      'https://app.example.com/done/accounting' +
      `?client=${client.clientId}&company=${company.id}&conn=${connectionId}` +
      `&int=${connection.integrationId}&src=${connection.sourceId}&p=${platforms.Accounting.key}` +
      `&pn=${encodeURIComponent(connection.platformName)}&code=200&err=&text=OK` +
      `&name=Tom%20%26%20Jerry%27s%20Shop&custom=a%20b%26c%2F%C3%A9&missing=&cased=`;
    expect(res.location).toBe(expected);
    const params = new URL(res.location!).searchParams;
    expect(params.get('custom')).toBe('a b&c/é');
    expect(params.get('name')).toBe("Tom & Jerry's Shop");

    const history = await http(server, 'GET', `/companies/${company.id}/data/history`, { auth: client.auth });
    expect(history.status).toBe(200);
    expect(history.body.results.length).toBeGreaterThan(0);
    expect(history.body.results.every((op: { connectionId: string }) => op.connectionId === connectionId)).toBe(true);

    // The company page now shows the accounting platform as connected, with no button for it.
    const page = await getPage(company.redirect);
    expect(page.text).toContain(
      `<span class="name">${platforms.Accounting.name}</span><span class="status linked"><span class="sr-only">, </span>Connected</span>`,
    );
    expect(page.text).not.toContain(`value="${platforms.Accounting.key}"`);

    // Connecting again: already linked.
    const again = await submitForm(startUrl, { action: 'connect', size: 'medium' });
    expect(again.status).toBe(303);
    const againParams = new URL(again.location!).searchParams;
    expect(againParams.get('code')).toBe('201');
    expect(againParams.get('text')).toBe('Created');
    expect(againParams.get('custom')).toBe('');
    const onPage = await getPage(startUrl);
    expect(onPage.text).toContain('is already connected.');
  });

  it('cancels: 303 with 403 and "User cancelled." and leaves the connection pending', async () => {
    await setProfile(server, client, {
      name: 'Lendwell',
      redirectUrl: 'https://app.example.com/{sourceType}/?statuscode={statusCode}&errormessage={errorMessage}',
    });
    const company = await newCompany(server, client, 'Cancel Co');
    const { startUrl, connectionId } = await choosePlatform(server, company.id, platforms.Banking.key);
    const res = await submitForm(startUrl, { action: 'cancel', size: 'small' });
    expect(res.status).toBe(303);
    expect(res.location).toBe('https://app.example.com/banking/?statuscode=403&errormessage=User%20cancelled.');
    expect((await getConnection(server, client, company.id, connectionId)).status).toBe('PendingAuth');

    const page = await getPage(company.redirect);
    expect(page.text).toContain(`value="${platforms.Banking.key}"`);
    expect(page.text).toContain('Not finished');
  });

  it('answers 501 for a platform this page cannot authorise', async () => {
    await setProfile(server, client, {
      name: 'Lendwell',
      redirectUrl: 'https://app.example.com/?code={statusCode}&err={errorMessage}&p={platform}',
    });
    const company = await newCompany(server, client, 'Legacy Co');
    const id = '7d1f2c3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f';
    const created = new Date().toISOString();
    const platform = { key: 'zzzz', name: 'Legacy Books', sourceType: 'Banking' as const, dataTypes: [], brandColour: '#000' };
    await server.store.db
      .insertInto('connections')
      .values({
        id,
        client_id: client.clientId,
        company_id: company.id,
        platform_key: 'zzzz',
        source_type: 'Banking',
        status: 'PendingAuth',
        created,
        doc: connectionDoc({ id, companyId: company.id, platform, status: 'PendingAuth', created, lastSync: null }),
        last_sync: null,
        settings: null,
      })
      .execute();
    const startUrl = `${server.url}/link/companies/${company.id}/connections/${id}/start`;
    const start = await getPage(startUrl);
    expect(start.status).toBe(200);
    expect(start.text).toContain('Legacy Books cannot be connected from this page.');
    expect(start.text).not.toContain('<fieldset>');
    const res = await submitForm(startUrl, { action: 'connect' });
    expect(res.location).toBe('https://app.example.com/?code=501&err=Not%20supported.&p=zzzz');
  });

  it('shows the built-in finish page when the profile has no redirect URL', async () => {
    await setProfile(server, client, { name: 'Lendwell', redirectUrl: '' });
    const company = await newCompany(server, client, 'Finish Co');
    const { startUrl, connectionId } = await choosePlatform(server, company.id, platforms.Commerce.key, { ref: 'r1' });
    const res = await submitForm(startUrl, { action: 'connect', size: 'small', 'custom.ref': 'r1' });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${server.url}/link/companies/${company.id}/connections/${connectionId}/finish?statusCode=200&ref=r1`);
    const done = await getPage(res.location!);
    expect(done.status).toBe(200);
    expectHtml(done);
    expect(done.text).toContain('<h1>Connected</h1>');
    expect(done.text).toContain(`${platforms.Commerce.name} is now connected.`);
    expect(done.text).toContain(`href="/link/company/${company.id}?ref=r1"`);

    const second = await choosePlatform(server, company.id, platforms.Banking.key);
    const cancelled = await submitForm(second.startUrl, { action: 'cancel' });
    const page = await getPage(cancelled.location!);
    expect(page.text).toContain('<h1>Connection cancelled</h1>');
    expect(page.text).toContain('You cancelled connecting');

    const bogus = await getPage(`${server.url}/link/companies/${company.id}/connections/${connectionId}/finish?statusCode=302`);
    expect(bogus.status).toBe(404);
  });

  it('escapes every user-supplied value', async () => {
    await setProfile(server, client, {
      name: '<script>alert("p")</script>',
      logoUrl: 'https://x.example/"><script>alert(1)</script>',
      redirectUrl: '',
    });
    const company = await newCompany(server, client, "<script>alert(1)</script> & Co's <b>");
    const res = await getPage(`${company.redirect}?q=%22%3E%3Cscript%3Ealert(2)%3C%2Fscript%3E`);
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/<script|<b>/i);
    expect(res.text).toContain('&lt;script&gt;alert(&quot;p&quot;)&lt;/script&gt;');
    expect(res.text).toContain(`${company.name.replace(/&/g, '&amp;').replace(/'/g, '&#39;')}`);
    expect(res.text).toContain('name="custom.q" value="&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"');

    const { startUrl } = await choosePlatform(server, company.id, platforms.Banking.key, { q: '"><script>alert(3)</script>' });
    const start = await getPage(startUrl);
    expect(start.text).not.toMatch(/<script/i);
    expect(start.text).toContain('&lt;script&gt;alert(3)&lt;/script&gt;');
  });

  it('never redirects anywhere but the profile redirect URL', async () => {
    const company = await newCompany(server, client, 'Redirect Co');
    await setProfile(server, client, { name: 'Lendwell', redirectUrl: 'https://app.example.com/back?c={companyId}' });
    const { startUrl } = await choosePlatform(server, company.id, platforms.Banking.key, { redirectUrl: 'https://evil.example/' });
    const res = await submitForm(`${startUrl}&redirectUrl=https://evil.example/`, {
      action: 'cancel',
      redirectUrl: 'https://evil.example/',
      'custom.redirectUrl': 'https://evil.example/',
    });
    expect(res.location).toBe(`https://app.example.com/back?c=${company.id}`);

    // A custom placeholder in the host is only followed to an origin the profile allows.
    await setProfile(server, client, { name: 'Lendwell', redirectUrl: 'https://{host}/back' });
    const evil = await submitForm(startUrl, { action: 'cancel', 'custom.host': 'evil.example' });
    expect(evil.location).toMatch(new RegExp(`^${server.url}/link/companies/${company.id}/connections/[^/]+/finish\\?statusCode=403`));
    await setProfile(server, client, {
      name: 'Lendwell',
      redirectUrl: 'https://{host}/back',
      whiteListUrls: ['https://uk.app.example.com'],
    });
    const allowed = await submitForm(startUrl, { action: 'cancel', 'custom.host': 'uk.app.example.com' });
    expect(allowed.location).toBe('https://uk.app.example.com/back');
    const refused = await submitForm(startUrl, { action: 'cancel', 'custom.host': 'evil.example' });
    expect(refused.location).toContain('/finish?statusCode=403');
  });

  it('answers an HTML 404 for unknown or invalid companies and connections', async () => {
    for (const path of [
      '/link/company/00000000-0000-4000-8000-000000000000',
      '/link/company/not-a-company',
      '/link/companies/00000000-0000-4000-8000-000000000000/connections/00000000-0000-4000-8000-000000000000/start',
    ]) {
      const res = await getPage(`${server.url}${path}`);
      expect(res.status, path).toBe(404);
      expectHtml(res);
      expect(res.text).toContain('<h1>Link not found</h1>');
    }
    const posted = await submitForm(`${server.url}/link/company/00000000-0000-4000-8000-000000000000/connections`, {
      platformKey: platforms.Banking.key,
    });
    expect(posted.status).toBe(404);
    expect(posted.headers.get('content-type')).toMatch(/^text\/html/);

    // Another company's connection is not reachable through this company's address.
    const a = await newCompany(server, client, 'Company A');
    const b = await newCompany(server, client, 'Company B');
    const { connectionId } = await choosePlatform(server, a.id, platforms.Banking.key);
    const crossed = await getPage(`${server.url}/link/companies/${b.id}/connections/${connectionId}/start`);
    expect(crossed.status).toBe(404);
    const crossedPost = await submitForm(`${server.url}/link/companies/${b.id}/connections/${connectionId}/start`, { action: 'connect' });
    expect(crossedPost.status).toBe(404);
    expect((await getConnection(server, client, a.id, connectionId)).status).toBe('PendingAuth');
  });

  it('rejects an unknown action or size with the page and a message', async () => {
    const company = await newCompany(server, client, 'Odd Co');
    const { startUrl } = await choosePlatform(server, company.id, platforms.Banking.key);
    const badSize = await submitForm(startUrl, { action: 'connect', size: 'huge' });
    expect(badSize.status).toBe(400);
    expect(badSize.text).toContain('<p class="notice error" role="alert">Choose a data set size.</p>');
    const badAction = await submitForm(startUrl, { action: 'explode' });
    expect(badAction.status).toBe(400);
    expect(badAction.text).toContain('role="alert"');
  });

  it('shows an HTML page, not JSON, during maintenance', async () => {
    const company = await newCompany(server, client, 'Maintenance Co');
    const waitFor = async (status: number) => {
      for (let i = 0; i < 50; i++) {
        const res = await getPage(company.redirect);
        if (res.status === status) return res;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`never answered ${status}`);
    };
    await setMaintenance(server.store.db, true);
    try {
      const res = await waitFor(503);
      expectHtml(res);
      expect(res.headers.get('retry-after')).toBeTruthy();
      expect(res.text).toContain('<h1>Temporarily unavailable</h1>');
    } finally {
      await setMaintenance(server.store.db, false);
    }
    await waitFor(200);
  });
});
