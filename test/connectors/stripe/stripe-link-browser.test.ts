import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, requireChromiumInCi } from '../../helpers/browser.js';
import { platformInBrowser } from '../../helpers/platform-browser.js';
import { http } from '../../helpers/test-server.js';
import { startStripeFake } from '../../fakes/stripe/stripe-fake.js';

/**
 * Linking Stripe through the hosted Link page in Debian's Chromium: the restricted API key form (a refused key
 * corrected on the page), and, with Stripe Connect configured, the "Connect with Stripe" button through Stripe's
 * consent page (the fake's). Skipped without Chromium, except under CI.
 */
requireChromiumInCi('Linking Stripe in a browser');
if (!hasChromium) console.log('skipping the Stripe Link page tests: Chromium is not installed at /usr/bin/chromium');

describe.skipIf(!hasChromium)('Linking Stripe in a browser', { timeout: 60_000 }, () => {
  const world = platformInBrowser(startStripeFake, (f) => f.connectEnv());
  let { fake, server, client, browser } = world;
  beforeAll(() => {
    ({ fake, server, client, browser } = world);
  });

  async function startPage(name: string): Promise<{ companyId: string; page: Page }> {
    const companyId = (await http(server, 'POST', '/companies', { auth: client.auth, body: { name } })).body.id;
    const page = await browser.newPage();
    await page.goto(`${server.url}/link/company/${companyId}`);
    await page.getByRole('button', { name: 'Stripe', exact: true }).click();
    return { companyId, page };
  }

  async function stripeConnection(companyId: string) {
    const list = await http(server, 'GET', `/companies/${companyId}/connections`, { auth: client.auth });
    return list.body.results.find((c: { integrationKey: string }) => c.integrationKey === 'exgd');
  }

  it('takes a restricted API key on the Link page, keeps the end user there when Stripe refuses it, then connects', async () => {
    const account = fake.addAccount('Kauri Candles');
    const { companyId, page } = await startPage('Kauri Candles Ltd');
    await expect(page.locator('h1').textContent()).resolves.toBe('Connect Stripe');
    await expect(page.getByLabel('Restricted API key').getAttribute('type')).resolves.toBe('password');
    await page.getByLabel('Restricted API key').fill('rk_test_not_a_key');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect(page.locator('[role=alert]').textContent()).resolves.toMatch(/Stripe could not be connected/);
    expect(await page.content()).not.toContain('rk_test_not_a_key');
    await page.getByLabel('Restricted API key').fill(account.newKey());
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Connected');
    expect((await stripeConnection(companyId)).status).toBe('Linked');
    await page.close();
  });

  it('connects with Stripe Connect from the same page', async () => {
    const account = fake.addAccount('Rimu Outfitters');
    fake.consent = { grant: true, account };
    const { companyId, page } = await startPage('Rimu Outfitters Ltd');
    await page.getByRole('button', { name: 'Connect with Stripe' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Connected');
    expect((await stripeConnection(companyId)).status).toBe('Linked');
    expect(fake.isConnected(account)).toBe(true);
    expect(fake.violations).toEqual([]);
    await page.close();
  });
});
