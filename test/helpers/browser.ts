import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';

/**
 * Debian's Chromium, driven by playwright-core, for the Link page's browser tests. Without it those suites skip
 * locally, but under CI=true (where .ci/run installs it) its absence is a failure.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
/** Screenshots for a human to look at (not compared). */
export const SCREENSHOT_DIR = path.join(os.tmpdir(), 'ledgerport-link-screenshots');

/** Fails the run when Chromium is missing under CI (call at the top of a browser test file). */
export function requireChromiumInCi(suite: string): void {
  describe.runIf(!hasChromium && process.env.CI === 'true')(`${suite} (CI)`, () => {
    it('has Chromium installed', () => {
      expect.fail(`Chromium is missing at ${CHROMIUM}; CI installs it with apt-get (see .ci/run).`);
    });
  });
}

/** Headless Chromium, with the screenshot folder made. */
export async function launchChromium(): Promise<Browser> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({
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
}
