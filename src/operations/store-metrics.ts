import type pg from 'pg';
import type { Logger } from 'pino';
import { Gauge } from 'prom-client';
import type { JobEngine, QueueDepth } from '../jobs/job-queue.js';
import { METRICS_PREFIX, type Metrics } from './metrics.js';

/**
 * Gauges read when Prometheus scrapes, not kept up to date as things happen: the job queue is shared by every
 * process on the store, so only the store knows its depth. Every process reports the same queue (aggregate them
 * with `max`, not `sum`); the pool is this process's own.
 */
export function watchStore(
  metrics: Metrics,
  deps: {
    jobs: Pick<JobEngine, 'queueDepth'>;
    /** The job kinds this service runs: each is reported, with 0 when none waits, so a series never vanishes. */
    kinds: readonly string[];
    /** Postgres: the store's pool (shared with graphile-worker). SQLite has one connection per process and no pool. */
    pgPool?: pg.Pool;
    log: Pick<Logger, 'warn'>;
  },
): void {
  const registers = [metrics.registry];
  // Both queue gauges are collected at once in one scrape: they share one query.
  let reading: Promise<QueueDepth[] | undefined> | undefined;
  const readQueue = () =>
    (reading ??= deps.jobs
      .queueDepth()
      .catch((err: unknown) => {
        deps.log.warn({ err }, 'reading the job queue for metrics failed');
        return undefined;
      })
      .finally(() => (reading = undefined)));

  function queueGauge(name: string, help: string, value: (depth: QueueDepth) => number): void {
    new Gauge({
      name: `${METRICS_PREFIX}${name}`,
      help,
      labelNames: ['kind'] as const,
      registers,
      async collect() {
        const depths = await readQueue();
        this.reset();
        // The store did not answer: no value rather than a wrong one (the scrape's other series still answer).
        if (!depths) return;
        const byKind = new Map(depths.map((depth) => [depth.kind, depth]));
        for (const kind of new Set([...deps.kinds, ...byKind.keys()])) {
          const depth = byKind.get(kind);
          this.set({ kind }, depth ? value(depth) : 0);
        }
      },
    });
  }
  queueGauge('jobs_queued', 'Jobs due and waiting for a worker, by kind (the whole store, not this process).', (d) => d.queued);
  queueGauge(
    'jobs_oldest_queued_age_seconds',
    'How long the job due earliest has waited for a worker, by kind (0 when none waits).',
    (d) => d.oldestAgeSeconds,
  );

  const pool = deps.pgPool;
  if (!pool) return;
  const poolGauge = (name: string, help: string, value: () => number) =>
    new Gauge({
      name: `${METRICS_PREFIX}${name}`,
      help,
      registers,
      collect() {
        this.set(value());
      },
    });
  poolGauge('store_pool_connections', "Connections open in this process's Postgres pool.", () => pool.totalCount);
  poolGauge('store_pool_idle_connections', "Open connections idle in this process's Postgres pool.", () => pool.idleCount);
  poolGauge('store_pool_waiting_requests', "Queries waiting for a connection of this process's Postgres pool.", () => pool.waitingCount);
  poolGauge(
    'store_pool_max_connections',
    "The size limit of this process's Postgres pool (DATABASE_POOL_SIZE).",
    () => pool.options.max ?? 10,
  );
}
