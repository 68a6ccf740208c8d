import path from 'node:path';

/** Settings read from the environment; every variable is documented in README.md. */
export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  /** Base address this server is reached at; used in `redirect`, `linkUrl` and error documentation links. */
  publicUrl?: string;
  logLevel: string;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Jobs (syncs) run at once by this process. */
  jobConcurrency: number;
  /** A running job whose process stopped is given up after this long without a heartbeat, in ms. */
  jobLeaseMs: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = env.PORT ? Number(env.PORT) : 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer from 0 to 65535, got "${env.PORT}"`);
  }
  const bodyLimit = env.BODY_LIMIT ? Number(env.BODY_LIMIT) : 5 * 1024 * 1024;
  if (!Number.isInteger(bodyLimit) || bodyLimit <= 0) {
    throw new Error(`BODY_LIMIT must be a positive integer (bytes), got "${env.BODY_LIMIT}"`);
  }
  return {
    jobConcurrency: positiveInteger(env, 'JOB_CONCURRENCY', 2),
    jobLeaseMs: positiveInteger(env, 'JOB_LEASE_MS', 30_000),
    host: env.HOST || '127.0.0.1',
    port,
    databaseUrl: env.DATABASE_URL || defaultDatabaseUrl(),
    publicUrl: env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/+$/, '') : undefined,
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimit,
  };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

export function defaultDatabaseUrl(): string {
  return path.resolve('data', 'ledgerport.sqlite');
}
