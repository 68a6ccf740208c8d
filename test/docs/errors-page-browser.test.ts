import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, requireChromiumInCi } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { checkFitsWidth, screenshots } from '../helpers/page-checks.js';

/**
 * `/docs/errors` in Chromium at a desktop's and a phone's width: the example error body reads whole inside its box,
 * nothing runs off the page, and every exception code the service writes into an `error` is listed with its status.
 */

let server: TestServer;
let browser: Browser;
let page: Page;
const shots = screenshots('docs');

requireChromiumInCi('Error catalogue in a browser');

/** Every `SomethingException:` that begins an error message in the service's source (the catalogue's own aside). */
function exceptionCodesInSource(): string[] {
  const codes = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.ts') && !file.startsWith(path.join('src', 'docs')))
        for (const m of fs.readFileSync(file, 'utf8').matchAll(/[`'"]([A-Z][A-Za-z]+Exception): /g)) codes.add(m[1]);
    }
  };
  walk('src');
  return [...codes].sort();
}

describe.skipIf(!hasChromium)('Error catalogue in a browser', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the example error body whole, and nothing past the edge, at 1280 and 390 px', async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${server.url}/docs/errors`);
      const example = page.locator('pre').first();
      await expect(example.textContent()).resolves.toContain('"correlationId"');
      const box = await example.evaluate((pre) => ({ scrollWidth: pre.scrollWidth, clientWidth: pre.clientWidth }));
      expect(box.scrollWidth, `example at ${width}: hidden to the right`).toBeLessThanOrEqual(box.clientWidth);
      await checkFitsWidth(page, `/docs/errors at ${width}`);
      await shots.take(page, `errors-${width}`);
    }
  });

  it('lists every exception code the service writes, with its status', async () => {
    const codes = exceptionCodesInSource();
    expect(codes).toEqual(expect.arrayContaining(['ConnectionLimitException', 'ValidationException', 'UriTooLongException']));
    await page.goto(`${server.url}/docs/errors`);
    const listed = await page
      .locator('table', { has: page.locator('caption', { hasText: 'exception code' }) })
      .locator('tr')
      .evaluateAll((rows) => rows.slice(1).map((r) => [r.children[0].textContent, r.children[1].textContent]));
    const statusOf = new Map(listed.map(([code, status]) => [code, status]));
    expect(
      codes.filter((c) => !statusOf.has(c)),
      'codes missing from /docs/errors',
    ).toEqual([]);
    expect(statusOf.get('ConnectionLimitException')).toBe('409 Conflict');
    expect(statusOf.get('DatasetAlreadyInProgressException')).toBe('400 Bad Request');
    // Each status section names its codes too.
    await expect(page.locator('h2[id="409"] ~ p', { hasText: 'Exception codes' }).first().textContent()).resolves.toContain(
      'ConnectionLimitException',
    );
  });
});
