import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, CLI_TEST_TIMEOUT, runLedgerport } from '../helpers/cli.js';
import { answering, exited, freePort } from '../helpers/processes.js';

/** What `npx ledgerport` and the installed command give: the version, and a server when no command is named. */

const BIN = fileURLToPath(new URL('../../bin/ledgerport', import.meta.url));
const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

let dir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  assertCliBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerport-cli-'));
});
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('ledgerport', () => {
  it(
    '--version prints the version in package.json',
    async () => {
      const res = await runLedgerport(path.join(dir, 'unused.sqlite'), '--version');
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toBe(`${version}\n`);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'with no command serves, as `serve` does',
    async () => {
      const port = await freePort();
      let output = '';
      const child = spawn(process.execPath, [BIN], {
        env: { ...process.env, DATABASE_URL: path.join(dir, 'default.sqlite'), PORT: String(port), LOG_LEVEL: 'warn' },
      });
      children.push(child);
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const url = `http://127.0.0.1:${port}`;
      try {
        // A process start takes seconds, many more on a machine busy with other work.
        await answering({ child, url, output: () => output }, 180_000);
        const health = await fetch(`${url}/healthz`);
        expect(await health.json()).toEqual({ status: 'ok' });
        child.kill('SIGTERM');
        expect(await exited(child)).toBe(0);
      } finally {
        child.kill('SIGKILL');
      }
    },
    3 * CLI_TEST_TIMEOUT,
  );
});
