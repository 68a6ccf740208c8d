import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { createJobsStore, type Job } from './jobs.store.js';
import { JobHandedBack, MAX_JOB_RUNS, type JobContext, type JobEngine, type JobHandler } from './job-queue.js';

export interface LocalJobEngineOptions {
  log: Pick<Logger, 'error' | 'warn' | 'info'>;
  /** Jobs run at once by this process. */
  concurrency?: number;
  /** How often to look for due jobs and expired leases when idle, in ms. */
  pollMs?: number;
  /** How long a claimed job stays this process's without a heartbeat, in ms. */
  leaseMs?: number;
  /** On stop, how long running jobs may take to finish before they are handed back, in ms (default: no limit). */
  shutdownGraceMs?: number;
}

/**
 * The embedded engine (SQLite): durable jobs in the store's `jobs` table, run inside this process. A job is
 * claimed under a lease that its heartbeats renew; a job whose lease expired (its process died) goes back in
 * the queue and runs again.
 */
export function createLocalJobEngine(db: Kysely<Database>, options: LocalJobEngineOptions): JobEngine {
  const jobs = createJobsStore(db);
  const owner = `${process.pid}:${randomUUID()}`;
  const concurrency = options.concurrency ?? 2;
  const pollMs = options.pollMs ?? 250;
  const leaseMs = options.leaseMs ?? 30_000;
  let handlers: Record<string, JobHandler> = {};
  let running = 0;
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let handingBack = false;
  const inFlight = new Set<Promise<void>>();

  let lastPrune = 0;

  /** Each claim holds the job under its own name: a run whose lease was taken back cannot renew the next run's. */
  let claims = 0;

  async function runOne(job: Job, owner: string): Promise<void> {
    const handler = handlers[job.kind];
    const context: JobContext = {
      attempt: job.attempts,
      heartbeatEveryMs: Math.max(50, Math.floor(leaseMs / 3)),
      async heartbeat() {
        if (handingBack) throw new JobHandedBack('this process is shutting down');
        if (!(await jobs.renew(job.id, owner, leaseMs))) throw new JobHandedBack('its lease expired and it was queued again');
      },
    };
    try {
      if (job.attempts > MAX_JOB_RUNS) {
        options.log.warn({ jobId: job.id, kind: job.kind, attempts: job.attempts }, 'job interrupted too often: giving up');
        await handler.onGiveUp?.(job.payload);
      } else {
        await handler.run(job.payload, context);
      }
      await jobs.finish(job.id, owner, 'done');
    } catch (err) {
      if (err instanceof JobHandedBack) {
        options.log.info({ jobId: job.id, kind: job.kind }, err.message);
        await jobs.release(job.id, owner).catch(() => {});
        return;
      }
      options.log.error({ err, jobId: job.id, kind: job.kind }, 'job failed');
      await jobs.finish(job.id, owner, 'failed').catch(() => {});
    }
  }

  async function tick(): Promise<void> {
    timer = undefined;
    if (stopped) return;
    try {
      // Finished jobs are kept a day (to look into), then deleted: checked at most once an hour.
      if (Date.now() - lastPrune > 3_600_000) {
        lastPrune = Date.now();
        await jobs.prune(new Date(lastPrune - 86_400_000));
      }
      const requeued = await jobs.requeueExpired();
      if (requeued > 0) options.log.warn({ requeued }, 'jobs of a stopped process queued again');
      while (!stopped && running < concurrency) {
        const claimant = `${owner}:${++claims}`;
        const job = await jobs.claim(claimant, leaseMs, Object.keys(handlers));
        if (!job) break;
        running++;
        const task = runOne(job, claimant).finally(() => {
          running--;
          inFlight.delete(task);
          wake();
        });
        inFlight.add(task);
      }
    } catch (err) {
      options.log.error({ err }, 'job polling failed');
    }
    if (!stopped && !timer) timer = setTimeout(() => void tick(), pollMs);
  }

  function wake(): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void tick(), 0);
  }

  return {
    enqueue: async (executor, job) => {
      await jobs.enqueue(executor, job);
    },
    async start(jobHandlers) {
      handlers = jobHandlers;
      if (!stopped) return;
      stopped = false;
      handingBack = false;
      wake();
    },
    wake,
    queueDepth: () => jobs.queueDepth(new Date()),
    async stop() {
      const graceMs = options.shutdownGraceMs ?? Number.POSITIVE_INFINITY;
      stopped = true;
      if (timer) clearTimeout(timer);
      const all = Promise.allSettled([...inFlight]);
      if (Number.isFinite(graceMs)) {
        let graceTimer: NodeJS.Timeout | undefined;
        const finished = await Promise.race([
          all.then(() => true),
          new Promise<boolean>((resolve) => (graceTimer = setTimeout(() => resolve(false), graceMs))),
        ]);
        clearTimeout(graceTimer);
        if (!finished) handingBack = true;
      }
      await all;
    },
  };
}
