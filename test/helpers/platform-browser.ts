import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './browser.js';
import { setEnv } from './env.js';
import { startTestServer, type TestClient, type TestServer } from './test-server.js';

/** What a Link page test of a live platform works with. */
export interface PlatformBrowser<F> {
  fake: F;
  server: TestServer;
  client: TestClient;
  browser: Browser;
}

/**
 * A live platform's fake, a server that reaches it (the fake's environment set, as an operator sets it), a client and
 * Chromium, started before the file's tests and closed after them. The fields are filled once the file's `beforeAll`
 * hooks have run.
 */
export function platformInBrowser<F extends { close(): Promise<unknown> }>(
  start: () => Promise<F>,
  env: (fake: F) => Record<string, string>,
): PlatformBrowser<F> {
  const world = {} as PlatformBrowser<F>;
  let restoreEnv: (() => void) | undefined;
  beforeAll(async () => {
    world.fake = await start();
    restoreEnv = setEnv(env(world.fake));
    world.server = await startTestServer();
    world.client = await world.server.newClient();
    world.browser = await launchChromium();
  });
  afterAll(async () => {
    await world.browser?.close();
    await world.server?.close();
    await world.fake?.close();
    restoreEnv?.();
  });
  return world;
}
