import path from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { logFormat, type LogFormat } from './lib/log-format.js';
import { withoutCredentials } from './lib/url-credentials.js';
import { missingCodatFiles } from './codat-model/codat-oas-files.js';

/** Settings read from the environment; every variable is documented in README.md. */
export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  /** Base address this server is reached at; used in `redirect`, `linkUrl` and error documentation links. */
  publicUrl?: string;
  logLevel: string;
  /** `pretty` or `json`; by default pretty when stdout is a terminal. */
  logFormat: LogFormat;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Jobs (syncs) run at once by this process. */
  jobConcurrency: number;
  /** A running job whose process stopped runs again elsewhere after this long without a heartbeat, in ms. */
  jobLeaseMs: number;
  /** Deliver webhooks to loopback, private and link-local addresses too. */
  webhooksAllowPrivate: boolean;
  /** Let connections reach platforms (hledger-web…) on loopback, private and link-local addresses. */
  connectorsAllowPrivate: boolean;
  /** Delay before each webhook retry, in ms; undefined for the default schedule. */
  webhookRetryScheduleMs?: number[];
  /** How long the Sandbox platforms take to process a write, in ms. */
  sandboxWriteDelayMs: number;
  /** Postgres: connections this process's pool may open (writing threads open 2 more each). */
  databasePoolSize: number;
  /** Rate-limit counters in Redis instead of the store. */
  redisUrl?: string;
  /** On SIGTERM, how long running jobs may take to finish before they are handed back, in ms. */
  shutdownGraceMs: number;
  /** `GET /metrics` on the main port to this bearer token; unset, not there. */
  metricsToken?: string;
  /** A port of its own serving `GET /metrics` only, without a token (any role, workers too); unset, none. */
  metricsPort?: number;
  /** The reverse proxies in front: how many hops, or their addresses; a client's address is then read from X-Forwarded-For. */
  trustProxy?: number | string[];
  /** The emulator's controls under `/emulator/` (test clocks): for testing integrations, never for production. */
  emulator: boolean;
  /** The emulator's request journal: entries kept per client (`EMULATOR_JOURNAL_SIZE`, default 10,000). */
  emulatorJournalSize: number;
  /**
   * `EMULATOR_VALIDATE=true`: the folder of Codat's OpenAPI files every answer on a path they define is checked against
   * (`CODAT_OAS_DIR`, by default `../shared/reference/codat-oas` from the package's folder, as the tests read them).
   */
  emulatorValidate?: { codatOasDir: string };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = portNumber(env, 'PORT') ?? 8080;
  const bodyLimit = env.BODY_LIMIT ? Number(env.BODY_LIMIT) : 5 * 1024 * 1024;
  if (!Number.isInteger(bodyLimit) || bodyLimit <= 0) {
    throw new Error(`BODY_LIMIT must be a positive integer (bytes), got "${env.BODY_LIMIT}"`);
  }
  return {
    jobConcurrency: positiveInteger(env, 'JOB_CONCURRENCY', 2),
    jobLeaseMs: positiveInteger(env, 'JOB_LEASE_MS', 30_000),
    webhooksAllowPrivate: booleanFlag(env, 'WEBHOOKS_ALLOW_PRIVATE'),
    connectorsAllowPrivate: booleanFlag(env, 'CONNECTORS_ALLOW_PRIVATE'),
    webhookRetryScheduleMs: durationList(env, 'WEBHOOK_RETRY_SCHEDULE'),
    sandboxWriteDelayMs: nonNegativeInteger(env, 'SANDBOX_WRITE_DELAY_MS', 1000),
    redisUrl: redisUrl(env),
    databasePoolSize: positiveInteger(env, 'DATABASE_POOL_SIZE', 10),
    shutdownGraceMs: nonNegativeInteger(env, 'SHUTDOWN_GRACE_MS', 10_000),
    metricsToken: metricsToken(env),
    metricsPort: portNumber(env, 'METRICS_PORT'),
    trustProxy: trustProxy(env),
    emulator: booleanFlag(env, 'EMULATOR'),
    emulatorJournalSize: positiveInteger(env, 'EMULATOR_JOURNAL_SIZE', 10_000),
    emulatorValidate: emulatorValidate(env),
    host: env.HOST || '127.0.0.1',
    port,
    databaseUrl: env.DATABASE_URL || defaultDatabaseUrl(),
    publicUrl: env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/+$/, '') : undefined,
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: logFormat(env.LOG_FORMAT, Boolean(process.stdout.isTTY)),
    bodyLimit,
  };
}

