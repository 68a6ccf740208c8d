import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { answering, exited, startService, until, type ServiceProcess } from '../helpers/processes.js';

/** The service's log as a process writes it to a pipe: LOG_FORMAT=pretty, the JSON default, and a refused value. */

// Neither is a real key: only whether they reach the log matters.
const AUTHORIZATION = 'Basic bG9nLXRlc3QtYXV0aG9yaXphdGlvbi12YWx1ZQ==';
const CODE = 'log-test-authorization-code';

// A process start takes seconds, many more on a machine busy with other work.
const START_TIMEOUT = 180_000;
const TEST_TIMEOUT = 3 * CLI_TEST_TIMEOUT;

let dir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  assertCliBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerport-log-'));
});
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts `bin/ledgerport serve` on a store of its own with stdout piped, sends one request with secrets, and stops it. */
async function logOf(name: string, env: Record<string, string>): Promise<string> {
  const service: ServiceProcess = await startService(path.join(dir, `${name}.sqlite`), 'all', { LOG_LEVEL: 'info', ...env });
  children.push(service.child);
  try {
    await answering(service, START_TIMEOUT);
    const res = await fetch(`${service.url}/companies?code=${CODE}`, { headers: { authorization: AUTHORIZATION } });
    expect(res.status).toBe(401);
    // Both formats write the message text; the response's line comes after the request's.
    await until('the request to be logged', async () => (/request completed/.test(service.output()) ? true : undefined));
    service.child.kill('SIGTERM');
    expect(await exited(service.child)).toBe(0);
    return service.output();
  } finally {
    service.child.kill('SIGKILL');
  }
}

const logLines = (output: string) => output.split('\n').filter((line) => /request|listening|stopped/.test(line));

describe('the service log on a pipe', () => {
  it(
    'LOG_FORMAT=pretty: one readable line per event, uncoloured, without the secrets sent',
    async () => {
      const output = await logOf('pretty', { LOG_FORMAT: 'pretty' });
      const lines = logLines(output);
      expect(lines.find((line) => line.includes('incoming request'))).toMatch(/^\[\d{4}-\d{2}-\d{2} [\d:.]+\] INFO: incoming request /);
      expect(lines.some((line) => line.includes('request completed'))).toBe(true);
      expect(lines.some((line) => line.includes('stopped'))).toBe(true);
      for (const line of lines) expect(() => JSON.parse(line)).toThrow();
      expect(output).not.toContain('\u001b[');
      expect(output).not.toContain(AUTHORIZATION.slice('Basic '.length));
      expect(output).not.toContain(CODE);
      expect(output).toContain('code=%5BRedacted%5D');
    },
    TEST_TIMEOUT,
  );

  it(
    'LOG_FORMAT unset: JSON lines, as before, without the secrets sent',
    async () => {
      const output = await logOf('json', { LOG_FORMAT: '' });
      const lines = logLines(output);
      expect(lines.length).toBeGreaterThanOrEqual(3);
      const events = lines.map((line) => JSON.parse(line) as { msg: string; level: number });
      expect(events.map((e) => e.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed', 'stopped']));
      expect(output).not.toContain(AUTHORIZATION.slice('Basic '.length));
      expect(output).not.toContain(CODE);
    },
    TEST_TIMEOUT,
  );

  it(
    'LOG_FORMAT=bogus stops the start with a message',
    async () => {
      const service = await startService(path.join(dir, 'bogus.sqlite'), 'all', { LOG_FORMAT: 'bogus' });
      children.push(service.child);
      expect(await exited(service.child)).not.toBe(0);
      expect(service.output()).toContain('LOG_FORMAT must be pretty or json, got "bogus"');
    },
    TEST_TIMEOUT,
  );
});
