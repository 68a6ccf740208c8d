// The suite's knobs, read once from the environment (docs/benchmarks.md lists them).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BENCH_DIR = path.join(ROOT, 'bench');
export const STORE_DIR = path.join(BENCH_DIR, '.store');
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');
export const DOCS_FILE = path.join(ROOT, 'docs', 'benchmarks.md');

function positiveInteger(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

export function loadKnobs() {
  const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('DATABASE_URL must be a postgres:// URL (leave it unset for a fresh SQLite file under bench/.store/)');
  }
  return {
    invoices: positiveInteger('BENCH_INVOICES', 1_000_000),
    durationSeconds: positiveInteger('BENCH_DURATION', 10),
    connections: positiveInteger('BENCH_CONNECTIONS', 10),
    companies: positiveInteger('BENCH_COMPANIES', 10_000),
    /** The Postgres server to create the run's schema on; undefined for SQLite. */
    postgresUrl: databaseUrl,
    store: databaseUrl ? 'postgres' : 'sqlite',
  };
}

/**
 * How long a sync may take before the run gives up. Generous on purpose: at 1,000,000 invoices the first sync
 * took over 3 minutes before the storage work, and the other data types scale with the invoice count.
 */
export const SYNC_TIMEOUT_MS = 6 * 60 * 60 * 1000;