/** The package's own folder (this file is `src/config.ts` or `dist/config.js`). */
const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * EMULATOR_VALIDATE: refused without the emulator, and without Codat's files where CODAT_OAS_DIR (or its default) says:
 * a check that cannot run must not look like one that passed.
 */
function emulatorValidate(env: NodeJS.ProcessEnv): { codatOasDir: string } | undefined {
  if (!booleanFlag(env, 'EMULATOR_VALIDATE')) return undefined;
  if (!booleanFlag(env, 'EMULATOR')) throw new Error("EMULATOR_VALIDATE=true checks the emulator's answers: set EMULATOR=true too");
  const codatOasDir = path.resolve(PACKAGE_ROOT, env.CODAT_OAS_DIR || '../shared/reference/codat-oas');
  const missing = missingCodatFiles(codatOasDir);
  if (missing.length > 0) {
    throw new Error(
      `EMULATOR_VALIDATE=true needs Codat's OpenAPI files, and ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in ${codatOasDir}: set CODAT_OAS_DIR to the folder holding them`,
    );
  }
  return { codatOasDir };
}

/**
 * TRUST_PROXY: the number of proxies in front (1 for one nginx), or their addresses and CIDR ranges, comma-separated.
 * Not `true`: trusting every hop would take a client's address from a header any client can write.
 */
function trustProxy(env: NodeJS.ProcessEnv): number | string[] | undefined {
  const raw = env.TRUST_PROXY?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (/^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 10) return Number(raw);
  const addresses = raw.split(',').map((a) => a.trim());
  if (addresses.every(isAddressOrRange)) return addresses;
  throw new Error(
    `TRUST_PROXY must be the number of proxies in front (1 to 10) or their addresses (CIDR ranges allowed), comma-separated; got "${raw}"`,
  );
}

/** An IPv4 or IPv6 address written out in full, or one with a prefix length (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrRange(text: string): boolean {
  const [address, prefix, ...rest] = text.split('/');
  const family = net.isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

function redisUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.REDIS_URL;
  if (raw === undefined || raw === '') return undefined;
  if (!/^rediss?:\/\//.test(raw)) throw new Error(`REDIS_URL must be a redis:// or rediss:// URL, got "${withoutCredentials(raw)}"`);
  return raw;
}

function metricsToken(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  // The token is a password for the metrics: a short one is guessed, and spaces would not survive the header.
  if (raw.length < 16 || /\s/.test(raw))
    throw new Error('METRICS_TOKEN must be at least 16 characters without spaces, e.g. `openssl rand -hex 32`');
  return raw;
}

/** A TCP port from `name`, or undefined when unset. */
function portNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`${name} must be an integer from 0 to 65535, got "${raw}"`);
  return value;
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

function nonNegativeInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function booleanFlag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

/** Comma-separated whole milliseconds, e.g. `0,5000,300000`. */
function durationList(env: NodeJS.ProcessEnv, name: string): number[] | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const values = raw.split(',').map((part) => part.trim());
  if (!values.every((v) => /^\d+$/.test(v))) {
    throw new Error(`${name} must be comma-separated durations in milliseconds, e.g. 0,5000,300000; got "${raw}"`);
  }
  return values.map(Number);
}

export function defaultDatabaseUrl(): string {
  return path.resolve('data', 'ledgerport.sqlite');
}
