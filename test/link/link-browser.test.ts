import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { hasChromium, launchChromium, requireChromiumInCi, SCREENSHOT_DIR } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { getConnection, newCompany, platformKeys, setProfile } from './link-helpers.js';

/**
 * The hosted Link flow in a real browser: Debian's Chromium driven by playwright-core. Without Chromium the
 * suite is skipped locally but fails in CI, which installs it (.ci/run).
 */

let server: TestServer;
let client: TestClient;
let browser: Browser;
let platforms: Awaited<ReturnType<typeof platformKeys>>;
/** A tiny stand-in for the client's own site: records every address it is sent to. */
let redirectSite: http.Server;
let redirectBase: string;
const landed: string[] = [];
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48">' +
  '<circle cx="24" cy="24" r="24" fill="#c2410c"/><path d="M14 12h6v18h14v6H14z" fill="#fff"/></svg>';

requireChromiumInCi('Link in a browser');

describe.skipIf(!hasChromium)('Link in a browser', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    redirectSite = http.createServer((req, res) => {
      if (req.url === '/logo.svg') {
        res.writeHead(200, { 'content-type': 'image/svg+xml' });
        res.end(LOGO_SVG);
        return;
      }
      if (!req.url?.startsWith('/done/')) {
        res.writeHead(404).end();
        return;
      }
      landed.push(req.url);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Back at the client</title><h1>Back at the client</h1>');
    });
    await new Promise<void>((resolve) => redirectSite.listen(0, '127.0.0.1', resolve));
    redirectBase = `http://127.0.0.1:${(redirectSite.address() as AddressInfo).port}`;

    server = await startTestServer();
    client = await server.newClient({ name: 'Browser client' });
    platforms = await platformKeys(server, client);
    await setProfile(server, client, {
      name: 'Lendwell Finance',
      logoUrl: `${redirectBase}/logo.svg`,
      redirectUrl:
        `${redirectBase}/done/{sourceType}?company={companyId}&connection={connectionId}&platform={platform}` +
        '&code={statusCode}&error={errorMessage}&name={data.company.companyName}&ref={ref}',
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => (redirectSite ? redirectSite.close(resolve) : resolve(undefined)));
  });

  async function phonePage(): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    return context.newPage();
  }

  /** Presses Tab until the focused element matches, so the step is done with the keyboard only. */
  async function tabTo(page: Page, selector: string, maxPresses = 30): Promise<void> {
    for (let i = 0; i < maxPresses; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    }
    throw new Error(`Tab never reached ${selector}`);
  }

  it('connects the accounting Sandbox with the keyboard and lands on the redirect URL', async () => {
    const company = await newCompany(server, client, 'Keyboard & Co');
    const page = await phonePage();
    await page.goto(`${company.redirect}?ref=kb-42`);
    await expect(page.title()).resolves.toContain('Lendwell Finance');
    await expect(page.locator('.brand img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).resolves.toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'company-page.png'), fullPage: true });

    // Keyboard: Tab to the accounting platform's button, Enter.
    await tabTo(page, `button[name="platformKey"][value="${platforms.Accounting.key}"]`);
    await Promise.all([page.waitForURL(/\/start\?ref=kb-42$/), page.keyboard.press('Enter')]);
    await expect(page.locator('h1').textContent()).resolves.toContain(platforms.Accounting.name);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'start-page.png'), fullPage: true });

    // Keyboard: into the radio group (small is checked), arrow down to medium, Tab to Connect, Space.
    await tabTo(page, 'input[name="size"]');
    await expect(page.evaluate(() => (document.activeElement as HTMLInputElement).value)).resolves.toBe('small');
    await page.keyboard.press('ArrowDown');
    await expect(page.locator('#size-medium').isChecked()).resolves.toBe(true);
    await tabTo(page, 'button[value="connect"]');
    await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectBase)), page.keyboard.press('Space')]);

    const url = new URL(page.url());
    expect(url.pathname).toBe('/done/accounting');
    const connectionId = url.searchParams.get('connection')!;
    expect(Object.fromEntries(url.searchParams)).toEqual({
      company: company.id,
      connection: connectionId,
      platform: platforms.Accounting.key,
      code: '200',
      error: '',
      name: 'Keyboard & Co',
      ref: 'kb-42',
    });
    expect(landed.at(-1)).toBe(`${url.pathname}${url.search}`);
    const connection = await getConnection(server, client, company.id, connectionId);
    expect(connection.status).toBe('Linked');
    // The size chosen with the arrow key reached the authorisation.
    const row = await server.store.db.selectFrom('connections').select('settings').where('id', '=', connectionId).executeTakeFirstOrThrow();
    expect(JSON.parse(row.settings!).invoices).toBe(10_000);

    await page.goto(company.redirect);
    await expect(page.locator('.status.linked').textContent()).resolves.toContain('Connected');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'company-connected.png'), fullPage: true });
    await page.context().close();
  });

  it('cancels: lands on the redirect URL with 403 and "User cancelled."', async () => {
    const company = await newCompany(server, client, 'Cancel Ltd');
    const page = await phonePage();
    await page.goto(company.redirect);
    await Promise.all([page.waitForURL(/\/start$/), page.getByRole('button', { name: platforms.Banking.name }).click()]);
    await page.getByRole('radio', { name: /Large/ }).check();
    await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectBase)), page.getByRole('button', { name: 'Cancel' }).click()]);
    const url = new URL(page.url());
    expect(url.pathname).toBe('/done/banking');
    expect(url.search).toContain('code=403&error=User%20cancelled.');
    expect(url.searchParams.get('error')).toBe('User cancelled.');
    expect(url.searchParams.get('ref')).toBe('');
    expect((await getConnection(server, client, company.id, url.searchParams.get('connection')!)).status).toBe('PendingAuth');
    await page.context().close();
  });

  it("shows a platform's hints as text, with commands as code (no markdown backticks)", async () => {
    const company = await newCompany(server, client, 'Hint Reader Ltd');
    const page = await phonePage();
    await page.goto(company.redirect);
    await Promise.all([page.waitForURL(/\/start$/), page.getByRole('button', { name: 'hledger', exact: true }).click()]);
    const hint = page.locator('#field-url-hint');
    await expect(hint.textContent()).resolves.toMatch(/^Where hledger-web --serve-api answers/);
    await expect(hint.locator('code').textContent()).resolves.toBe('hledger-web --serve-api');
    await expect(page.locator('main').textContent()).resolves.not.toContain('`');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'start-hledger.png'), fullPage: true });
    await page.context().close();
  });

  it('has the accessibility basics: a main landmark, labelled controls, a legend and visible focus', async () => {
    const company = await newCompany(server, client, 'Access Co');
    const page = await phonePage();
    await page.goto(company.redirect);
    await expect(page.getByRole('main').count()).resolves.toBe(1);
    await expect(page.getByRole('heading', { level: 1 }).count()).resolves.toBe(1);
    await Promise.all([page.waitForURL(/\/start$/), page.getByRole('button', { name: platforms.Commerce.name }).click()]);
    await expect(page.getByRole('group', { name: 'Data set size' }).count()).resolves.toBe(1);
    for (const size of ['Small', 'Medium', 'Large'])
      await expect(page.getByRole('radio', { name: new RegExp(size) }).count()).resolves.toBe(1);
    const unlabelled = await page.evaluate(
      () => [...document.querySelectorAll('input:not([type=hidden])')].filter((el) => !(el as HTMLInputElement).labels?.length).length,
    );
    expect(unlabelled).toBe(0);
    await tabTo(page, 'button[value="connect"]');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).toBe('solid');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'start-focused-connect.png') });
    // Touch targets at least 44px high on a phone, no horizontal scrolling.
    const heights = await page.locator('button').evaluateAll((els) => els.map((el) => el.getBoundingClientRect().height));
    expect(Math.min(...heights)).toBeGreaterThanOrEqual(44);
    await expect(page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).resolves.toBe(true);
    await page.context().close();
  });
});
