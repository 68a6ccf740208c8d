import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt } from '../helpers/cli.js';
import { hledgerMissing } from '../helpers/hledger-web.js';
import { answering, exited, freePort, startService, until, type ServiceProcess } from '../helpers/processes.js';
import { readmeBlocks, startsLedgerport, tourScript } from './readme-blocks.js';

/**
 * The README's tour, run as a reader runs it: every `sh` block from "Using the API" to the end, in order, in one
 * bash shell from the repository root, then the SDK snippet under the file name the README gives. Only what the
 * README offers to change (`${NAME:-default}`) is set; the lines that start Ledgerport are left to the test's own
 * server, started once with `npm run start:local`'s settings from the build already made.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const TOUR_TIMEOUT_MS = 300_000;

const pythonMissing = spawnSync('python3', ['--version']).status === 0 ? undefined : 'python3 not installed';
// The tour runs on the embedded store, as a reader's first hour does: the SQLite leg only.
const missing = process.env.TEST_DATABASE_URL
  ? 'the Postgres leg (TEST_DATABASE_URL is set): the tour runs on the SQLite leg'
  : (hledgerMissing() ?? pythonMissing);
if (missing) console.log(`skipping the README tour: ${missing}`);

/** The test's environment less KEY, which a reader's shell does not have either. */
function withoutKey(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { KEY: _key, ...rest } = env;
  return rest;
}

/** The settings `npm run start:local` adds to `npm start` (the `NAME=value` words before its command). */
function localTourSettings(): Record<string, string> {
  const script = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts[
    'start:local'
  ];
  const settings = Object.fromEntries([...script.matchAll(/\b([A-Z][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1], m[2]]));
  expect(settings, script).toMatchObject({ WEBHOOKS_ALLOW_PRIVATE: 'true', CONNECTORS_ALLOW_PRIVATE: 'true' });
  return settings;
}

describe.skipIf(missing !== undefined)('the README, executed', () => {
  let dir: string;
  let service: ServiceProcess;
  let key: string;
  let databaseUrl: string;

  beforeAll(async () => {
    assertCliBuilt();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerport-readme-'));
    databaseUrl = path.join(dir, 'store', 'ledgerport.sqlite');
    service = await startService(databaseUrl, 'all', { ...localTourSettings(), LOG_LEVEL: 'warn', SANDBOX_WRITE_DELAY_MS: '200' });
    await answering(service, 180_000);
    // Its output is a pipe, so the first key went to a file beside the store.
    key = await until('the first key', async () => {
      const text = fs.readFileSync(path.join(dir, 'store', 'first-key.txt'), 'utf8');
      return /shown only this once:\n\n {2}(\S+)\n/.exec(text)?.[1];
    });
  }, 240_000);
  afterAll(async () => {
    service?.child.kill('SIGTERM');
    if (service) await exited(service.child);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('fences synopses as text, and starts Ledgerport only with npm run start:local', () => {
    const blocks = readmeBlocks(README);
    expect(blocks.filter((b) => b.lang === 'sh').length).toBeGreaterThan(5);
    for (const block of blocks.filter((b) => b.lang === 'sh')) {
      // A placeholder such as [--plan a|b] or <id> cannot run: such a block is a synopsis.
      expect(block.code, `line ${block.line}`).not.toMatch(/\[--|<[a-z-]+>|\.\.\.\s*#/);
      for (const line of block.code.split('\n').filter(startsLedgerport)) expect(line.trim()).toMatch(/^npm run start:local &/);
    }
  });

  it(
    'runs every sh block from "Using the API" to the end, in one shell, without an error',
    async () => {
      const journal = path.join(dir, 'books.journal');
      fs.copyFileSync(path.join(ROOT, 'test/connectors/hledger/fixtures/books.journal'), journal);
      const script = tourScript(README);
      const port = new URL(service.url).port;
      const env: Record<string, string> = {
        ...(withoutKey(process.env) as Record<string, string>),
        PORT: port,
        BASE: service.url,
        // No KEY: the tour makes one as a reader without the first start's key does, with the CLI on the server's store.
        DATABASE_URL: databaseUrl,
        HLEDGER_PORT: String(await freePort()),
        HOOK_PORT: String(await freePort()),
        JOURNAL: journal,
      };
      // A group of its own, so what the tour leaves running in the background (hledger-web, the receiver) goes with it.
      const bash = spawn('bash', ['-c', script], { cwd: ROOT, env, detached: true });
      let output = '';
      bash.stdout.on('data', (c: Buffer) => (output += c.toString()));
      bash.stderr.on('data', (c: Buffer) => (output += c.toString()));
      const timer = setTimeout(() => process.kill(-bash.pid!, 'SIGKILL'), TOUR_TIMEOUT_MS);
      const code = await exited(bash);
      clearTimeout(timer);
      try {
        process.kill(-bash.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
      const failed = /^::block (\d+) line (\d+)$/gm;
      const lastBlock = [...output.matchAll(failed)].pop();
      expect(code, `the tour stopped in the block at README line ${lastBlock?.[2]}:\n${output.slice(-4000)}`).toBe(0);
      expect(output).toMatch(/^::tour complete$/m);
      // No answer was an error body, and no pipe choked on one.
      expect(output).not.toMatch(/"statusCode":\s*[45]\d\d/);
      expect(output).not.toMatch(/Traceback|KeyError|curl: \(\d+\)/);
      // What the tour says happens, happened.
      expect(output).toMatch(/"invoiceNumber":\s*"LP-0001"/);
      expect(output).toMatch(/invoices\.write\.successful/);
      expect(output).toMatch(
        /"integrationKey":\s*"hldg","sourceId":"[^"]+","sourceType":"Accounting","platformName":"hledger","status":"Linked"/,
      );
      expect(output).toMatch(/"format":"MT940"/);
      expect(output).not.toMatch(/does not reconcile/);
      expect(output).toMatch(/"status":\s*"Success"/);
      expect(output).toMatch(/(^|})204$/m);
    },
    TOUR_TIMEOUT_MS + 30_000,
  );

  it('runs the SDK snippet as written, under the file name the README gives', async () => {
    const snippet = readmeBlocks(README).find((b) => b.lang === 'js' && b.file !== undefined);
    expect(snippet?.file).toBe('sdk-tour.mjs');
    expect(README).toContain(`**\`${snippet!.file}\`**`);
    // A folder of its own, as a reader's, with the SDK installed (this repository's copy).
    const folder = fs.mkdtempSync(path.join(dir, 'sdk-'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
    fs.writeFileSync(path.join(folder, snippet!.file!), snippet!.code);
    const run = spawnSync(process.execPath, [snippet!.file!], {
      cwd: folder,
      env: { ...process.env, KEY: key, BASE: service.url },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^created [0-9a-f-]{36}; \d+ companies match name~acme\n$/);
  }, 90_000);
});
