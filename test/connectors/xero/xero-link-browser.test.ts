import { beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, requireChromiumInCi } from '../../helpers/browser.js';
import { platformInBrowser } from '../../helpers/platform-browser.js';
import { http } from '../../helpers/test-server.js';
import { setProfile } from '../../link/link-helpers.js';
import { startXeroFake } from '../../fakes/xero/xero-fake.js';

/**
 * Linking Xero through the hosted Link page in Debian's Chromium: the platform choice leads to Xero's consent
 * page (the fake's) and back to the client's redirect address; a consent covering two organisations leads to the
 * Link page that picks one; a refused consent ends as a cancelled link. Skipped without Chromium, except under CI.
 */
requireChromiumInCi('Linking Xero in a browser');
if (!hasChromium) console.log('skipping the Xero Link page tests: Chromium is not installed at /usr/bin/chromium');

describe.skipIf(!hasChromium)('Linking Xero in a browser', { timeout: 60_000 }, () => {
  const world = platformInBrowser(startXeroFake, (f) => f.env());
  let { fake, server, client, browser } = world;
  beforeAll(() => {
    ({ fake, server, client, browser } = world);
  });

  async function company(name: string): Promise<string> {
    const res = await http(server, 'POST', '/companies', { auth: client.auth, body: { name } });
    return res.body.id;
  }

  async function xeroConnection(companyId: string) {
    const list = await http(server, 'GET', `/companies/${companyId}/connections`, { auth: client.auth });
    return list.body.results.find((c: { integrationKey: string }) => c.integrationKey === 'gbol');
  }

  it("chooses Xero on the Link page, consents at Xero, and lands on the client's redirect address, linked", async () => {
    const tenant = fake.addTenant('Kauri Design');
    fake.consent = { grant: true, tenants: [tenant] };
    await setProfile(server, client, {
      name: 'Lendwell',
      redirectUrl: 'https://client.example/linked?company={companyId}&code={statusCode}',
    });
    const companyId = await company('Kauri Design Ltd');
    const page = await browser.newPage();
    await page.route('https://client.example/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Back at the client</h1>' }),
    );
    await page.goto(`${server.url}/link/company/${companyId}`);
    await page.getByRole('button', { name: 'Xero' }).click();
    await page.waitForURL(/^https:\/\/client\.example\//);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('company')).toBe(companyId);
    expect(landed.searchParams.get('code')).toBe('200');
    const connection = await xeroConnection(companyId);
    expect(connection.status).toBe('Linked');
    // The authorize request carried PKCE and the one callback address.
    const authorize = new URLSearchParams(fake.requests.filter((r) => r.path === '/identity/connect/authorize').at(-1)?.query);
    expect(authorize.get('code_challenge_method')).toBe('S256');
    expect(authorize.get('redirect_uri')).toBe(`${server.url}/link/oauth/callback`);
    expect(authorize.get('scope')).toContain('offline_access');
    await page.close();
  });

  it('lets the end user pick one of two organisations on a Link page', async () => {
    await setProfile(server, client, { name: 'Lendwell', redirectUrl: '' });
    const first = fake.addTenant('Matai Foods');
    const second = fake.addTenant('Totara Motors');
    fake.consent = { grant: true, tenants: [first, second] };
    const companyId = await company('Totara Motors Ltd');
    const page = await browser.newPage();
    await page.goto(`${server.url}/link/company/${companyId}`);
    await page.getByRole('button', { name: 'Xero' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Choose an organisation');
    await page.getByLabel('Totara Motors').check();
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Connected');
    const connection = await xeroConnection(companyId);
    expect(connection.status).toBe('Linked');
    const row = await server.store.db
      .selectFrom('connections')
      .select('settings')
      .where('id', '=', connection.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.settings ?? '{}')).toEqual({ tenantId: second.tenantId, tenantName: 'Totara Motors' });
    await page.close();
  });

  it('ends as a cancelled link when the end user refuses consent at Xero; the connection stays PendingAuth', async () => {
    fake.consent = { grant: false };
    const companyId = await company('Refusing Ltd');
    const page = await browser.newPage();
    await page.goto(`${server.url}/link/company/${companyId}`);
    await page.getByRole('button', { name: 'Xero' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Connection cancelled');
    expect((await xeroConnection(companyId)).status).toBe('PendingAuth');
    await page.close();
    fake.consent = { grant: true };
    expect(fake.violations).toEqual([]);
  });
});
