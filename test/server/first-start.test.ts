import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { answering, exited, startService, until } from '../helpers/processes.js';
import { basicAuth } from '../helpers/test-server.js';

/** A newcomer's first start with the output going to a pipe (a log file, systemd, a CI log), then a second start. */

const START_TIMEOUT = 180_000;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  assertCliBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerport-first-'));
});
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

async function start(store: string) {
  const service = await startService(store, 'all', { LOG_LEVEL: 'info', LOG_FORMAT: '' });
  children.push(service.child);
  await answering(service, START_TIMEOUT);
  await until('the start to be logged', async () => (/API reference at/.test(service.output()) ? true : undefined));
  return service;
}

async function stop(service: Awaited<ReturnType<typeof start>>) {
  service.child.kill('SIGTERM');
  expect(await exited(service.child)).toBe(0);
}

describe('starting on a pipe', () => {
  it(
    'writes the first key to first-key.txt (0600) beside the store, never to the log; every start names /portal and /docs',
    async () => {
      const store = path.join(dir, 'store', 'ledgerport.sqlite');
      const keyFile = path.join(dir, 'store', 'first-key.txt');
      const first = await start(store);
      const lines = first
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '');
      // Every line is a JSON log line: nothing printed among them.
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      const events = lines.map((line) => JSON.parse(line) as { msg: string; file?: string; portal?: string; docs?: string });
      expect(events).toContainEqual(
        expect.objectContaining({
          msg: `portal at ${first.url}/portal, API reference at ${first.url}/docs`,
          portal: `${first.url}/portal`,
          docs: `${first.url}/docs`,
        }),
      );
      const notice = events.find((e) => e.msg.startsWith('first start:'));
      expect(notice?.file).toBe(keyFile);
      expect(notice?.msg).toContain(keyFile);

      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
      const text = fs.readFileSync(keyFile, 'utf8');
      const apiKey = /shown only this once:\n\n {2}(\S+)\n/.exec(text)?.[1];
      expect(apiKey).toMatch(/^[A-Za-z0-9]{40}$/);
      expect(first.output()).not.toContain(apiKey!);
      expect(first.output()).not.toContain(Buffer.from(apiKey!).toString('base64'));
      // The curl line in the file works as pasted.
      expect(text).toContain(`curl -H "Authorization: ${basicAuth(apiKey!)}" ${first.url}/companies`);
      expect((await fetch(`${first.url}/companies`, { headers: { authorization: basicAuth(apiKey!) } })).status).toBe(200);

      // The front door: `/` leads to the portal, and there is a favicon.
      const root = await fetch(`${first.url}/`, { redirect: 'manual' });
      expect(root.status).toBe(302);
      expect(root.headers.get('location')).toBe('/portal');
      for (const icon of ['/favicon.ico', '/favicon.svg']) {
        const res = await fetch(`${first.url}${icon}`);
        expect(res.status, icon).toBe(200);
        expect(res.headers.get('content-type'), icon).toBe('image/svg+xml');
        expect(await res.text(), icon).toMatch(/^<svg [^>]*viewBox/);
      }
      await stop(first);

      const again = await start(store);
      expect(again.output()).toContain(`"portal":"${again.url}/portal"`);
      expect(again.output()).not.toMatch(/first start/i);
      expect(fs.readFileSync(keyFile, 'utf8')).toBe(text);
      await stop(again);
    },
    3 * CLI_TEST_TIMEOUT + 2 * START_TIMEOUT,
  );

  it(
    'replaces a first-key.txt left from an earlier store, readable by its owner only',
    async () => {
      const store = path.join(dir, 'again', 'ledgerport.sqlite');
      const keyFile = path.join(dir, 'again', 'first-key.txt');
      fs.mkdirSync(path.dirname(store), { recursive: true });
      fs.writeFileSync(keyFile, 'an older key\n', { mode: 0o644 });
      const service = await start(store);
      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(keyFile, 'utf8')).toMatch(/^First start: created client "Default client"/);
      await stop(service);
    },
    CLI_TEST_TIMEOUT + START_TIMEOUT,
  );

  it(
    'says how to get a key when first-key.txt cannot be written, and keeps serving',
    async () => {
      const store = path.join(dir, 'blocked', 'ledgerport.sqlite');
      // A directory where the file would go: the write fails as on a directory the service may not write to.
      fs.mkdirSync(path.join(dir, 'blocked', 'first-key.txt'), { recursive: true });
      const service = await start(store);
      const events = service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; level: number; clientId?: string });
      const failure = events.find((e) => e.msg.startsWith('first start:'));
      expect(failure?.level).toBe(50);
      expect(failure?.msg).toMatch(
        new RegExp(
          `could not write its API key to .*first-key\\.txt; issue one with: ledgerport keys create --client ${failure?.clientId}$`,
        ),
      );
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      await stop(service);
    },
    CLI_TEST_TIMEOUT + START_TIMEOUT,
  );
});
