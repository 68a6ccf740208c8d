import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestClient, type TestServer } from '../../helpers/test-server.js';
import { companyWithConnection } from '../../helpers/sandbox.js';
import { hledgerMissing, startHledgerWeb, type HledgerWeb } from '../../helpers/hledger-web.js';

/**
 * Linking hledger through the hosted Link page in Debian's Chromium: the platform's credentials form, a wrong
 * address corrected on the page, then connected. Skipped without Chromium or hledger-web, except under CI=true.
 */
const CHROMIUM = '/usr/bin/chromium';
const FIXTURE = fileURLToPath(new URL('./fixtures/books.journal', import.meta.url));
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium && process.env.CI === 'true') throw new Error(`CI=true but Chromium is missing at ${CHROMIUM} (.ci/run installs it)`);
const missing = hasChromium ? hledgerMissing() : `Chromium not installed at ${CHROMIUM}`;
if (missing) console.log(`skipping the hledger Link page test: ${missing}`);

describe.skipIf(missing !== undefined)('Linking hledger in a browser', { timeout: 60_000 }, () => {
  let web: HledgerWeb;
  let server: TestServer;
  let client: TestClient;
  let browser: Browser;

  beforeAll(async () => {
    web = await startHledgerWeb(FIXTURE);
    server = await startTestServer({ connectors: { allowPrivate: true } });
    client = await server.newClient();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await web?.stop();
  });

  it('shows the credentials form, keeps the end user on it when the address does not answer, then connects', async () => {
    const { companyId, connectionId } = await companyWithConnection(server, client, 'hldg');
    const connection = (await http(server, 'GET', `/companies/${companyId}/connections/${connectionId}`, { auth: client.auth })).body;
    const page = await browser.newPage();
    await page.goto(connection.linkUrl);
    await expect(page.locator('h1').textContent()).resolves.toBe('Connect hledger');
    await expect(page.getByLabel('hledger-web address').getAttribute('type')).resolves.toBe('url');
    await expect(page.getByLabel('Password (optional)').getAttribute('type')).resolves.toBe('password');

    await page.getByLabel('hledger-web address').fill('http://127.0.0.1:9');
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(
      /hledger could not be connected: hledger at http:\/\/127\.0\.0\.1:9 did not answer/,
    );
    // What was typed is still there (a password would not be).
    await expect(page.getByLabel('hledger-web address').inputValue()).resolves.toBe('http://127.0.0.1:9');
    expect((await http(server, 'GET', `/companies/${companyId}/connections/${connectionId}`, { auth: client.auth })).body.status).toBe(
      'PendingAuth',
    );

    await page.getByLabel('hledger-web address').fill(web.url);
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Connected');
    expect((await http(server, 'GET', `/companies/${companyId}/connections/${connectionId}`, { auth: client.auth })).body.status).toBe(
      'Linked',
    );
    await page.close();
  });
});
