import { beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, requireChromiumInCi } from '../../helpers/browser.js';
import { platformInBrowser } from '../../helpers/platform-browser.js';
import { http } from '../../helpers/test-server.js';
import { setProfile } from '../../link/link-helpers.js';
import { startSquareFake } from '../../fakes/square/square-fake.js';

/**
 * Linking Square through the hosted Link page in Debian's Chromium: the platform choice leads to Square's consent
 * page (the fake's) and back to the finish page; a refused consent ends as a cancelled link. Skipped without
 * Chromium, except under CI.
 */
requireChromiumInCi('Linking Square in a browser');
if (!hasChromium) console.log('skipping the Square Link page tests: Chromium is not installed at /usr/bin/chromium');

describe.skipIf(!hasChromium)('Linking Square in a browser', { timeout: 60_000 }, () => {
  const world = platformInBrowser(startSquareFake, (f) => f.env());
  let { fake, server, client, browser } = world;
  beforeAll(() => {
    ({ fake, server, client, browser } = world);
  });

  async function company(name: string): Promise<string> {
    const res = await http(server, 'POST', '/companies', { auth: client.auth, body: { name } });
    return res.body.id;
  }

  async function squareConnection(companyId: string) {
    const list = await http(server, 'GET', `/companies/${companyId}/connections`, { auth: client.auth });
    return list.body.results.find((c: { integrationKey: string }) => c.integrationKey === 'zsth');
  }

  it('chooses Square on the Link page, consents at Square, and finishes linked', async () => {
    const merchant = fake.addMerchant('Harbour Coffee');
    fake.consent = { grant: true, merchant };
    await setProfile(server, client, { name: 'Lendwell', redirectUrl: '' });
    const companyId = await company('Harbour Coffee LLC');
    const page = await browser.newPage();
    await page.goto(`${server.url}/link/company/${companyId}`);
    await page.getByRole('button', { name: 'Square' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Connected');
    await expect(page.locator('body').textContent()).resolves.toContain('Square is now connected');
    const connection = await squareConnection(companyId);
    expect(connection.status).toBe('Linked');
    const authorize = new URLSearchParams(fake.requests.filter((r) => r.path === '/oauth2/authorize').at(-1)?.query);
    expect(authorize.get('redirect_uri')).toBe(`${server.url}/link/oauth/callback`);
    expect(authorize.get('session')).toBe('false');
    await page.close();
    expect(fake.violations).toEqual([]);
  });

  it('ends as a cancelled link when the seller refuses consent at Square; the connection stays PendingAuth', async () => {
    fake.consent = { grant: false };
    const companyId = await company('Refusing Bakery');
    const page = await browser.newPage();
    await page.goto(`${server.url}/link/company/${companyId}`);
    await page.getByRole('button', { name: 'Square' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Connection cancelled');
    expect((await squareConnection(companyId)).status).toBe('PendingAuth');
    await page.close();
    fake.consent = { grant: true };
    expect(fake.violations).toEqual([]);
  });
});
