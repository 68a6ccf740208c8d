import type { Logger } from 'pino';
import type { Store } from '../storage/database.js';
import { createGraphileJobEngine } from './graphile-job-engine.js';
import { createLocalJobEngine } from './local-job-engine.js';
import type { JobEngine } from './job-queue.js';

export interface JobEngineOptions {
  log: Pick<Logger, 'error' | 'warn' | 'info' | 'debug'>;
  concurrency?: number;
  pollMs?: number;
  leaseMs?: number;
  shutdownGraceMs?: number;
}

/** graphile-worker on Postgres (any number of processes); the in-process engine on SQLite. */
export async function createJobEngine(store: Store, options: JobEngineOptions): Promise<JobEngine> {
  return store.dialect.name === 'postgres' ? createGraphileJobEngine(store, options) : createLocalJobEngine(store.db, options);
}
