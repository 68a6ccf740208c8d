// The server under test as a child process (`node dist/main.js`), the operator CLI, and the RSS sampler.
import fs from 'node:fs';
import net from 'node:net';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { ROOT } from './config.mjs';
import { request } from './http.mjs';

const run = promisify(execFile);

/** Server settings the run fixes; every other server variable is removed so the server runs on its defaults. */
const SERVER_VARIABLES = [
  'HOST',
  'PORT',
  'DATABASE_URL',
  'PUBLIC_URL',
  'LOG_LEVEL',
  'BODY_LIMIT',
  'JOB_CONCURRENCY',
  'JOB_LEASE_MS',
  'WEBHOOKS_ALLOW_PRIVATE',
  'WEBHOOK_RETRY_SCHEDULE',
  'SANDBOX_WRITE_DELAY_MS',
  'REDIS_URL',
  'SHUTDOWN_GRACE_MS',
  'DATABASE_POOL_SIZE',
];

/**
 * The key sealing connection credentials at rest, one per run and shared by its processes (Postgres requires one;
 * see docs/deploy.md). An operator's own LEDGERPORT_SECRET_KEY is used when set.
 */
const RUN_SECRET_KEY = process.env.LEDGERPORT_SECRET_KEY || randomBytes(32).toString('base64');

function serverEnv(extra) {
  const env = { ...process.env };
  for (const name of SERVER_VARIABLES) delete env[name];
  return { ...env, LEDGERPORT_SECRET_KEY: RUN_SECRET_KEY, ...extra };
}

/** A port nothing listens on right now (the OS picks it). */
export async function freePort() {
  const probe = net.createServer();
  await new Promise((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** `bin/ledgerport clients create`: returns {clientId, apiKey}. Standard plan: no company limit, no quota. */
export async function createClient(databaseUrl, name) {
  const { stdout } = await run(process.execPath, ['bin/ledgerport', 'clients', 'create', '--name', name, '--plan', 'standard'], {
    cwd: ROOT,
    env: serverEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }),
  });
  return JSON.parse(stdout.trim().split('\n').pop());
}

/**
 * Starts `node dist/main.js`. Its output is kept only as the last lines (for the error message if it dies), so a
 * long run holds no growing log in memory.
 */
export function startServer({ databaseUrl, port, role, env = {} }) {
  const startedAt = performance.now();
  // `npm start` by default; `bin/ledgerport serve --role <role>` for one role.
  const args = role ? ['bin/ledgerport', 'serve', '--role', role] : ['dist/main.js'];
  // BENCH_NODE_FLAGS: flags for the server's node (e.g. `--cpu-prof --cpu-prof-dir=profiles`, which NODE_OPTIONS refuses).
  const flags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, ...args], {
    cwd: ROOT,
    env: serverEnv({ PORT: String(port ?? 0), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = [];
  const keep = (chunk) => {
    for (const line of String(chunk).split('\n')) if (line.trim()) tail.push(line);
    if (tail.length > 60) tail.splice(0, tail.length - 60);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let expectedExit = false;
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  void exited.then(({ code, signal }) => {
    if (!expectedExit) {
      process.stderr.write(`\nThe server exited unexpectedly (code ${code}, signal ${signal}). Its last output:\n${tail.join('\n')}\n`);
      process.exitCode = 1;
    }
  });
  return {
    pid: child.pid,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    startedAt,
    exited,
    lastOutput: () => tail.join('\n'),
    /** SIGTERM and wait for the process to end (the server closes its store on the way out). */
    async stop() {
      expectedExit = true;
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/**
 * Polls an authenticated `GET /companies?pageSize=1` every 10 ms until it answers 200; returns the ms since the
 * process was spawned (the start time the target is about).
 */
export async function waitUntilServing(server, authorization, timeoutMs = 600_000) {
  const url = `${server.baseUrl}/companies?pageSize=1`;
  let died = false;
  void server.exited.then(() => (died = true));
  for (;;) {
    if (died) throw new Error(`the server exited before answering:\n${server.lastOutput()}`);
    try {
      if ((await request(url, { headers: { authorization } })).status === 200) return performance.now() - server.startedAt;
    } catch {
      // Not listening yet.
    }
    if (performance.now() - server.startedAt > timeoutMs) throw new Error(`the server did not answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** VmRSS of a process now, in bytes (0 once it is gone). */
export function readRss(pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * What a process's resident memory is made of (/proc/<pid>/status), in bytes: anonymous pages (the heaps: V8's,
 * malloc's), file-backed pages (mapped files: code, and an SQLite store's memory map) and shared memory.
 */
export function readRssParts(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { anon: kb('RssAnon'), file: kb('RssFile'), shmem: kb('RssShmem') };
  } catch {
    return { anon: 0, file: 0, shmem: 0 };
  }
}

/** Reads VmRSS of a process every 250 ms and keeps the largest value, in bytes. */
export function sampleRss(pid) {
  let peak = 0;
  // Once the process is gone readRss answers 0, and what was measured is kept.
  const read = () => {
    peak = Math.max(peak, readRss(pid));
  };
  read();
  const timer = setInterval(read, 250);
  return {
    stop() {
      clearInterval(timer);
      read();
      return peak;
    },
  };
}
