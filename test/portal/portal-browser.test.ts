import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, requireChromiumInCi } from '../helpers/browser.js';
import { checkAccessibility, checkKeyboard } from '../helpers/page-checks.js';
import { http as api, startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';

/**
 * The client portal in Debian's Chromium: a developer signs in with the keyboard, creates a company, links the
 * Sandbox through the Link page, watches its syncs complete, browses invoices with a query, creates and revokes a
 * key and replays a webhook delivery. Every page is checked with axe-core (no serious or critical violation) and
 * saved as a screenshot under test-output/portal/ (PORTAL_SCREENSHOT_DIR overrides).
 */

const SHOTS = process.env.PORTAL_SCREENSHOT_DIR ?? path.resolve('test-output', 'portal');

let server: TestServer;
let client: TestClient;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** A webhook receiver: records every delivery it is sent. */
let receiver: http.Server;
let receiverUrl: string;
const received: { id: string; body: string }[] = [];
let companyId: string;

requireChromiumInCi('Portal in a browser');

/** Screenshot, accessibility and keyboard check of the current page. */
async function look(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  await checkAccessibility(page, name);
  await checkKeyboard(page, name);
}

/** Presses Tab until the element matching `selector` has the focus. */
async function tabTo(selector: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe.skipIf(!hasChromium)('Portal in a browser', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    console.log(`portal screenshots: ${SHOTS}`);
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ id: String(req.headers['webhook-id']), body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    server = await startTestServer({ push: { sandboxDelayMs: 10 } });
    client = await server.newClient({ name: 'Lendwell Finance' });
    browser = await launchChromium();
    // axe-core is injected as an inline script, which the portal's CSP (rightly) forbids: this context bypasses it.
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    page = await context.newPage();
    // Starting the service and Chromium together is the slow part on a loaded machine.
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  });

  it('sends a visitor without a session to sign-in, and signs in with the keyboard', async () => {
    await page.goto(`${server.url}/portal/companies`);
    expect(new URL(page.url()).pathname).toBe('/portal/sign-in');
    await look('01-sign-in');
    await tabTo('#apiKey');
    await page.keyboard.type(client.apiKey);
    await Promise.all([page.waitForURL(/\/portal\/companies$/), page.keyboard.press('Enter')]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Companies');
    // The key is nowhere in the browser: not in cookies, storage or the page.
    const cookies = await context.cookies();
    expect(JSON.stringify(cookies)).not.toContain(client.apiKey);
    expect(cookies.find((c) => c.name === 'lp_portal_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(await page.content()).not.toContain(client.apiKey);
    await look('02-companies-empty');
  });

  it('adds a webhook consumer for company events', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Address (http or https)').fill(receiverUrl);
    await page.getByRole('checkbox', { name: 'company.created', exact: true }).check();
    await page.getByRole('checkbox', { name: 'read.completed', exact: true }).check();
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Add consumer' }).click()]);
    await expect(page.locator('#secret').inputValue()).resolves.toMatch(/^whsec_/);
    await look('03-webhook-created');
  });

  it('creates a company, links the Sandbox through the Link page and watches its syncs complete', async () => {
    await page.getByRole('link', { name: 'Companies' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Harbour Plumbing Ltd');
    await Promise.all([
      page.waitForURL(/\/portal\/companies\/[0-9a-f-]{36}\?done=created$/),
      page.getByRole('button', { name: 'Create company' }).click(),
    ]);
    companyId = /companies\/([0-9a-f-]{36})/.exec(page.url())![1];
    await expect(page.locator('h1').textContent()).resolves.toBe('Harbour Plumbing Ltd');
    const linkUrl = await page.locator('#link-url').inputValue();
    expect(linkUrl).toContain(`/link/company/${companyId}`);

    // The end user's side: the Link page, the accounting Sandbox, Connect.
    const platforms = (await api(server, 'GET', '/integrations?pageSize=100', { auth: client.auth })).body.results as {
      key: string;
      name: string;
      sourceType: string;
    }[];
    const sandbox = platforms.find((p) => p.sourceType === 'Accounting' && /sandbox/i.test(p.name))!;
    const link = await context.newPage();
    await link.goto(linkUrl);
    await Promise.all([link.waitForURL(/\/start/), link.getByRole('button', { name: sandbox.name, exact: true }).click()]);
    await Promise.all([link.waitForLoadState(), link.getByRole('button', { name: /Connect/ }).click()]);
    await expect(link.locator('body').textContent()).resolves.toMatch(/connected/i);
    await link.close();

    // Back in the portal: reload until no sync is queued or running and invoices are complete.
    await waitFor('the syncs to complete in the portal', async () => {
      await page.goto(`${server.url}/portal/companies/${companyId}`);
      const statuses = await page.locator('#status-title + div table tbody tr').allTextContents();
      const settled = statuses.length > 0 && statuses.every((row) => !/Queued|Fetching|Initial/.test(row));
      return settled && statuses.some((row) => /^invoices.*Complete/.test(row)) ? true : undefined;
    });
    await expect(page.locator('#connections-title + div table').textContent()).resolves.toContain('Linked');
    await expect(page.locator('#pulls-title + div table tbody tr').count()).resolves.toBeGreaterThan(5);
    // The charts drew from the portal's JSON.
    await page.waitForSelector('#sync-durations[data-drawn="true"]');
    await page.waitForSelector('#records-per-type[data-drawn="true"]');
    await look('04-company');
  });

  it('browses invoices with a query and opens one', async () => {
    await page.getByRole('link', { name: 'invoices', exact: true }).click();
    await page.getByLabel('Query').fill('totalAmount>1000');
    await page.getByLabel('Order by').fill('-totalAmount');
    await Promise.all([page.waitForURL(/query=/), page.getByRole('button', { name: 'Apply' }).click()]);
    const expected = await api(
      server,
      'GET',
      `/companies/${companyId}/data/invoices?query=${encodeURIComponent('totalAmount>1000')}&pageSize=1`,
      {
        auth: client.auth,
      },
    );
    expect(expected.body.totalResults).toBeGreaterThan(0);
    await expect(page.locator('.pager span').textContent()).resolves.toContain(`(${expected.body.totalResults} in all)`);
    const amounts = (await page.locator('table tbody tr').evaluateAll((rows) => {
      const headers = [...document.querySelectorAll('table thead th')].map((th) => th.textContent);
      const col = headers.indexOf('Total');
      return rows.map((r) => Number(r.children[col]?.textContent?.replace(/,/g, '')));
    })) as number[];
    expect(amounts.length).toBeGreaterThan(0);
    expect(amounts.every((a) => a > 1000)).toBe(true);
    expect([...amounts].sort((a, b) => b - a)).toEqual(amounts);
    await look('05-invoices-query');

    // A query the language refuses: its message, and the form to correct it.
    await page.getByLabel('Query').fill('totalAmount~"x"');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/Operator ~ cannot be applied/);
    await look('06-invoices-refused-query');

    await page.getByLabel('Query').fill('totalAmount>1000');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('table tbody tr a').first().click();
    const json = JSON.parse((await page.locator('pre').textContent())!);
    expect(json.totalAmount).toBeGreaterThan(1000);
    await look('07-invoice-record');
  });

  it('creates a key (shown once) that works, and revokes it', async () => {
    await page.getByRole('link', { name: 'API keys and usage' }).click();
    await page.waitForSelector('#requests-per-hour[data-drawn="true"]');
    await page.getByLabel('Name of a new key (optional)').fill('ci-robot');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.locator('#new-key').inputValue();
    expect(key).toMatch(/^[A-Za-z0-9]{40}$/);
    await look('08-keys-created');
    const auth = `Basic ${Buffer.from(key).toString('base64')}`;
    expect((await api(server, 'GET', '/companies', { auth })).status).toBe(200);

    await page.goto(`${server.url}/portal/keys`);
    await expect(page.locator('body').textContent()).resolves.not.toContain(key);
    await page.getByRole('button', { name: 'Revoke ci-robot' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/Key revoked/);
    expect((await api(server, 'GET', '/companies', { auth })).status).toBe(401);
    await look('09-keys');
  });

  it('shows the deliveries and replays one', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await look('10-webhooks');
    await page.getByRole('link', { name: receiverUrl }).click();
    const created = await waitFor('the company.created delivery', async () => {
      await page.reload();
      const row = page.locator('tr', { hasText: 'company.created' });
      return (await row.count()) === 1 && /delivered/.test((await row.textContent()) ?? '') ? row : undefined;
    });
    await expect(created.textContent()).resolves.toMatch(/delivered\s*1\s*200/);
    const before = received.length;
    const first = received.find((r) => JSON.parse(r.body).eventType === 'company.created')!;
    await created.getByRole('button', { name: /^Replay/ }).click();
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/replayed/);
    await waitFor('the replayed delivery', async () => (received.length > before ? true : undefined));
    const replay = received.at(-1)!;
    expect(replay.body).toBe(first.body);
    expect(replay.id).not.toBe(first.id);
    await look('11-webhook-deliveries');

    await page.getByRole('button', { name: 'Disable' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/disabled/i);
    await expect(page.getByRole('button', { name: /^Replay/ }).count()).resolves.toBe(0);
    await look('12-webhook-disabled');
    await page.getByRole('button', { name: 'Enable' }).click();
    await expect(page.getByRole('button', { name: /^Replay/ }).count()).resolves.toBeGreaterThan(0);
    await page.getByRole('link', { name: 'Delete this consumer…' }).click();
    await look('13-webhook-delete');
    await Promise.all([page.waitForURL(/done=deleted/), page.getByRole('button', { name: 'Delete consumer' }).click()]);
    expect((await api(server, 'GET', '/webhooks', { auth: client.auth })).body.results).toEqual([]);
  });

  it('lists and searches companies, and deletes one after its confirmation page', async () => {
    await page.getByRole('link', { name: 'Companies' }).click();
    // Company names keep apostrophes (and lose double quotes, as Codat's do).
    await page.getByLabel('Name', { exact: true }).fill(`O'Neill & Sons Temporary`);
    await Promise.all([page.waitForURL(/\?done=created$/), page.getByRole('button', { name: 'Create company' }).click()]);
    const temporary = /companies\/([0-9a-f-]{36})/.exec(page.url())![1];
    await page.getByRole('link', { name: 'Companies' }).click();
    await expect(page.locator('table tbody tr').count()).resolves.toBe(2);
    await look('14-companies');
    // The query language has no escapes: a search holding both quote marks still finds the company.
    await page.getByLabel('Name contains').fill(`O'Neill "Sons"`);
    await Promise.all([page.waitForURL(/search=/), page.getByRole('button', { name: 'Search' }).click()]);
    await expect(page.locator('table tbody tr').allTextContents()).resolves.toEqual([expect.stringContaining('Temporary')]);

    await page.getByRole('link', { name: `O'Neill & Sons Temporary` }).click();
    await page.getByRole('link', { name: 'Delete this company…' }).click();
    await look('15-company-delete');
    await Promise.all([page.waitForURL(/done=deleted/), page.getByRole('button', { name: /^Delete / }).click()]);
    expect((await api(server, 'GET', `/companies/${temporary}`, { auth: client.auth })).status).toBe(404);

    // A company that is not there: the error page, not a stack trace.
    const res = await page.goto(`${server.url}/portal/companies/${temporary}`);
    expect(res!.status()).toBe(404);
    await look('16-not-found');
    await page.goto(`${server.url}/portal/companies`);
  });

  it('edits the profile and the sync settings', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Lendwell Capital');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Profile saved.');
    expect((await api(server, 'GET', '/profile', { auth: client.auth })).body.name).toBe('Lendwell Capital');
    await page.getByLabel('Hours between syncs of invoices').fill('6');
    await page.getByRole('button', { name: 'Save sync settings' }).click();
    const settings = (await api(server, 'GET', '/profile/syncSettings', { auth: client.auth })).body.settings;
    expect(settings.find((s: { dataType: string }) => s.dataType === 'invoices').syncSchedule).toBe(6);
    await look('17-settings');
  });

  it('signs out: pages send the browser back to sign-in, which says why a key is refused', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(new URL(page.url()).pathname).toBe('/portal/sign-in');
    await page.goto(`${server.url}/portal/keys`);
    expect(new URL(page.url()).pathname).toBe('/portal/sign-in');
    await page.getByLabel('API key').fill('not-a-key-of-anyone');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('alert').textContent()).resolves.toBeTruthy();
    await look('18-sign-in-refused');
  });
});
