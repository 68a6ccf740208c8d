import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/ledgerport', import.meta.url));
const CLI_ENTRY = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** CLI runs start a Node process each (about a second, more on a loaded machine). */
export const CLI_TEST_TIMEOUT = 90_000;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI runs the compiled code; `npm test` builds it first (pretest). */
export function assertCliBuilt(): void {
  if (!fs.existsSync(CLI_ENTRY)) throw new Error('dist/ is missing: run `npm run build` before these tests');
}

/** Runs `bin/ledgerport` against the store at `databaseUrl`, as an operator would. Never rejects. */
export function runLedgerport(databaseUrl: string, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, DATABASE_URL: databaseUrl }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs `bin/ledgerport` in `cwd` with DATABASE_URL unset, as an operator in another directory would. Never rejects. */
export function runLedgerportWithoutStore(cwd: string, ...args: string[]): Promise<CliResult> {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
