import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

/** Service processes started as an operator would: `bin/ledgerport serve --role …` on a test store. */

const BIN = fileURLToPath(new URL('../../bin/ledgerport', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  /** Base address (API roles). */
  url: string;
  /** Everything it printed so far. */
  output(): string;
}

/** Starts `bin/ledgerport serve --role <role>`; `env` adds to (or overrides) the inherited environment. */
export async function startService(
  databaseUrl: string,
  role: 'all' | 'api' | 'worker',
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  const port = role === 'worker' ? 0 : await freePort();
  let output = '';
  const child = spawn(process.execPath, [BIN, 'serve', '--role', role], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', ...env },
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, url: `http://127.0.0.1:${port}`, output: () => output };
}

/** Waits until an API process answers its health check. */
export async function answering(service: ServiceProcess, timeoutMs = 30_000): Promise<void> {
  await until(
    `the process on ${service.url} to answer`,
    async () => ((await fetch(`${service.url}/healthz`)).ok ? true : undefined),
    timeoutMs,
    () => service.output(),
  );
}

/** Polls `probe` until it returns a value (errors count as not yet). */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000, detail?: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${detail ? `\n${detail()}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}
