import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { hasChromium, launchChromium, requireChromiumInCi, SCREENSHOT_DIR } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestClient, type TestServer } from '../helpers/test-server.js';
import { allRecords } from '../helpers/uploads.js';
import { waitForSyncs } from '../helpers/sandbox.js';
import { MALFORMED, SAMPLES } from '../helpers/statement-samples.js';
import { newCompany, setProfile } from './link-helpers.js';

/**
 * Statement files uploaded on the hosted Link page in a real browser (Debian's Chromium, driven by
 * playwright-core): chosen with the file picker, read and shown, then imported. Without Chromium the suite is
 * skipped locally but fails in CI, which installs it (.ci/run).
 */
const sampleFile = (p: string) => fileURLToPath(new URL(`../connectors/bank-statements/samples/${p}`, import.meta.url));

let server: TestServer;
let client: TestClient;
let browser: Browser;
let redirectSite: http.Server;
let redirectBase: string;

requireChromiumInCi('Link upload in a browser');

describe.skipIf(!hasChromium)('Link upload in a browser', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    redirectSite = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Back at the client</title><h1>Back at the client</h1>');
    });
    await new Promise<void>((resolve) => redirectSite.listen(0, '127.0.0.1', resolve));
    redirectBase = `http://127.0.0.1:${(redirectSite.address() as AddressInfo).port}`;
    server = await startTestServer();
    client = await server.newClient({ name: 'Upload client' });
    await setProfile(server, client, {
      name: 'Lendwell Finance',
      redirectUrl: `${redirectBase}/done/{sourceType}?connection={connectionId}&code={statusCode}`,
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => (redirectSite ? redirectSite.close(resolve) : resolve(undefined)));
  });

  async function uploadPage(companyName: string): Promise<{ page: Page; companyId: string }> {
    const company = await newCompany(server, client, companyName);
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(company.redirect);
    await Promise.all([page.waitForURL(/\/start$/), page.getByRole('button', { name: 'Bank statement files' }).click()]);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('Bank statement files');
    return { page, companyId: company.id };
  }

  it('says "No files yet" for bank statement files until a file is imported, then "Connected"', async () => {
    const { page, companyId } = await uploadPage('Nothing Imported Ltd');
    const platform = () => page.getByRole('button', { name: /^Bank statement files/ });
    // Choosing the platform made its connection (Linked at once: there is nothing to sign in to), but nothing is shared.
    await page.goto(`${server.url}/link/company/${companyId}`);
    await expect(platform().textContent()).resolves.toContain('No files yet');
    await expect(platform().textContent()).resolves.not.toContain('Connected');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'company-no-files-yet.png'), fullPage: true });

    await Promise.all([page.waitForURL(/\/start$/), platform().click()]);
    await page.getByLabel(/Drop your statement files here/).setInputFiles(sampleFile('mt940/wolph-cmxl-mt940.sta'));
    await Promise.all([page.waitForURL(/\/files$/), page.getByRole('button', { name: 'Read the files' }).click()]);
    // Read and shown, not yet imported: still nothing shared.
    await page.goto(`${server.url}/link/company/${companyId}`);
    await expect(platform().textContent()).resolves.toContain('No files yet');
    await Promise.all([page.waitForURL(/\/start$/), platform().click()]);
    await page.getByLabel(/Drop your statement files here/).setInputFiles(sampleFile('mt940/wolph-cmxl-mt940.sta'));
    await Promise.all([page.waitForURL(/\/files$/), page.getByRole('button', { name: 'Read the files' }).click()]);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectBase)), page.getByRole('button', { name: 'Import' }).click()]);
    await page.goto(`${server.url}/link/company/${companyId}`);
    await expect(platform().textContent()).resolves.toContain('Connected');
    await page.close();
  });

  it.each(SAMPLES)('imports $path: read, shown, then imported', async (sample) => {
    const { page, companyId } = await uploadPage(`Upload ${sample.path}`);
    await page.getByLabel(/Drop your statement files here/).setInputFiles(sampleFile(sample.path));
    await Promise.all([page.waitForURL(/\/files$/), page.getByRole('button', { name: 'Read the files' }).click()]);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Check what was read');
    const section = page.getByRole('region', { name: path.basename(sample.path) });
    await expect(section.textContent()).resolves.toContain(`${sample.format} statement file`);
    // The counts shown add up to the source project's.
    const shown = (await section.locator('li').allTextContents()).map((t) => Number(/: (\d+) transactions?;/.exec(t)?.[1]));
    expect(shown.reduce((a, b) => a + b, 0)).toBe(sample.transactions);
    const alert = page.getByRole('alert');
    if (sample.unreconciled) await expect(alert.textContent()).resolves.toMatch(/does not reconcile/);
    else await expect(alert.count()).resolves.toBe(0);
    if (sample === SAMPLES[0]) await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'upload-preview.png'), fullPage: true });
    // Nothing is imported before the end user confirms.
    const connectionId = (
      await server.store.db.selectFrom('connections').select('id').where('company_id', '=', companyId).executeTakeFirstOrThrow()
    ).id;
    expect(
      await server.store.db
        .selectFrom('uploads')
        .select('id')
        .where('connection_id', '=', connectionId)
        .where('kind', '=', 'file')
        .execute(),
    ).toEqual([]);

    await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectBase)), page.getByRole('button', { name: 'Import' }).click()]);
    const url = new URL(page.url());
    expect(url.pathname).toBe('/done/banking');
    expect(url.searchParams.get('code')).toBe('200');
    await waitForSyncs(server, client, companyId);
    const transactions = await allRecords(server, client.auth, { companyId, connectionId }, 'banking-transactions');
    expect(transactions).toHaveLength(sample.transactions);
    await page.close();
  });

  it.each(MALFORMED)('shows why $path cannot be read, and imports nothing', async ({ path: p, where }) => {
    const { page, companyId } = await uploadPage(`Broken ${p}`);
    await page.getByLabel(/Drop your statement files here/).setInputFiles([sampleFile('csv/csv2ofx-gls.csv'), sampleFile(p)]);
    await Promise.all([page.waitForURL(/\/files$/), page.getByRole('button', { name: 'Read the files' }).click()]);
    const alert = await page.getByRole('alert').textContent();
    expect(alert).toContain('Nothing was imported');
    expect(alert).toContain(path.basename(p));
    expect(alert).toMatch(where);
    await expect(page.getByLabel(/Drop your statement files here/).count()).resolves.toBe(1);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'upload-refused.png'), fullPage: true });
    expect(await server.store.db.selectFrom('uploads').select('id').where('company_id', '=', companyId).execute()).toEqual([]);
    await page.close();
  });

  it('lets the end user choose other files, then adds them to the same connection without duplicates', async () => {
    const { page, companyId } = await uploadPage('Twice Ltd');
    const file = sampleFile('mt940/wolph-cmxl-mt940.sta');
    await page.getByLabel(/Drop your statement files here/).setInputFiles(file);
    await Promise.all([page.waitForURL(/\/files$/), page.getByRole('button', { name: 'Read the files' }).click()]);
    await Promise.all([page.waitForURL(/\/start$/), page.getByRole('button', { name: 'Choose other files' }).click()]);
    await page.getByLabel(/Drop your statement files here/).setInputFiles([file, sampleFile('csv/csv2ofx-ubs-ch-fr_trimmed.csv')]);
    await page.getByLabel(/CSV layout/).selectOption('ubs-ch-fr');
    await Promise.all([page.waitForURL(/\/files$/), page.getByRole('button', { name: 'Read the files' }).click()]);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectBase)), page.getByRole('button', { name: 'Import' }).click()]);
    // Again from the company page: the same connection takes the same file, and nothing doubles.
    const again = await uploadPage('unused');
    await again.page.close();
    await page.goto(`${server.url}/link/company/${companyId}`);
    await Promise.all([page.waitForURL(/\/start$/), page.getByRole('button', { name: 'Bank statement files' }).click()]);
    await page.getByLabel(/Drop your statement files here/).setInputFiles(file);
    await Promise.all([page.waitForURL(/\/files$/), page.getByRole('button', { name: 'Read the files' }).click()]);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectBase)), page.getByRole('button', { name: 'Import' }).click()]);
    const connections = await server.store.db.selectFrom('connections').select('id').where('company_id', '=', companyId).execute();
    expect(connections).toHaveLength(1);
    await waitForSyncs(server, client, companyId);
    expect(await allRecords(server, client.auth, { companyId, connectionId: connections[0].id }, 'banking-transactions')).toHaveLength(
      16 + 3,
    );
    await page.close();
  });
});
