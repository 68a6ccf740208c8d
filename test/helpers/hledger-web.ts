import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { exited, freePort } from './processes.js';

/**
 * Debian's `hledger-web` (and `hledger` for the oracle reports), run for real. Absent: the tests that need it skip
 * with this reason, except under CI=true, where `.ci/run` installs it and its absence is a failure.
 */
export function hledgerMissing(): string | undefined {
  const missing = ['hledger-web', 'hledger'].filter((bin) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).status !== 0);
  if (missing.length === 0) return undefined;
  const reason = `${missing.join(' and ')} not installed (Debian packages hledger-web, hledger; .ci/run installs them)`;
  if (process.env.CI === 'true') throw new Error(`CI=true but ${reason}`);
  return reason;
}

export interface HledgerWeb {
  url: string;
  /** The journal file hledger-web reads and appends to. */
  journal: string;
  stop(): Promise<void>;
}

/**
 * Starts `hledger-web --serve-api` on a copy of `fixture` in a fresh directory and waits until it answers; with
 * `inPlace`, on the file itself (a journal only read, whose `include`s stay where they are).
 */
export async function startHledgerWeb(fixture: string, options: { inPlace?: boolean } = {}): Promise<HledgerWeb> {
  const dir = options.inPlace ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerport-hledger-'));
  const journal = dir ? path.join(dir, path.basename(fixture)) : fixture;
  if (dir) fs.copyFileSync(fixture, journal);
  const port = await freePort();
  const child: ChildProcess = spawn('hledger-web', ['--serve-api', '-f', journal, '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/version`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline)
      throw new Error(`hledger-web did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    journal,
    async stop() {
      const gone = exited(child);
      child.kill('SIGTERM');
      // A build that shuts down gracefully waits for its open connections; a test that stops it wants it gone.
      const killer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await gone;
      clearTimeout(killer);
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** hledger's own output as text (`hledger <command> -f <journal> …`). */
export function hledgerText(journal: string, ...args: string[]): string {
  const result = spawnSync('hledger', [...args, '-f', journal], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`hledger ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** hledger's own report as JSON (`hledger <command> -f <journal> -O json …`): the oracle. */
export function hledgerJson(journal: string, ...args: string[]): any {
  const result = spawnSync('hledger', [...args, '-f', journal, '-O', 'json'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`hledger ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/**
 * A proxy in front of hledger-web that makes the journal's modification time lag its writes by `lagMs`, as a kernel's
 * coarse file clock does (file times are taken at the last timer tick: up to 4 ms behind at 250 Hz, 10 ms at 100 Hz).
 * hledger-web reloads the journal only when the file's time is after its last read, so an entry appended within
 * `lagMs` of a reload is never shown (until the file changes again).
 */
export async function startCoarseClockProxy(web: HledgerWeb, lagMs: number) {
  const server = http.createServer((request, response) => {
    const upstream = http.request(
      new URL(request.url ?? '/', web.url),
      { method: request.method, headers: request.headers, agent: false },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          // The append is done when hledger-web answers: its file time is set back to where a coarse clock puts it.
          if (request.method === 'PUT' && request.url === '/add') {
            const written = fs.statSync(web.journal).mtimeMs;
            fs.utimesSync(web.journal, new Date(), new Date(written - lagMs));
          }
          response.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks));
        });
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
